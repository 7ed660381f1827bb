import { isProtectedEffect, type EffectClass, type ToolEffect } from '@shared/contracts/tool-effect';

/** How much review an effect class gets; a lower rank is less protected. */
const RANK: Record<EffectClass, number> = { read: 0, reversible_write: 1, irreversible_write: 2, external_communication: 2, unknown: 3 };

/**
 * A change that makes a tool less protected than it is now: a lower effect class, no longer asking
 * the user, a sensitive argument no longer masked, or retries newly allowed. Those need a person.
 */
export function isDowngrade(current: ToolEffect, next: ToolEffect): boolean {
  if (RANK[next.effect] < RANK[current.effect]) return true;
  if (isProtectedEffect(current.effect) && !isProtectedEffect(next.effect)) return true;
  if (current.requires_user_confirmation && !next.requires_user_confirmation) return true;
  if (current.sensitive_arguments.some((a) => !next.sensitive_arguments.includes(a))) return true;
  return !current.idempotency_supported && next.idempotency_supported;
}

export function describeEffect(e: ToolEffect): string {
  const parts: string[] = [e.effect];
  if (e.requires_user_confirmation) parts.push('asks the user');
  if (e.idempotency_supported) parts.push('idempotent');
  if (e.sensitive_arguments.length) parts.push(`masks ${e.sensitive_arguments.join(', ')}`);
  return parts.join(', ');
}
