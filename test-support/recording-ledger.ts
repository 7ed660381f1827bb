import { createMemoryLedger, type IdempotencyLedger, type LedgerOutcome } from '../src-main/mcp/idempotency-ledger';

/** A real in-memory idempotency ledger that also lists every outcome it was told, kept results included. */
export function recordingLedger(): { ledger: IdempotencyLedger; outcomes: LedgerOutcome[] } {
  const inner = createMemoryLedger();
  const outcomes: LedgerOutcome[] = [];
  const ledger: IdempotencyLedger = {
    state: (key) => inner.state(key),
    begin: (key, meta) => inner.begin(key, meta),
    finish: (key, outcome) => {
      outcomes.push(outcome);
      inner.finish(key, outcome);
    },
    keptResult: (key) => inner.keptResult?.(key),
  };
  return { ledger, outcomes };
}
