import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { OUTPUT_TOKEN_BOUNDS, PROPOSAL_OUTPUT_TOKENS } from '@shared/contracts/output-bound';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider, ModelRequest } from '../providers/provider';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';

/**
 * The Runtime group (issue 29): the round limit, the decision timeout and the model reply bound
 * are the agent's own settings, honoured by the loop and recorded on the run's start. The models
 * are TEST DOUBLES at the model boundary: providers that record each request and answer from a
 * fixed decision (or never answer, to time out).
 */

type Answer = { decision: unknown } | { hang: true };

function model(label: string, answer: () => Answer, seen: ModelRequest[]): ModelProvider {
  return {
    label,
    complete: (request) => {
      seen.push(request);
      const a = answer();
      if ('hang' in a) {
        // Never answers by itself: only its signal ends it, as a real stalled server's call would be.
        return new Promise((_, reject) => request.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      }
      return Promise.resolve({ text: JSON.stringify(a.decision), tool_calls: [], model: label });
    },
  };
}

async function runWith(limits: AgentSpecInput['limits'], student: () => Answer, teacher: () => Answer = () => ({ decision: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }), supervision: AgentSpecInput['supervision'] = { phase: 4 }) {
  const ws = tempNotesWorkspace();
  try {
    const spec = AgentSpec.parse({ format: 'steward/v1', kind: 'agent', id: 'limits', name: 'Limits', instructions: 'x', task: 'y', limits, supervision });
    const events: RunEvent[] = [];
    const seen = { student: [] as ModelRequest[], teacher: [] as ModelRequest[] };
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      providers: { student: model('student-double', student, seen.student), teacher: model('teacher-double', teacher, seen.teacher) },
      retry: { max_retries: 0 },
    });
    return { result, events, seen };
  } finally {
    ws.cleanup();
  }
}

const presenting = (): Answer => ({ decision: { decision_type: 'present_result', content: 'Still working.' } });
const started = (events: RunEvent[]) => events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');

describe('the Runtime group’s limits in a run', () => {
  it('a changed round limit limits the rounds, and the start records it', async () => {
    for (const max_rounds of [2, 5]) {
      const { result, events } = await runWith({ max_rounds }, presenting);
      expect(result.status).toBe('max_rounds');
      expect(result.rounds).toHaveLength(max_rounds);
      expect(result.message).toBe(`stopped after ${max_rounds} rounds without completing`);
      expect(started(events)?.limits).toMatchObject({ max_rounds });
    }
  });

  it('a decision past the timeout is stopped, and the round fails in words', async () => {
    const { result, events, seen } = await runWith({ max_rounds: 3, max_consecutive_failures: 1, decision_timeout_ms: 1000 }, () => ({ hang: true }));
    // The stalled call itself was stopped (its signal aborted), not left running behind the failed round (no clock is read: CI is slow).
    expect(seen.student).toHaveLength(1);
    expect(seen.student[0]?.signal?.aborted).toBe(true);
    expect(result.status).toBe('failed');
    expect(result.rounds[0]?.outcome).toBe('failed');
    expect(result.rounds[0]?.message).toBe('the student model failed: it gave no decision within 1 s (the decision timeout under Runtime), so it was stopped; raise the timeout or use a faster model');
    expect(result.message).toContain('gave no decision within 1 s');
    expect(started(events)?.limits).toMatchObject({ decision_timeout_ms: 1000 });
  });

  it('a review past the timeout counts as an unusable verdict, never as an accept', async () => {
    const { result } = await runWith(
      { max_rounds: 1, decision_timeout_ms: 1000 },
      () => ({ decision: { decision_type: 'complete', output: 'done' } }),
      () => ({ hang: true }),
      { phase: 2, max_verdict_attempts: 1 },
    );
    expect(result.status).not.toBe('completed');
    expect(JSON.stringify(result.rounds[0])).toContain('gave no verdict within 1 s');
  });

  it('the reply bound is sent with every proposal and review; without it Steward’s own bounds are', async () => {
    const complete = (): Answer => ({ decision: { decision_type: 'complete', output: 'done' } });
    const bounded = await runWith({ max_output_tokens: 1024 }, complete, undefined, { phase: 2 });
    expect(bounded.result.status).toBe('completed');
    expect(bounded.seen.student.map((r) => r.max_output_tokens)).toEqual([1024]);
    expect(bounded.seen.teacher.map((r) => r.max_output_tokens)).toEqual([1024]);
    expect(started(bounded.events)?.limits).toMatchObject({ max_output_tokens: 1024 });

    const unset = await runWith({}, complete, undefined, { phase: 2 });
    expect(unset.seen.student.map((r) => r.max_output_tokens)).toEqual([PROPOSAL_OUTPUT_TOKENS]);
    expect(unset.seen.teacher.map((r) => r.max_output_tokens)).toEqual([OUTPUT_TOKEN_BOUNDS.teacher]);
    expect(started(unset.events)?.limits).toEqual({ max_rounds: 12, max_consecutive_failures: 3 });
  });

  it('out-of-range values are refused in words', () => {
    const parse = (limits: unknown) => AgentSpec.safeParse({ format: 'steward/v1', kind: 'agent', id: 'x', name: 'X', instructions: 'x', task: 'y', limits });
    const messages = (limits: unknown) => {
      const r = parse(limits);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(messages({ max_rounds: 0 })).toEqual(['the round limit is a whole number of rounds from 1 to 200']);
    expect(messages({ max_rounds: 201 })).toEqual(['the round limit is a whole number of rounds from 1 to 200']);
    expect(messages({ max_rounds: 2.5 })).toEqual(['the round limit is a whole number of rounds from 1 to 200']);
    expect(messages({ decision_timeout_ms: 500 })).toEqual(['the decision timeout is from 1 to 600 seconds, in whole milliseconds']);
    expect(messages({ decision_timeout_ms: 600_001 })).toEqual(['the decision timeout is from 1 to 600 seconds, in whole milliseconds']);
    expect(messages({ max_output_tokens: 100 })).toEqual(['the model reply bound is from 256 to 32,768 output tokens']);
    expect(messages({ max_output_tokens: 40_000 })).toEqual(['the model reply bound is from 256 to 32,768 output tokens']);
    expect(parse({ max_rounds: 200, decision_timeout_ms: 1000, max_output_tokens: 256 }).success).toBe(true);
  });
});
