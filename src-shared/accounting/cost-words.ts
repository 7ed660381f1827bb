import { z } from 'zod';
import { ModelCaller } from '../contracts/model-call';
import { InterventionCountKind, type RunCost, type UsageTotals } from './run-cost';
import { count as grouped } from '../util/words';

/**
 * The accounting in words and in JSON (issue 31). A figure nobody recorded reads "not recorded"
 * (JSON: null), never 0; a figure with parts unknown reads "≥" (JSON: `complete: false`).
 */

/** Dollars: "$0.0123", "≥ $0.0123 (gpt-x unpriced)", "not recorded", "$0" when nothing was called. */
export function usdText(t: UsageTotals): string {
  if (t.calls === 0 && t.recorded_calls === 0) return '$0';
  if (t.recorded_calls === 0) return 'not recorded';
  if (t.usd === 0 && t.complete) return '$0';
  const amount = `${t.complete ? '' : '≥ '}$${formatUsd(t.usd)}`;
  return t.unpriced_models.length > 0 ? `${amount} (${t.unpriced_models.join(', ')}: no price)` : amount;
}

/** Tokens in and out: "1,234 in · 56 out", "not recorded", "not reported by the model". */
export function tokensText(t: UsageTotals): string {
  if (t.calls === 0 && t.recorded_calls === 0) return '0';
  if (t.recorded_calls === 0) return 'not recorded';
  if (t.counted_calls === 0) return 'not reported by the model';
  const some = t.counted_calls < Math.max(t.calls, t.recorded_calls) ? '≥ ' : '';
  return `${some}${grouped(t.input_tokens)} in · ${grouped(t.output_tokens)} out`;
}

/** Tokens in and out together, for a narrow column. */
export function tokenCountText(t: UsageTotals): string {
  if (t.calls === 0 && t.recorded_calls === 0) return '0';
  if (t.recorded_calls === 0) return 'not recorded';
  if (t.counted_calls === 0) return 'not reported';
  const some = t.counted_calls < Math.max(t.calls, t.recorded_calls) ? '≥ ' : '';
  return `${some}${grouped(t.input_tokens + t.output_tokens)}`;
}

/** Four decimals under a dollar, two above. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? usd.toFixed(2) : usd.toFixed(4);
}

/** Minutes and seconds: "0 s", "42 s", "3 min 5 s". */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return ms > 0 && s === 0 ? `${ms} ms` : `${s} s`;
  const min = Math.floor(s / 60);
  return `${min} min${s % 60 > 0 ? ` ${s % 60} s` : ''}`;
}

const count = z.number().int().nonnegative();

/** A total as `--json` prints it: null where the run did not record the figure. */
export const TotalsJson = z
  .object({
    calls: count,
    recorded_calls: count,
    /** null: not recorded (the run predates token accounting, or no call's end was recorded) or not reported by the model. */
    input_tokens: count.nullable(),
    output_tokens: count.nullable(),
    usd: z.number().nonnegative().nullable(),
    latency_ms: count.nullable(),
    /** false: some calls were not recorded, reported no tokens, or are unpriced: the figures are lower bounds. */
    complete: z.boolean(),
    unpriced_models: z.array(z.string()),
  })
  .strict();
export type TotalsJson = z.infer<typeof TotalsJson>;

/** What `--json` prints as a run's `cost` (issue 31; docs/supervision-cost.md). */
export const CostJson = z
  .object({
    supervision: TotalsJson,
    total: TotalsJson,
    roles: z.array(TotalsJson.extend({ role: ModelCaller, models: z.array(z.string()) })),
    models: z.array(TotalsJson.extend({ model: z.string(), local: z.boolean(), roles: z.array(ModelCaller) })),
    supervision_latency_ms: count.nullable(),
    person: z.object({ asks: count, waited_minutes: z.number().nonnegative(), waiting: z.boolean() }).strict(),
    interventions: z.partialRecord(InterventionCountKind, count),
  })
  .strict();
export type CostJson = z.infer<typeof CostJson>;

function totalsJson(t: UsageTotals): TotalsJson {
  const none = t.calls > 0 && t.recorded_calls === 0;
  return {
    calls: t.calls,
    recorded_calls: t.recorded_calls,
    input_tokens: none || (t.recorded_calls > 0 && t.counted_calls === 0) ? null : t.input_tokens,
    output_tokens: none || (t.recorded_calls > 0 && t.counted_calls === 0) ? null : t.output_tokens,
    usd: none ? null : round6(t.usd),
    latency_ms: none ? null : t.latency_ms,
    complete: t.complete,
    unpriced_models: t.unpriced_models,
  };
}

export function costJson(cost: RunCost): CostJson {
  return {
    supervision: totalsJson(cost.supervision),
    total: totalsJson(cost.total),
    roles: cost.roles.map((r) => ({ role: r.role, models: r.models, ...totalsJson(r) })),
    models: cost.models.map((m) => ({ model: m.model, local: m.local, roles: m.roles, ...totalsJson(m) })),
    supervision_latency_ms: cost.supervision.recorded_calls === 0 && cost.supervision.calls > 0 ? null : cost.supervision_latency_ms,
    person: { asks: cost.person.asks, waited_minutes: Math.round((cost.person.waited_ms / 60_000) * 100) / 100, waiting: cost.person.waiting },
    interventions: cost.interventions,
  };
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
