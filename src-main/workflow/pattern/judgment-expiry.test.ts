import { describe, expect, it } from 'vitest';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { expireJudgments } from './judgment-expiry';

const judgment = (id: string, expires_at?: string): Intervention => ({
  id,
  run_id: `run-${id}`,
  round: 0,
  kind: 'pattern_judgment',
  reason: 'Judge it',
  reason_codes: [],
  options: ['approve', 'reject', 'escalate'],
  requested_at: '2026-12-01T10:00:00.000Z',
  judgment: { judgment_id: `${id}:j0.1.0.1`, node: 'n', pattern_type: 'SUPERVISOR', step: 0, steps: 1, iteration: 1, max_iterations: 2, output: 'x', outputs: [{ id: 'o1', member_id: 'worker', text: 'x' }], min_citations: 1, must_cite: [], ...(expires_at ? { expires_at, fallback: { kind: 'escalate' } } : {}) },
});

describe('the host’s timer for pattern judgments', () => {
  it('answers `expired` to each judgment past its expiry, and to nothing else', () => {
    const answered: Array<[string, string, HumanAnswer]> = [];
    const confirmation: Intervention = { ...judgment('tool'), kind: 'confirmation', judgment: undefined, options: ['approve', 'reject'] };
    const expired = expireJudgments({
      pending: () => [judgment('due', '2026-12-01T10:05:00.000Z'), judgment('later', '2026-12-01T11:00:00.000Z'), judgment('never'), confirmation],
      answer: (runId, id, answer) => (answered.push([runId, id, answer]), true),
      now: () => Date.parse('2026-12-01T10:05:00.000Z'),
    });
    expect(expired).toEqual(['due']);
    expect(answered).toEqual([['run-due', 'due', { action: 'expired' }]]);
  });

  it('a judgment that cannot be handed over is logged and the sweep goes on', () => {
    const lines: string[] = [];
    const expired = expireJudgments({
      pending: () => [judgment('a', '2026-12-01T10:01:00.000Z'), judgment('b', '2026-12-01T10:01:00.000Z')],
      answer: (_run, id) => {
        if (id === 'a') throw new Error('the run is gone');
        return true;
      },
      now: () => Date.parse('2026-12-01T10:02:00.000Z'),
      log: (l) => lines.push(l),
    });
    expect(expired).toEqual(['b']);
    expect(lines).toEqual(['the judgment a expired but could not be handed to its fallback: the run is gone']);
  });
});
