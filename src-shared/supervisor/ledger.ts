import { z } from 'zod';
import { DecidedBy, SupervisorAction, type Escalation, type SupervisorSettings, type SupervisorVerdict } from './contracts';
import { signatureKey } from './escalation';

/** How many of its earlier decisions the supervisor remembers (the newest), and how long each rationale may be. */
export const MEMORY_LIMIT = 20;
export const MEMORY_REASON_CHARS = 160;
const MEMORY_ID_CHARS = 200;

/**
 * One earlier decision of this run's supervisor, as its prompt recalls it: which invocation, what
 * was applied, who decided (the supervisor, or Steward overruling it), and its one-line rationale.
 */
export const MemoryEntry = z
  .object({
    node: z.string().max(MEMORY_ID_CHARS),
    invocation: z.string().max(MEMORY_ID_CHARS),
    action: SupervisorAction,
    decided_by: DecidedBy,
    reason: z.string().max(MEMORY_REASON_CHARS),
  })
  .strict();
export type MemoryEntry = z.infer<typeof MemoryEntry>;

/**
 * The run's supervision ledger: what every escalation's decision needs from the ones before it
 * (decisions taken, retries per invocation, dollars spent, sticky verdicts, the supervisor's own
 * recent decisions). Plain JSON, kept by the host with the run's checkpoint, so the bounds and the
 * memory hold across a restart too.
 */
export const SupervisorLedger = z
  .object({
    decisions: z.number().int().nonnegative(),
    retries: z.record(z.string(), z.number().int().nonnegative()),
    spent_usd: z.number().nonnegative(),
    /** signatureKey → the verdict that sticks (skip or fail only). */
    sticky: z.record(z.string(), z.enum(['skip', 'fail'])),
    /** The last MEMORY_LIMIT decisions the supervisor was asked for, oldest first (a checkpoint written before it has none). */
    memory: z.array(MemoryEntry).max(MEMORY_LIMIT).default([]),
  })
  .strict();
export type SupervisorLedger = z.infer<typeof SupervisorLedger>;

export const emptyLedger = (): SupervisorLedger => ({ decisions: 0, retries: {}, spent_usd: 0, sticky: {}, memory: [] });

/** A rationale as one line of at most `max` characters (cut with …). */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** What the supervisor remembers of one applied verdict it was asked for. */
export function memoryEntry(e: Pick<Escalation, 'node' | 'invocation_key'>, applied: SupervisorVerdict): MemoryEntry {
  return {
    node: oneLine(e.node, MEMORY_ID_CHARS),
    invocation: oneLine(e.invocation_key, MEMORY_ID_CHARS),
    action: applied.verdict.action,
    decided_by: applied.decided_by,
    reason: oneLine(applied.verdict.reason, MEMORY_REASON_CHARS),
  };
}

export function retriesUsed(ledger: SupervisorLedger, invocationKey: string): number {
  return Object.hasOwn(ledger.retries, invocationKey) ? (ledger.retries[invocationKey] ?? 0) : 0;
}

export function retriesExhausted(ledger: SupervisorLedger, settings: Pick<SupervisorSettings, 'max_retries'>, invocationKey: string): boolean {
  return retriesUsed(ledger, invocationKey) >= settings.max_retries;
}

/** The remembered verdict for this failure, when it may be applied here. */
export function stickyVerdictFor(ledger: SupervisorLedger, e: Escalation): 'skip' | 'fail' | undefined {
  const key = signatureKey(e.node, e.failure_signature);
  if (key === undefined || !Object.hasOwn(ledger.sticky, key)) return undefined;
  const verdict = ledger.sticky[key];
  return verdict !== undefined && e.allowed_actions.includes(verdict) ? verdict : undefined;
}

/**
 * The ledger after one applied verdict. Only the supervisor's own skip/fail sticks: a bound, a
 * timeout or the kernel refusing a verdict says nothing about the next item.
 */
export function recordVerdict(ledger: SupervisorLedger, e: Escalation, applied: SupervisorVerdict): SupervisorLedger {
  const next: SupervisorLedger = { ...ledger, retries: { ...ledger.retries }, sticky: { ...ledger.sticky }, memory: [...ledger.memory] };
  if (applied.turns > 0) {
    next.decisions += 1;
    // Only what the supervisor was asked remembers: a sticky or bound verdict repeats nothing it decided.
    next.memory = [...next.memory, memoryEntry(e, applied)].slice(-MEMORY_LIMIT);
  }
  next.spent_usd += applied.cost_usd;
  if (applied.verdict.action === 'retry') next.retries[e.invocation_key] = retriesUsed(ledger, e.invocation_key) + 1;
  const key = signatureKey(e.node, e.failure_signature);
  if (applied.decided_by === 'agent' && key !== undefined && (applied.verdict.action === 'skip' || applied.verdict.action === 'fail')) {
    next.sticky[key] = applied.verdict.action;
  }
  return next;
}
