/**
 * Why a run's signal aborts when the host stops, not because a person cancelled: a workflow run
 * with a node waiting for a person keeps that wait on disk and parks, as it would after a crash,
 * rather than ending cancelled and losing the question the person was shown.
 */
export class HostStopping extends Error {
  constructor() {
    super('the host is stopping');
    this.name = 'HostStopping';
  }
}

export function stoppedByHost(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof HostStopping;
}

/**
 * The reason a workflow run parked by a host stop gives what it stops: a workflow node's child run
 * then halts without an end (the next start closes it as interrupted), and the parent starts it
 * again, as a new run, on resume.
 */
export class ParkedByHostStop extends HostStopping {
  constructor() {
    super();
    this.name = 'ParkedByHostStop';
  }
}

export function parkedAbove(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof ParkedByHostStop;
}
