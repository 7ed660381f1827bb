import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../contracts/events';
import { compareDecisions, DECISION_FIELDS, runDifferences, type DecisionField } from './compare-runs';
import { roundDecisions, type RoundDecisions } from './round-decisions';

const decisions: fc.Arbitrary<RoundDecisions> = fc.record(
  {
    round: fc.nat({ max: 30 }),
    proposer: fc.constantFrom('student' as const, 'teacher' as const),
    tool: fc.constantFrom('read_text_file', 'write_file', 'complete', 'ask_user'),
    arguments: fc.json(),
    verdict: fc.constantFrom('accept', 'replace', 'block', 'escalate'),
    authorization: fc.constantFrom('authorized', 'protected_unreviewed', 'confirmation_pending'),
    executed: fc.boolean(),
    outcome: fc.constantFrom('executed' as const, 'delivered' as const, 'blocked' as const, 'escalated' as const, 'failed' as const),
  },
  { requiredKeys: ['round', 'executed'] },
);
/** A run's rounds: one entry per round number. */
const run = fc.uniqueArray(decisions, { selector: (d) => d.round, maxLength: 12 });

const other: Record<DecisionField, (d: RoundDecisions) => RoundDecisions> = {
  proposer: (d) => ({ ...d, proposer: d.proposer === 'teacher' ? 'student' : 'teacher' }),
  tool: (d) => ({ ...d, tool: `${d.tool ?? ''}-other` }),
  arguments: (d) => ({ ...d, arguments: `${d.arguments ?? ''} ` }),
  verdict: (d) => ({ ...d, verdict: d.verdict === 'block' ? 'accept' : 'block' }),
  authorization: (d) => ({ ...d, authorization: d.authorization === 'authorized' ? 'protected_unreviewed' : 'authorized' }),
  executed: (d) => ({ ...d, executed: !d.executed }),
  outcome: (d) => ({ ...d, outcome: d.outcome === 'failed' ? 'executed' : 'failed' }),
};

describe('comparing two runs round by round', () => {
  it('a run compared with itself has no differences', () => {
    fc.assert(
      fc.property(run, (rounds) => {
        expect(compareDecisions(rounds, structuredClone(rounds)).every((c) => c.kind === 'same')).toBe(true);
      }),
    );
  });

  it('a change to one field of one round is reported as exactly that field of that round', () => {
    fc.assert(
      fc.property(run.filter((r) => r.length > 0), fc.nat(), fc.constantFrom(...DECISION_FIELDS), (rounds, pick, field) => {
        const index = pick % rounds.length;
        const changed = rounds.map((d, i) => (i === index ? other[field](d) : d));
        const differing = compareDecisions(rounds, changed).filter((c) => c.kind !== 'same');
        expect(differing).toEqual([{ kind: 'differs', round: rounds[index]?.round, fields: [field], recorded: rounds[index], replayed: changed[index] }]);
      }),
    );
  });

  it('a round only one run reached is reported as only in that run, and swapping the runs swaps the sides', () => {
    fc.assert(
      fc.property(run, run, (a, b) => {
        const ab = compareDecisions(a, b);
        const ba = compareDecisions(b, a);
        const swap = { only_recorded: 'only_replayed', only_replayed: 'only_recorded', same: 'same', differs: 'differs' } as const;
        expect(ba.map((c) => [c.round, c.kind])).toEqual(ab.map((c) => [c.round, swap[c.kind]]));
        const onlyA = new Set(a.map((d) => d.round).filter((r) => !b.some((d) => d.round === r)));
        expect(new Set(ab.filter((c) => c.kind === 'only_recorded').map((c) => c.round))).toEqual(onlyA);
        // Every round of either run is there once, in order.
        const all = [...new Set([...a, ...b].map((d) => d.round))].sort((x, y) => x - y);
        expect(ab.map((c) => c.round)).toEqual(all);
      }),
    );
  });
});

const base = { run_id: 'run-aaaaaaaa', ts: '2026-12-01T00:00:00.000Z' };
let seq = 0;
const ev = (e: Record<string, unknown>): RunEvent => {
  seq += 1;
  return { ...base, id: `${base.run_id}:${seq}`, seq, ...e } as RunEvent;
};

describe("a round's decisions from its events", () => {
  it('are read from the selected decision, the verdict acted on, the authorization, the execution and the outcome; run ids and keys are left out', () => {
    const events = [
      ev({ type: 'round.started', round: 0, proposer: 'student' }),
      ev({ type: 'verdict.received', round: 0, attempt: { attempt: 1, problem: 'malformed', usable: false } }),
      ev({ type: 'verdict.received', round: 0, attempt: { attempt: 2, verdict: { verdict: 'accept', reason_codes: [], explanation: 'ok' }, usable: true } }),
      ev({ type: 'decision.selected', round: 0, source: 'student', decision: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { b: 1, a: 2 } } }),
      ev({ type: 'decision.authorized', round: 0, authorization: { ok: true, idempotency_key: 'key-of-this-run' } }),
      ev({ type: 'tool.executed', round: 0, execution: { server: 'fs', tool: 'write_file', arguments: {}, idempotency_key: 'key-of-this-run', ok: true, is_error: false, content: '', duration_ms: 1 } }),
      ev({ type: 'round.started', round: 1, proposer: 'student' }),
      ev({ type: 'decision.selected', round: 1, source: 'student', decision: { decision_type: 'complete', output: 'done', confidence: 0.9 } }),
      ev({ type: 'decision.authorized', round: 1, authorization: { ok: false, reason: 'finish_rejected', message: 'no' } }),
    ];
    expect(roundDecisions(events)).toEqual([
      { round: 0, proposer: 'student', tool: 'write_file', arguments: '{"a":2,"b":1}', verdict: 'accept', authorization: 'authorized', executed: true },
      { round: 1, proposer: 'student', tool: 'complete', arguments: '{"output":"done"}', authorization: 'finish_rejected', executed: false },
    ]);
    // The same events under another run id (a replay) compare the same.
    const replayed = events.map((e) => ({ ...e, run_id: 'run-bbbbbbbb', id: e.id.replace('aaaa', 'bbbb') }));
    expect(runDifferences(events, replayed)).toEqual([]);
  });
});
