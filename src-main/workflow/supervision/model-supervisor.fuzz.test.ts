import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Verdict } from '@shared/supervisor/contracts';
import { escalation } from '@shared/supervisor/testing/fixtures';
import { invocationId, type Lineage } from '@shared/workflow/invocation';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { InvocationRecord } from '../workflow-checkpoint';
import { readStep } from './model-supervisor-prompt';
import { onLineage, readNodeOutput, TOOL_RESULT_LIMIT } from './model-supervisor-tools';

/** Properties of the model supervisor's reading: its tools never leak across items or secrets, and no reply is ever guessed into a verdict. */

const SECRET = 'sk-live-9f8e7d6c5b4a3210';

const lineageArb: fc.Arbitrary<Lineage> = fc.oneof(
  fc.constant<Lineage>([]),
  fc.integer({ min: 0, max: 3 }).map((i) => [{ iterate: 'a', index: i }]),
  fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 })).map(([i, j]) => [{ iterate: 'a', index: i }, { iterate: 'b', index: j }]),
);

const recordArb: fc.Arbitrary<InvocationRecord> = fc.record({ node: fc.constantFrom('n1', 'n2', 'n3'), lineage: lineageArb, big: fc.boolean() }).map(({ node, lineage, big }) => {
  const id = invocationId(node, lineage);
  return { id, node, lineage, status: 'done', outputs: { text: `OUT<${id}> key=${SECRET}${big ? 'x'.repeat(6000) : ''}`, token: 'plain-token-value' } };
});

describe('the model supervisor’s tools and answers, over generated runs and replies', () => {
  it('read_node_output returns only an output on the escalation’s own item path, masked and bounded', () => {
    fc.assert(
      fc.property(fc.uniqueArray(recordArb, { selector: (r) => r.id, maxLength: 12 }), lineageArb, fc.constantFrom('n1', 'n2', 'n3'), (records, lineage, node) => {
        const secrets = new SecretRegistry();
        secrets.register('openai', SECRET);
        const e = escalation({ lineage });
        const text = readNodeOutput({ invocations: () => records, secrets }, e, node);
        expect(text.length).toBeLessThanOrEqual(TOOL_RESULT_LIMIT);
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain('plain-token-value');
        for (const r of records) {
          if (text.includes(`OUT<${r.id}>`)) {
            expect(r.node).toBe(node);
            expect(onLineage(r.lineage, lineage)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('any reply reads as a tool step, a verdict the kernel’s schema accepts, or malformed — never throws', () => {
    const replyArb = fc.oneof(
      fc.string().map((text) => ({ text, tool_calls: [] })),
      fc.jsonValue().map((v) => ({ text: JSON.stringify(v), tool_calls: [] })),
      fc.record({ action: fc.constantFrom('retry', 'skip', 'substitute', 'end_stream', 'fail', 'ignore'), reason: fc.option(fc.string(), { nil: undefined }), value: fc.option(fc.jsonValue(), { nil: undefined }) }).map((v) => ({ text: JSON.stringify({ step: 'verdict', verdict: v }), tool_calls: [] })),
      fc.record({ name: fc.constantFrom('verdict', 'get_run_state', 'read_node_output', 'rm'), arguments: fc.jsonValue() }).map((c) => ({ text: '', tool_calls: [c] })),
    );
    fc.assert(
      fc.property(replyArb, (reply) => {
        const step = readStep({ ...reply, model: 'replay' });
        if (step.kind === 'verdict') expect(Verdict.safeParse(step.verdict).success).toBe(true);
        if (step.kind === 'tool') expect(['get_run_state', 'read_node_output']).toContain(step.tool);
      }),
      { numRuns: 500 },
    );
  });
});
