import { afterEach, describe, expect, it } from 'vitest';
import type { HostedWorkflowInput } from '@shared/contracts/hosted-workflow';
import type { ScriptEntry } from '@shared/contracts/script';
import { SEQUENTIAL_THINKING_PACKAGE } from '@shared/policy/shipped-effects';
import { accept, thirdPartyHost } from '../../../test-support/third-party-host';

/**
 * The sequential-thinking MCP server (@modelcontextprotocol/server-sequential-thinking 2026.8.31),
 * registered by package: listed, called under full supervision (phase 2: the teacher reviews every
 * decision, and may replace one), and given thoughts it must refuse. Real host and server; student
 * and teacher are scripted (the model boundary).
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function hostWithThinking() {
  const h = await thirdPartyHost(cleanups);
  await h.page.ok('servers.register', { server: { id: 'thinking', label: 'Sequential thinking', package: SEQUENTIAL_THINKING_PACKAGE } });
  return h;
}

const think = (args: Record<string, unknown>): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'sequentialthinking', arguments: args } });
const thought = (n: number, of: number, text: string) => ({ thought: text, thoughtNumber: n, totalThoughts: of, nextThoughtNeeded: n < of });
const complete = (output: string): ScriptEntry => ({ json: { decision_type: 'complete', output } });

function planner(student: ScriptEntry[], teacher: ScriptEntry[], phase: 2 | 3 = 2): HostedWorkflowInput {
  return {
    format: 'steward/v1',
    kind: 'agent',
    id: 'plan-a-move',
    name: 'Plan a move',
    instructions: 'Think step by step with the sequential thinking tool, then answer.',
    task: 'In what order should we pack the kitchen?',
    servers: [{ id: 'think', server: 'thinking' }],
    supervision: { phase },
    script: { student, teacher },
  };
}

/** The server's answer to one thought (JSON text). */
const answer = (content: string | undefined) => JSON.parse(content ?? '{}') as { thoughtNumber: number; totalThoughts: number; nextThoughtNeeded: boolean; thoughtHistoryLength: number };

describe('the sequential-thinking MCP server', () => {
  it('is listed as a read (shipped), its annotations shown as hints', async () => {
    const h = await hostWithThinking();
    const tools = await h.inspect('thinking');
    expect(tools).toEqual([
      expect.objectContaining({
        name: 'sequentialthinking',
        effect: expect.objectContaining({ effect: 'read' }),
        effect_source: 'shipped',
        hints: expect.objectContaining({ readOnlyHint: true, destructiveHint: false }),
      }),
    ]);
  });

  it('a fully supervised run: each thought reviewed before it is sent, a replacement from the teacher runs instead of the student\'s', async () => {
    const h = await hostWithThinking();
    const replaced = thought(2, 2, 'Then the pots, and the fridge last: it must be emptied and defrosted.');
    const run = await h.run(
      planner(
        [think(thought(1, 2, 'Pack what we rarely use first: the good china.')), think(thought(2, 2, 'Then everything else.')), complete('China first, then pots, the fridge last.')],
        [
          accept('A first thought; nothing leaves the server.'),
          { json: { verdict: 'replace', reason_codes: ['off_task'], explanation: 'Say what comes last, and why.', replacement: { decision_type: 'tool_call', tool_name: 'sequentialthinking', arguments: replaced } } },
          accept('The plan answers the task.'),
        ],
      ),
    );
    expect(run.finished).toMatchObject({ status: 'completed', output: 'China first, then pots, the fridge last.' });
    const [first, second] = run.executions;
    expect(first?.arguments).toEqual(thought(1, 2, 'Pack what we rarely use first: the good china.'));
    expect(answer(first?.content)).toMatchObject({ thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true, thoughtHistoryLength: 1 });
    // The teacher's replacement ran, not the student's thought; the server kept both of its thoughts.
    expect(second?.arguments).toEqual(replaced);
    expect(answer(second?.content)).toMatchObject({ thoughtNumber: 2, nextThoughtNeeded: false, thoughtHistoryLength: 2 });
    expect(run.events.filter((e) => e.type === 'decision.selected').map((e) => (e.type === 'decision.selected' ? e.source : ''))).toEqual(['student', 'teacher', 'student']);
    // Every decision went to the teacher (phase 2).
    expect(run.events.filter((e) => e.type === 'verdict.received')).toHaveLength(3);
  });

  it('invalid thoughts: one breaking the input schema is refused before the server sees it, one the server refuses comes back in its words', async () => {
    const h = await hostWithThinking();
    const run = await h.run(
      planner(
        [
          // thoughtNumber must be at least 1: Steward's validation refuses it, the student repairs it.
          think({ ...thought(1, 2, 'Start with the china.'), thoughtNumber: 0 }),
          think(thought(1, 2, 'Start with the china.')),
          // The input schema allows any string here; the server accepts only "true"/"false".
          think({ ...thought(2, 2, 'Then the pots.'), nextThoughtNeeded: 'maybe' }),
          think(thought(2, 2, 'Then the pots.')),
          complete('China, then pots.'),
        ],
        [],
        3,
      ),
    );
    expect(run.finished).toMatchObject({ status: 'completed', output: 'China, then pots.' });
    const refusedByValidation = run.events.flatMap((e) => (e.type === 'candidate.validated' && !e.validation.ok ? e.validation.issues : []));
    expect(JSON.stringify(refusedByValidation)).toContain('thoughtNumber');
    const [first, maybe, second] = run.executions;
    expect(run.executions).toHaveLength(3);
    expect(answer(first?.content)).toMatchObject({ thoughtNumber: 1, thoughtHistoryLength: 1 });
    expect(maybe).toMatchObject({ ok: true, is_error: true, content: expect.stringContaining('Expected boolean or "true"/"false" string, received "maybe" at nextThoughtNeeded') });
    // The refused thought was not kept: the next one is the server's second.
    expect(answer(second?.content)).toMatchObject({ thoughtNumber: 2, thoughtHistoryLength: 2 });
  });
});
