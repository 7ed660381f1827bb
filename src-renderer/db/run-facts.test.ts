import { describe, expect, it } from 'vitest';
import type { Intervention } from '@shared/contracts/intervention';
import { deriveRunFacts, pendingInterventions } from './run-facts';
import { eventLog, finishRun, readExecutedRound, startRun } from '../testing/event-fixtures';

const request = (runId: string, id: string, round: number): Intervention => ({
  id,
  run_id: runId,
  round,
  kind: 'escalation',
  decision: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'a.md', content: 'x' } },
  reason: 'Unclear whether overwriting is wanted.',
  reason_codes: ['unsafe_effect'],
  options: ['approve', 'reject', 'takeover', 'stop'],
  requested_at: '2026-01-05T09:00:00.000Z',
});

describe('open questions of a run', () => {
  it('a request is open until its answer is recorded, and nothing is open after the run finished', () => {
    const log = eventLog('run-facts-0001');
    startRun(log);
    readExecutedRound(log, 0);
    log.add({ type: 'intervention.requested', round: 1, intervention: request(log.runId, 'intervention-a', 1) });
    expect(deriveRunFacts(log.events).pending.map((i) => i.id)).toEqual(['intervention-a']);

    log.add({ type: 'intervention.answered', round: 1, intervention_id: 'intervention-a', answer: { action: 'approve' } });
    log.add({ type: 'handover', round: 2, to: 'teacher', reason: 'escalation', rounds: 3 });
    const facts = deriveRunFacts(log.events);
    expect(facts.pending).toEqual([]);
    expect(facts.handovers.map((h) => [h.to, h.rounds])).toEqual([['teacher', 3]]);

    // After a restart the host still reports a request the page has no answer for.
    expect(pendingInterventions(facts, [request(log.runId, 'intervention-b', 3), request('other-run-0001', 'intervention-c', 0), request(log.runId, 'intervention-a', 1)], log.runId).map((i) => i.id)).toEqual([
      'intervention-b',
    ]);

    finishRun(log, 'completed', 3);
    expect(pendingInterventions(deriveRunFacts(log.events), [request(log.runId, 'intervention-b', 3)], log.runId)).toEqual([]);
  });
});
