/**
 * The Runtime group's decision timeout (LimitsSpec.decision_timeout_ms): one decision (a proposal
 * with its model's retries, or one review) that takes longer is stopped, its model call aborted, and
 * the round fails with a sentence a person reads, never a bare "aborted".
 */
export class DecisionTimeoutError extends Error {
  override readonly name = 'DecisionTimeoutError';
}

/** "2 s", "1.5 s", "3 min" — how the timeout reads in a message. */
export function durationWords(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

export function decisionTimeoutMessage(ms: number, what: 'decision' | 'review'): string {
  return `it gave no ${what === 'decision' ? 'decision' : 'verdict'} within ${durationWords(ms)} (the decision timeout under Runtime), so it was stopped; raise the timeout or use a faster model`;
}

/**
 * Runs `call` with a signal that also aborts when `ms` pass; then rejects with the timeout's words
 * even if the call ignores its signal. Without `ms`, the call runs as it is.
 */
export async function withinDecisionTimeout<T>(ms: number | undefined, what: 'decision' | 'review', signal: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (ms === undefined) return call(signal);
  const timer = new AbortController();
  const error = new DecisionTimeoutError(decisionTimeoutMessage(ms, what));
  let handle: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    handle = setTimeout(() => {
      timer.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([call(AbortSignal.any([signal, timer.signal])), expired]);
  } catch (err) {
    throw timer.signal.aborted ? error : err;
  } finally {
    clearTimeout(handle);
    // The race's loser must not surface as an unhandled rejection.
    expired.catch(() => undefined);
  }
}
