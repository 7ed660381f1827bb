import { describe, expect, it } from 'vitest';
import type { ModelReply } from '@shared/contracts/model';
import { describeModelUsage, modelUsageByInvocation, modelUsageTotals } from './model-usage';
import { eventLog, finishRun, readExecutedRound, startRun } from '../testing/event-fixtures';

const reply = (extra: Partial<ModelReply>): ModelReply => ({ text: '{"decision_type":"complete","output":"ok"}', tool_calls: [], model: 'ollama:qwen3:4b', ...extra });
const parsed = { raw: { decision_type: 'complete', output: 'ok' }, tool_call_count: 0 };

describe('what a run’s model calls cost, in total', () => {
  it('adds up every proposal, repair, verdict and SCS call — each once, never again from the round records', () => {
    const log = eventLog('usage-totals-0001');
    startRun(log, { supervision: true });
    log.add({ type: 'round.started', round: 0, proposer: 'student' });
    log.add({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply({ usage: { input_tokens: 400, output_tokens: 30 }, latency_ms: 1200 }), parsed });
    log.add({ type: 'candidate.proposed', round: 0, attempt: 1, reply: reply({ usage: { input_tokens: 450, output_tokens: 20 }, latency_ms: 800 }), parsed });
    log.add({ type: 'verdict.received', round: 0, attempt: { attempt: 1, reply: reply({ model: 'h:4000:judge', usage: { input_tokens: 900, output_tokens: 60 }, latency_ms: 2500 }), usable: true } });
    log.add({ type: 'scs.transcript', role: 'monitor', phase: 1, messages: [], reply: '{}', usage: { input_tokens: 100 }, latency_ms: 500 });
    // A finished round repeats its replies in its record: not counted twice.
    readExecutedRound(log, 1);
    finishRun(log, 'completed', 2);

    const totals = modelUsageTotals(log.events);
    expect(totals).toMatchObject({ input_tokens: 1850, output_tokens: 110, latency_ms: 5000, counted_calls: 4 });
    // The fixture's round 1 is a replay's (no usage, no latency): a call, not counted.
    expect(totals.calls).toBeGreaterThan(4);
    expect(describeModelUsage(totals)).toBe(`1,850 in / 110 out tokens (4 of ${totals.calls} calls counted) · 5.0 s model time`);
  });

  it('a run with no counted call says only its model time; a run with no call, or only calls from before they were measured, says nothing', () => {
    const log = eventLog('usage-totals-0002');
    startRun(log);
    log.add({ type: 'round.started', round: 0, proposer: 'student' });
    log.add({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply({ model: 'replay', latency_ms: 300 }), parsed });
    expect(describeModelUsage(modelUsageTotals(log.events))).toBe('300 ms model time');
    expect(describeModelUsage(modelUsageTotals([]))).toBeUndefined();
    const older = eventLog('usage-totals-0004');
    startRun(older);
    older.add({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply({}), parsed });
    expect(modelUsageTotals(older.events).calls).toBe(1);
    expect(describeModelUsage(modelUsageTotals(older.events))).toBeUndefined();
  });

  it('every call counted: no "of N calls" note; and per workflow node invocation', () => {
    const log = eventLog('usage-totals-0003');
    startRun(log);
    log.add({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply({ usage: { input_tokens: 10, output_tokens: 2 }, latency_ms: 65_000 }), parsed, invocation_id: 'summarise' });
    log.add({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply({ usage: { input_tokens: 7, output_tokens: 1 }, latency_ms: 40 }), parsed, invocation_id: 'translate' });
    expect(describeModelUsage(modelUsageTotals(log.events))).toBe('17 in / 3 out tokens · 1 min 5 s model time');
    const byInvocation = modelUsageByInvocation(log.events);
    expect(byInvocation.get('translate')).toEqual({ calls: 1, counted_calls: 1, timed_calls: 1, input_tokens: 7, output_tokens: 1, latency_ms: 40 });
    expect(byInvocation.get('summarise')).toMatchObject({ calls: 1, input_tokens: 10 });
  });
});
