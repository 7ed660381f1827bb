import { z } from 'zod';
import type { Escalation, SupervisorSettings, SupervisorVerdict } from './contracts';
import { signatureKey } from './escalation';

/**
 * The run's supervision ledger: what every escalation's decision needs from the ones before it
 * (decisions taken, retries per invocation, dollars spent, sticky verdicts). Plain JSON, kept by
 * the host with the run's checkpoint, so the bounds hold across a restart too.
 */
export const SupervisorLedger = z
  .object({
    decisions: z.number().int().nonnegative(),
    retries: z.record(z.string(), z.number().int().nonnegative()),
    spent_usd: z.number().nonnegative(),
    /** signatureKey → the verdict that sticks (skip or fail only). */
    sticky: z.record(z.string(), z.enum(['skip', 'fail'])),
  })
  .strict();
export type SupervisorLedger = z.infer<typeof SupervisorLedger>;

export const emptyLedger = (): SupervisorLedger => ({ decisions: 0, retries: {}, spent_usd: 0, sticky: {} });

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
  const next: SupervisorLedger = { ...ledger, retries: { ...ledger.retries }, sticky: { ...ledger.sticky } };
  if (applied.turns > 0) next.decisions += 1;
  next.spent_usd += applied.cost_usd;
  if (applied.verdict.action === 'retry') next.retries[e.invocation_key] = retriesUsed(ledger, e.invocation_key) + 1;
  const key = signatureKey(e.node, e.failure_signature);
  if (applied.decided_by === 'agent' && key !== undefined && (applied.verdict.action === 'skip' || applied.verdict.action === 'fail')) {
    next.sticky[key] = applied.verdict.action;
  }
  return next;
}
