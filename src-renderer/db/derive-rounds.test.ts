import { describe, expect, it } from 'vitest';
import { deriveRounds } from './derive-rounds';
import {
  BAD_WRITE,
  GOOD_WRITE,
  READ_CALL,
  blockedRound,
  escalatedRound,
  eventLog,
  invalidCandidateRound,
  readExecutedRound,
  startRun,
  writeReplacedRound,
} from '../testing/event-fixtures';
import { triageRun } from '../testing/workflow-fixtures';

function logWith(build: (log: ReturnType<typeof eventLog>) => void) {
  const log = eventLog('run-derive-0001');
  startRun(log);
  build(log);
  return log.events;
}

describe('deriveRounds', () => {
  it('rounds of agents nested in a workflow (events with an invocation_id) are not merged into the run\'s rounds', () => {
    const events = logWith((log) => readExecutedRound(log, 0)).map((e) => (e.type === 'run.started' ? e : { ...e, invocation_id: 'classify[files=0]' }));
    expect(deriveRounds(events)).toEqual([]);
  });

  it('an agent node\'s rounds are those of its own invocation, counted from round 0 like an agent run\'s', () => {
    const log = eventLog('run-derive-wf01');
    triageRun(log);
    const second = deriveRounds(log.events, 'classify[files=1]');
    expect(second.map((r) => [r.round, r.outcome, r.candidateEffect])).toEqual([
      [0, 'executed', 'read'],
      [1, 'executed', 'read'],
    ]);
    expect(deriveRounds(log.events, 'classify[files=0]')).toHaveLength(1);
    expect(deriveRounds(log.events, 'check[files=0]')).toEqual([]);
  });

  it('shows a read executed without review, with the student candidate kept', () => {
    const [round, ...rest] = deriveRounds(logWith((log) => readExecutedRound(log, 0)));
    expect(rest).toHaveLength(0);
    expect(round).toMatchObject({
      round: 0,
      proposer: 'student',
      complete: true,
      stage: 'done',
      outcome: 'executed',
      rejected: false,
      review: { required: false, rule: 'not_required' },
      candidateEffect: 'read',
      selected: { source: 'student', decision: READ_CALL },
      verdicts: [],
    });
    expect(round?.candidate?.parsed?.raw).toEqual(READ_CALL);
    expect(round?.execution?.content).toContain('buy milk');
    expect(round?.snapshot?.tools.map((t) => t.name)).toEqual(['read_text_file', 'write_file']);
  });

  it('strikes the student write the teacher replaced and selects the replacement', () => {
    const [round] = deriveRounds(logWith((log) => writeReplacedRound(log, 0)));
    expect(round).toMatchObject({
      rejected: true,
      rejection: 'replaced',
      outcome: 'executed',
      review: { required: true, rule: 'protected_effect' },
      candidateEffect: 'reversible_write',
      selected: { source: 'teacher', decision: GOOD_WRITE },
      learning: { agreement: false },
    });
    expect(round?.candidate?.parsed?.raw).toEqual(BAD_WRITE);
    expect(round?.verdicts.map((v) => v.verdict?.verdict)).toEqual(['replace']);
    expect(round?.execution?.arguments).toEqual({ path: 'notes/summary.md', content: '- buy milk' });
  });

  it('marks a blocked round rejected, lists the re-asked verdict and selects nothing', () => {
    const [round] = deriveRounds(logWith((log) => blockedRound(log, 0)));
    expect(round).toMatchObject({ rejected: true, rejection: 'blocked', outcome: 'blocked', reason: 'verdict_block' });
    expect(round?.selected).toBeUndefined();
    expect(round?.execution).toBeUndefined();
    expect(round?.verdicts.map((v) => [v.attempt, v.usable, v.verdict?.verdict])).toEqual([
      [1, false, undefined],
      [2, true, 'block'],
    ]);
    expect(round?.verdicts[0]?.problem).toMatch(/malformed/);
  });

  it('marks an invalid candidate rejected with its validation issues', () => {
    const [round] = deriveRounds(logWith((log) => invalidCandidateRound(log, 0)));
    expect(round).toMatchObject({
      rejected: true,
      rejection: 'invalid',
      outcome: 'failed',
      reason: 'invalid_candidate',
      validation: { ok: false, issues: [{ code: 'unparseable' }] },
      review: { required: false, rule: 'invalid_not_reviewed' },
    });
    expect(round?.candidate?.parsed?.parse_error).toBeDefined();
    expect(round?.selected).toBeUndefined();
  });

  it('builds an in-flight round step by step before round.completed arrives', () => {
    const log = eventLog('run-derive-live1');
    startRun(log);
    readExecutedRound(log, 0);
    writeReplacedRound(log, 1);
    const full = log.events;
    // Cut round 1 right after the review decision: the teacher has not answered yet.
    const cut = full.findIndex((e) => e.type === 'review.decided' && e.round === 1) + 1;
    const rounds = deriveRounds(full.slice(0, cut));
    expect(rounds).toHaveLength(2);
    const live = rounds[1];
    expect(live).toMatchObject({ round: 1, complete: false, stage: 'reviewing', rejected: false, verdicts: [] });
    expect(live?.outcome).toBeUndefined();
    expect(live?.candidate?.parsed?.raw).toEqual(BAD_WRITE);

    // The verdict and selection arrive: the replacement is visible before the round completes.
    const selectedAt = full.findIndex((e) => e.type === 'decision.selected' && e.round === 1) + 1;
    const later = deriveRounds(full.slice(0, selectedAt))[1];
    expect(later).toMatchObject({ complete: false, stage: 'authorizing', rejected: true, rejection: 'replaced', selected: { source: 'teacher' } });
  });

  it('gives the same rounds whatever order the events are stored in, and ignores replayed attempts', () => {
    const events = logWith((log) => {
      readExecutedRound(log, 0);
      blockedRound(log, 1);
    });
    const inFlight = events.filter((e) => e.type !== 'round.completed');
    const shuffled = [...inFlight].reverse();
    const duplicated = [...inFlight, ...inFlight.filter((e) => e.type === 'verdict.received')];
    expect(deriveRounds(shuffled)).toEqual(deriveRounds(inFlight));
    expect(deriveRounds(duplicated)[1]?.verdicts).toHaveLength(2);
  });

  it('a candidate a person is still deciding on is pending, not rejected; rejected once they reject it, and not rejected once they approve it', () => {
    const [waiting] = deriveRounds(logWith((log) => escalatedRound(log, 0)));
    expect(waiting).toMatchObject({ outcome: 'escalated', pending: true, rejected: false });
    const [rejected] = deriveRounds(logWith((log) => escalatedRound(log, 0, { action: 'reject', note: 'not yet' })));
    expect(rejected).toMatchObject({ pending: false, rejected: true, rejection: 'escalated' });
    const [approved] = deriveRounds(logWith((log) => escalatedRound(log, 0, { action: 'approve' })));
    expect(approved).toMatchObject({ pending: false, rejected: false });
  });
});
