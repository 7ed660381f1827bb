import { describe, expect, it } from 'vitest';
import { createCallSignals } from './call-signals';

/** Issue 26: a tool call's signal aborts as `AbortSignal.any([step, run])` would, without a dependant of the run's signal a call. */
describe('a run\'s call signals', () => {
  it('abort with the run, with its reason, every call in flight and no call already done', () => {
    const run = new AbortController();
    const signals = createCallSignals(run.signal);
    const first = signals(new AbortController().signal);
    const second = signals(new AbortController().signal);
    const over = signals(new AbortController().signal);
    over.done();
    run.abort(new Error('the run was cancelled'));
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.reason).toEqual(new Error('the run was cancelled'));
    expect(over.signal.aborted).toBe(false);
    // A call made after the run was cancelled is aborted from the start.
    const late = signals(new AbortController().signal);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(run.signal.reason);
  });

  it('abort with their own step, with its reason, and leave the run and the other calls alone', () => {
    const run = new AbortController();
    const signals = createCallSignals(run.signal);
    const step = new AbortController();
    const call = signals(step.signal);
    const other = signals(new AbortController().signal);
    step.abort('stopped');
    expect(call.signal.reason).toBe('stopped');
    expect(other.signal.aborted).toBe(false);
    expect(run.signal.aborted).toBe(false);
    // Aborted first by its step, a later cancellation of the run does not change its reason.
    run.abort('cancelled');
    expect(call.signal.reason).toBe('stopped');
    expect(other.signal.reason).toBe('cancelled');
  });

  it('without a run signal, a call has its step\'s signal itself', () => {
    const step = new AbortController();
    expect(createCallSignals(undefined)(step.signal).signal).toBe(step.signal);
  });
});
