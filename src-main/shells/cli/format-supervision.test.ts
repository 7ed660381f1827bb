import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { escalation, VERDICTS } from '@shared/supervisor/testing/fixtures';
import { formatEscalated, formatSummary, formatVerdict, summarizeSupervision } from './format-supervision';

const escalated = (over: Parameters<typeof escalation>[0] = {}): RunEventOf<'supervisor.escalated'> => ({
  type: 'supervisor.escalated',
  id: 'e1',
  run_id: 'run-1',
  seq: 3,
  ts: '2026-12-01T10:00:00.000Z',
  invocation_id: 'extract[each=4]',
  escalation: escalation({ retry_safe: false, ...over }),
});

describe('the ⛨ escalation line', () => {
  it('says what the failed attempt spent on model calls, measured or unpriced, and nothing about cost when it cost nothing', () => {
    expect(formatEscalated(escalated({ spent_usd: 0.0042 }))).toMatch(/^⛨ extract · item 5 escalated: invalid_output — the model returned invalid JSON · spent \$0\.0042 \(allowed: skip, substitute, fail\)$/);
    expect(formatEscalated(escalated({ unpriced_models: ['api.example.com:gpt-x'] }))).toContain(' · spent an unknown amount (api.example.com:gpt-x: unpriced) (allowed:');
    expect(formatEscalated(escalated())).not.toContain('spent');
  });
});

const envelope = (seq: number) => ({ id: `e${seq}`, run_id: 'run-1', seq, ts: '2026-12-01T10:00:00.000Z', invocation_id: 'extract[each=4]' });

describe('the ⛨ verdict and summary lines, in the app\'s words', () => {
  const x = escalation();
  const asked: RunEvent = {
    ...envelope(4),
    type: 'intervention.requested',
    round: 0,
    intervention: { id: 'run-1:extract[each=4]:sv', run_id: 'run-1', round: 0, kind: 'supervisor_escalation', reason: 'a node failed', reason_codes: [], options: ['verdict'], requested_at: '2026-12-01T10:00:00.000Z', supervision: { escalation: x, failure: { code: 'invalid_output', message: 'bad' }, attempt: 2, refused: [] } },
  };
  const verdict: RunEventOf<'supervisor.verdict'> = { ...envelope(5), type: 'supervisor.verdict', node: 'extract', verdict: { escalation_id: x.id, verdict: VERDICTS.skip, decided_by: 'agent', turns: 1, cost_usd: 0 }, next: 'skip' };

  it('names the item as the app does ("extract · item 5") and who decided in its words', () => {
    expect(formatVerdict(verdict)).toBe('⛨ extract · item 5 → skip (decided by the supervisor): a poisoned item');
  });

  it('while a person\'s verdict is awaited the summary says so, never "no intervention"; once given, it counts the skip', () => {
    const waiting = summarizeSupervision([escalated(), asked]);
    expect(formatSummary(waiting)).toBe('⛨ supervised: 1 waiting for your verdict (extract · item 5) · 0 decision(s) · $0.0000');
    const decided = summarizeSupervision([escalated(), asked, verdict]);
    expect(decided.waiting).toEqual([]);
    expect(formatSummary(decided)).toBe('⛨ supervised: 1 skipped (extract · item 5) · 1 decision(s) · $0.0000');
    expect(formatSummary(summarizeSupervision([]))).toBe('⛨ supervised: no intervention · 0 decision(s) · $0.0000');
  });
});
