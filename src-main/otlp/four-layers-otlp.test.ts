import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliWith } from '../../test-support/cli-capture';
import { ANSWER_SECRET, SUPERVISOR_SKIP_REASON, writeFourLayersWorkflow } from '../../test-support/four-layers-workflow';
import { collector } from '../../test-support/otlp-collector';
import { tempFolder } from '../../test-support/temp-folder';
import { EXIT } from '../shells/cli/cli-io';

/**
 * Issue 29: one workflow run through all four layers of supervision — a DEBATE pattern (judgment),
 * an agent node with its teacher and SCS on (decision boundary, SCS gates), and a supervised fan-out
 * (workflow supervisor) — recorded with `steward run --trace`, then `steward trace otlp` to a
 * loopback collector double: one trace, every layer a span or span event, the GenAI names where the
 * conventions have them. Replay models only (the scripted provider, the double at the model boundary).
 */

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events: Array<{ name: string; attributes: OtlpKeyValue[] }>;
  status: { code?: number; message?: string };
}

const valueOf = (v: OtlpValue | undefined): unknown =>
  v === undefined ? undefined : (v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.arrayValue?.values.map(valueOf))));
const attr = (list: OtlpKeyValue[], key: string): unknown => valueOf(list.find((a) => a.key === key)?.value);
const STATUS_OK = 1;
const STATUS_ERROR = 2;

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

describe('steward trace otlp on a run through all four layers', () => {
  it('is one trace: the pattern loop (iterations, members, judgments) and the workflow supervisor (escalations, model calls, verdicts) are spans beside the agent, teacher and SCS ones', async () => {
    const dir = tempFolder('steward-four-layers-otlp-', cleanups);
    const data = ['--data-dir', join(dir, 'data')];
    const trace = join(dir, 'run.jsonl');
    const ran = await cliWith(['run', writeFourLayersWorkflow(dir), '--input', `items=${JSON.stringify(['ok one', 'not this', 'nor that'])}`, '--trace', trace, ...data]);
    // Item 2's supervisor never gave a usable verdict: it failed; item 3 was skipped.
    expect(ran.code, ran.stderr).toBe(EXIT.itemsFailed);

    const local = await collector();
    try {
      const out = join(dir, 'run.otlp.json');
      const exported = await cliWith(['trace', 'otlp', trace, '-o', out, '--endpoint', local.url, ...data]);
      expect(exported.code, exported.stderr).toBe(0);
      const written = readFileSync(out, 'utf8');
      expect(local.received.map((r) => r.body)).toEqual([written]);
      expect(exported.stderr).toMatch(/sent \d+ spans from 1 run to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);

      const request = JSON.parse(written) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      expect(byId.size).toBe(spans.length);
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      const children = (parent: OtlpSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);
      const one = (name: string) => {
        const found = spans.filter((s) => s.name === name);
        expect(found, name).toHaveLength(1);
        return found[0] as OtlpSpan;
      };
      const root = one('invoke_workflow Four layers');
      // Every span nests in the run, each within its parent's time.
      for (const span of spans) {
        const parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
        if (span !== root) expect(parent, span.name).toBeDefined();
        if (parent) expect(BigInt(parent.startTimeUnixNano) <= BigInt(span.startTimeUnixNano) && BigInt(span.endTimeUnixNano) <= BigInt(parent.endTimeUnixNano), span.name).toBe(true);
      }

      // Judgment (seed 002): the debate's two iterations, each with its members' agent runs and its judgment.
      const debate = one('node debate');
      expect(children(debate).map((s) => s.name)).toEqual(['pattern_iteration 1', 'pattern_iteration 2']);
      expect(attr(debate.attributes, 'steward.pattern.status')).toBe('approved');
      expect(debate.events.map((e) => e.name)).toEqual(['steward.pattern.preference', 'steward.pattern.ended']);
      const verdicts: unknown[] = [];
      for (const iteration of children(debate)) {
        const under = children(iteration);
        expect(under.map((s) => s.name)).toEqual(['invoke_agent Storage debate · proponent', 'invoke_agent Storage debate · opponent', 'apply_guardrail pattern_judgment']);
        // Each member's own model calls are under its own agent span (members no longer share one).
        for (const member of under.slice(0, 2)) expect(children(member).map((s) => attr(s.attributes, 'gen_ai.operation.name'))).toContain('chat');
        const judgment = under[2] as OtlpSpan;
        expect(attr(judgment.attributes, 'gen_ai.operation.name')).toBe('apply_guardrail');
        expect(attr(judgment.attributes, 'steward.judgment.caller')).toBe('llm');
        expect(attr(judgment.attributes, 'steward.judgment.verified')).toBe(true);
        expect(attr(judgment.attributes, 'steward.privacy.data')).toEqual(expect.arrayContaining(['candidate']));
        verdicts.push(attr(judgment.attributes, 'steward.verdict'));
        const evaluation = iteration.events.find((e) => e.name === 'gen_ai.evaluation.result');
        expect(attr(evaluation?.attributes ?? [], 'gen_ai.evaluation.name')).toBe('steward.pattern.judgment');
        expect(attr(evaluation?.attributes ?? [], 'gen_ai.evaluation.score.label')).toBe(verdicts.at(-1));
      }
      expect(verdicts).toEqual(['rejected', 'approved']);
      const rejected = children(debate)[0]?.events.find((e) => e.name === 'gen_ai.evaluation.result');
      expect(attr(rejected?.attributes ?? [], 'gen_ai.evaluation.explanation')).toBe('The proponent has not answered the native-module cost the opponent raised.');

      // Decision boundary + SCS (seeds 000, 001): the agent node's run, its teacher's review, its SCS gates.
      const agent = children(one('node summarise'))[0] as OtlpSpan;
      expect(agent.name).toBe('invoke_agent summarise');
      expect(children(agent).map((s) => s.name)).toEqual(['chat replay', 'apply_guardrail teacher_review']);
      expect(agent.events.map((e) => e.name)).toEqual(expect.arrayContaining(['steward.scs.committee.plan_drafted', 'steward.scs.student.plan_approved', 'steward.scs.student.finish_allowed']));

      // Workflow supervisor (seed 004): each escalation is the supervisor's invoke_agent span under its node, its model calls under it.
      const failedItem = one('node check[each=1]');
      const [gaveUp] = children(failedItem);
      expect(gaveUp?.name).toBe('invoke_agent Workflow supervisor');
      expect(attr(gaveUp?.attributes ?? [], 'gen_ai.agent.name')).toBe('Workflow supervisor');
      expect(attr(gaveUp?.attributes ?? [], 'gen_ai.provider.name')).toBe('steward.replay');
      expect(attr(gaveUp?.attributes ?? [], 'steward.escalation.allowed_actions')).toEqual(['retry', 'skip', 'fail']);
      expect(attr(gaveUp?.attributes ?? [], 'steward.supervisor.action')).toBe('fail');
      expect(attr(gaveUp?.attributes ?? [], 'steward.supervisor.decided_by')).toBe('kernel');
      expect(attr(gaveUp?.attributes ?? [], 'error.type')).toBe('malformed_verdict');
      expect(gaveUp?.status).toMatchObject({ code: STATUS_ERROR, message: expect.stringContaining('no usable verdict in 4 answers (3 repair rounds)') });
      // The first answer and its 3 repairs: four model calls, each a chat span with the privacy log's record.
      const calls = children(gaveUp as OtlpSpan);
      expect(calls).toHaveLength(4);
      for (const call of calls) {
        expect(call.kind).toBe(3); // SPAN_KIND_CLIENT
        expect(attr(call.attributes, 'gen_ai.operation.name')).toBe('chat');
        expect(attr(call.attributes, 'steward.role')).toBe('supervisor');
      }
      expect(attr(calls[3]?.attributes ?? [], 'steward.privacy.data')).toEqual(expect.arrayContaining(['escalation', 'feedback']));
      const answer = gaveUp?.events.find((e) => e.name === 'steward.supervisor.malformed_answer');
      expect(attr(answer?.attributes ?? [], 'steward.supervisor.repairs')).toBe(3);
      expect(attr(answer?.attributes ?? [], 'steward.supervisor.answer')).toMatch(/^I would skip it; by the way api_key=•+$/);

      const [skipped] = children(one('node check[each=2]'));
      expect(attr(skipped?.attributes ?? [], 'steward.supervisor.action')).toBe('skip');
      expect(attr(skipped?.attributes ?? [], 'steward.supervisor.reason')).toBe(SUPERVISOR_SKIP_REASON);
      expect(skipped?.status.code).toBe(STATUS_OK);
      // One unusable answer, repaired: two calls.
      expect(children(skipped as OtlpSpan)).toHaveLength(2);

      // Masked as the trace is: the credential the supervisor wrote is in no span and never reached the collector.
      expect(written).not.toContain(ANSWER_SECRET);
      expect(readFileSync(trace, 'utf8')).not.toContain(ANSWER_SECRET);
    } finally {
      local.server.close();
    }
  }, 120_000);
});
