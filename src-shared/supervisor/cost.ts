import type { PricingTable, SupervisorSettings } from './contracts';

/**
 * The cost cap (seed 004 design §6): before every supervisor turn the worst case of that turn is
 * reserved from the pricing table, and the turn is refused when the reservation would cross the
 * cap. Local models and people cost 0; a cloud model with no price is refused while a cap is set
 * (its cost cannot be bounded), and allowed without one.
 */

/** Who would answer the turn: the host resolves the profile and its locality (policy/privacy.ts). */
export type SupervisorIdentity = { kind: 'person' } | { kind: 'model'; label: string; local: boolean };

export type Reservation = { ok: true; usd: number } | { ok: false; reason: string };

/** Prompt tokens of a turn, estimated from its text (4 characters a token, rounded up, plus the fixed instructions). */
export function estimatePromptTokens(promptChars: number): number {
  return PROMPT_OVERHEAD_TOKENS + Math.ceil(promptChars / 4);
}
/** The supervisor's instructions and the verdict schema. */
export const PROMPT_OVERHEAD_TOKENS = 1500;

export function reserveTurn(settings: Pick<SupervisorSettings, 'who' | 'cost_cap_usd' | 'pricing'>, who: SupervisorIdentity, spentUsd: number, promptTokens: number): Reservation {
  const cap = settings.cost_cap_usd;
  if (who.kind === 'person' || who.local) return { ok: true, usd: 0 };
  const price = Object.hasOwn(settings.pricing, who.label) ? settings.pricing[who.label] : undefined;
  if (price === undefined) {
    if (cap === undefined) return { ok: true, usd: 0 };
    return { ok: false, reason: `the supervisor model ${who.label} has no price, so a cost cap of $${cap} cannot be kept` };
  }
  const outputTokens = settings.who.kind === 'model' ? settings.who.max_output_tokens : 0;
  const usd = (promptTokens * price.input_per_mtok_usd + outputTokens * price.output_per_mtok_usd) / 1_000_000;
  if (cap !== undefined && spentUsd + usd > cap) {
    return { ok: false, reason: `a supervisor turn may cost $${usd.toFixed(4)}; with $${spentUsd.toFixed(4)} spent that would cross the cap of $${cap}` };
  }
  return { ok: true, usd };
}

/**
 * What a failed attempt's model calls cost (issue 11: the escalation's spent cost). The host tallies
 * the attempt's calls per model label from its events: the privacy log (`model.called`: every call
 * that reached a provider, and whether it stayed on this machine) and the replies that reported
 * token usage. The table is the supervisor's own (`settings.pricing`, keyed by the same labels).
 */
export interface ModelCallTally {
  label: string;
  local: boolean;
  /** Calls that reached the provider (each retry too). */
  calls: number;
  /** Replies that reported both input and output tokens. */
  measured: number;
  input_tokens: number;
  output_tokens: number;
}

/**
 * `usd`: the measured calls at the table's price; local models cost 0. `unpriced`: the remote
 * models whose cost is not known — no price in the table, or a call that reported no usage (it may
 * still have been billed). The kernel never reads an unknown cost as 0: it refuses a retry for it
 * (allowed-actions.ts), as it does for a cost it knows.
 */
export interface AttemptSpend {
  usd: number;
  unpriced: string[];
}

export function attemptSpend(tallies: readonly ModelCallTally[], pricing: PricingTable): AttemptSpend {
  let usd = 0;
  const unpriced = new Set<string>();
  for (const t of tallies) {
    if (t.local || t.calls === 0) continue;
    const price = Object.hasOwn(pricing, t.label) ? pricing[t.label] : undefined;
    if (price === undefined) {
      unpriced.add(t.label);
      continue;
    }
    usd += (t.input_tokens * price.input_per_mtok_usd + t.output_tokens * price.output_per_mtok_usd) / 1_000_000;
    if (t.measured < t.calls) unpriced.add(t.label);
  }
  return { usd, unpriced: [...unpriced].sort() };
}

/** What the failed attempt spent, in a line a person reads; undefined when it cost nothing known or unknown. */
export function spentText(e: { spent_usd: number; unpriced_models?: readonly string[] | undefined }): string | undefined {
  const unpriced = e.unpriced_models ?? [];
  if (e.spent_usd <= 0 && unpriced.length === 0) return undefined;
  const known = e.spent_usd > 0 ? `$${e.spent_usd.toFixed(4)}` : undefined;
  const unknown = unpriced.length > 0 ? `an unknown amount (${unpriced.join(', ')}: unpriced)` : undefined;
  return [known, unknown].filter((p) => p !== undefined).join(' + ');
}
