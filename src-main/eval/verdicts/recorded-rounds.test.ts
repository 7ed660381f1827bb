import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow } from '../../workflow/run-workflow';
import { replayProfile } from './profile-replay';
import { recordedRounds } from './recorded-rounds';

// The profile replay decides each recorded round again with the sampler's own draw: an agent node
// inside a workflow draws for its own agent run (`<workflow run>:<invocation>`), so the replay must
// too, or unchanged rules would "lose" sampled reviews. The models are the script provider (the
// model boundary's double).

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

const RULES = { sample_rate: 0.5, sample_seed: 7 };
const ROUNDS = 16;

function sampledAgentWorkflow(): WorkflowGraph {
  const present = { json: { decision_type: 'present_result', content: 'Still looking.' } };
  const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'sampled',
    name: 'Sampled',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'q', type: 'text' }] },
      {
        id: 'asker',
        kind: 'agent',
        instructions: 'Answer.',
        task: '{{q}}',
        inputs: [{ name: 'q', type: 'text' }],
        limits: { max_rounds: ROUNDS, max_consecutive_failures: 20 },
        supervision: { phase: 3, rules: RULES },
        script: { student: Array.from({ length: ROUNDS }, () => present), teacher: Array.from({ length: ROUNDS }, () => accept) },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'a', type: 'text', required: false }] },
    ],
    edges: [
      { from: { node: 'in', port: 'q' }, to: { node: 'asker', port: 'q' } },
      { from: { node: 'asker', port: 'output' }, to: { node: 'out', port: 'a' } },
    ],
  });
}

describe('recorded rounds of an agent node inside a workflow', () => {
  it('replayed under the rules they ran with, every sampled review is still a review (the draw is the agent run’s own)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-sampled-'));
    dirs.push(dir);
    const events: RunEvent[] = [];
    await runWorkflow({ graph: sampledAgentWorkflow(), specDir: dir, inputs: { q: 'Where is it?' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
    const rounds = recordedRounds(events);
    expect(rounds).toHaveLength(ROUNDS);
    const sampled = rounds.filter((r) => r.record.review?.required === true && r.record.review.rule === 'sampled');
    // With half the rounds drawn, some were reviewed and some were not (the check below means something).
    expect(sampled.length).toBeGreaterThan(0);
    expect(sampled.length).toBeLessThan(ROUNDS);
    const same = replayProfile(rounds, { label: 'the same rules', supervision: { ...rounds[0]!.supervision, rules: { ...rounds[0]!.supervision.rules } } as never });
    expect(same.unreviewed).toEqual([]);
    expect(same.newly_reviewed).toBe(0);
    expect(same.reviewed).toBe(sampled.length);
  });
});
