/**
 * The signals of a run's tool calls: each aborts when its round's step is stopped or when the run
 * is cancelled, with the reason of whichever came first (what `AbortSignal.any([step, run])` gives).
 * The run's signal gets one listener for the run, not one dependant a call: `AbortSignal.any` made
 * every call's signal a dependant of the run's long-lived one until the garbage collector dropped
 * it, about ten times a plain signal's cost a round (issue 26).
 */
export interface CallSignal {
  signal: AbortSignal;
  /** The call is over: its signal is no longer aborted with the run's. */
  done(): void;
}

const nothingToRelease = () => undefined;

export function createCallSignals(run: AbortSignal | undefined): (step: AbortSignal) => CallSignal {
  const inFlight = new Set<AbortController>();
  let watching = false;
  return (step) => {
    if (!run) return { signal: step, done: nothingToRelease };
    // Either already aborted: the signal is born aborted, with that reason.
    if (step.aborted || run.aborted) return { signal: AbortSignal.any([step, run]), done: nothingToRelease };
    if (!watching) {
      watching = true;
      run.addEventListener(
        'abort',
        () => {
          for (const call of [...inFlight]) call.abort(run.reason);
        },
        { once: true },
      );
    }
    const call = new AbortController();
    const stepped = () => call.abort(step.reason);
    step.addEventListener('abort', stepped, { once: true });
    inFlight.add(call);
    return {
      signal: call.signal,
      done: () => {
        inFlight.delete(call);
        step.removeEventListener('abort', stepped);
      },
    };
  };
}
