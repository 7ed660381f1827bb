import { z } from 'zod';
import type { RunEvent } from '../contracts/events';
import type { DeploymentSettings } from '../contracts/profiles';
import { LifecyclePhase, PHASE_LABELS } from '../contracts/spec';
import { ReviewRule } from './review-policy';
import {
  foldRoundFacts,
  foldRunFacts,
  isRoundEvent,
  isStartEvent,
  roundKeyId,
  roundKeyOf,
  roundOutcomes,
  type RoundFacts,
  type RoundKey,
  type RoundOutcome,
  type RunFacts,
} from './promotion-facts';

/**
 * Promotion is earned (DESIGN.md §3): from the trace, per agent node, how often the teacher agreed
 * with the student, how often it blocked, and whether the student ever proposed a protected action
 * the teacher would not let through. The app only suggests a phase change; the user applies it.
 */

export type PromotionSettings = DeploymentSettings['promotion'];

/** One reviewed student round (kind `review`) or one phase-1 shadow comparison (kind `shadow`). */
export const ReviewOutcome = z
  .object({
    /** The agent spec (node) of the run, from its `run.started`; absent when that event is missing. */
    spec_id: z.string().optional(),
    run_id: z.string(),
    /** In a workflow run: the agent node's invocation (its rounds count from 0 like every node's). */
    invocation_id: z.string().optional(),
    round: z.number().int().nonnegative(),
    ts: z.string(),
    kind: z.enum(['review', 'shadow']),
    /** The review rule that sent the round to the teacher (none for a shadow comparison). */
    rule: ReviewRule.optional(),
    /** The teacher accepted the student's decision; for a shadow, the two decisions were equal. */
    agreed: z.boolean(),
    /** The teacher blocked it, or no usable verdict came and the round was blocked. */
    blocked: z.boolean(),
    /** The student proposed a protected action and the teacher replaced, blocked or escalated it (an escalation a person approved is not one). */
    protected_error: z.boolean(),
  })
  .strict();
export type ReviewOutcome = z.infer<typeof ReviewOutcome>;

const rate = z.number().min(0).max(1).nullable();

export const PromotionMetrics = z
  .object({
    /** Outcomes in the window (reviews and shadow comparisons). */
    examples: z.number().int().nonnegative(),
    /** Of those, teacher reviews: the block rate's denominator (shadow rounds cannot be blocked). */
    reviews: z.number().int().nonnegative(),
    /** agreed ÷ examples; null when there are none. */
    agreement_rate: rate,
    /** blocked ÷ reviews; null when there are no reviews. */
    block_rate: rate,
    protected_errors: z.number().int().nonnegative(),
  })
  .strict();
export type PromotionMetrics = z.infer<typeof PromotionMetrics>;

/** The metrics over the window ending at one outcome (`ts` is that outcome's): one chart point. */
export const MetricsPoint = PromotionMetrics.extend({ ts: z.string() }).strict();
export type MetricsPoint = z.infer<typeof MetricsPoint>;

export const PhaseSuggestion = z
  .object({
    action: z.enum(['promote', 'demote', 'hold']),
    /** The phase to move to (promote/demote only). */
    to: LifecyclePhase.optional(),
    /** One sentence, with the numbers. */
    reason: z.string().min(1),
  })
  .strict();
export type PhaseSuggestion = z.infer<typeof PhaseSuggestion>;

// ---------------------------------------------------------------------------------------------
// Events → outcomes.

/**
 * One outcome per reviewed student round and per shadow comparison, from any mix of runs in any
 * order, sorted by time (then run, round, kind, node). Teacher-proposed rounds and demonstrations
 * teach the student but measure nothing about it, so they are ignored; so is every round of a dry run.
 *
 * The `round.completed` record is the source (it also holds rounds with no usable verdict, which
 * have no learning example); a `review` learning example stands in when its round record is absent.
 * Each round's events are folded into its facts (promotion-facts.ts), as the page keeps them.
 */
export function reviewOutcomesFromEvents(events: readonly RunEvent[]): ReviewOutcome[] {
  const runs = new Map<string, RunFacts>();
  const rounds = new Map<string, RoundFacts>();
  for (const e of events) {
    if (isStartEvent(e)) runs.set(e.run_id, foldRunFacts(runs.get(e.run_id), e));
    else if (isRoundEvent(e)) {
      const id = roundKeyId(roundKeyOf(e));
      rounds.set(id, foldRoundFacts(rounds.get(id), e));
    }
  }
  const outcomes: ReviewOutcome[] = [];
  for (const f of rounds.values()) {
    const run = runs.get(f.run_id);
    for (const o of roundOutcomes(f, run)) outcomes.push(reviewOutcome(f, run, o));
  }
  return sortOutcomes(outcomes);
}

/** A round's outcome as a ReviewOutcome: its run's spec id, and its node when in a workflow run. */
export function reviewOutcome(key: RoundKey, run: RunFacts | undefined, o: RoundOutcome): ReviewOutcome {
  const spec_id = run?.spec?.spec_id;
  return {
    ...(spec_id !== undefined ? { spec_id } : {}),
    run_id: key.run_id,
    ...(key.scope !== '' ? { invocation_id: key.scope } : {}),
    round: key.round,
    ts: o.ts,
    kind: o.kind,
    ...(o.rule ? { rule: o.rule } : {}),
    agreed: o.agreed,
    blocked: o.blocked,
    protected_error: o.protected_error,
  };
}

const KIND_ORDER = { review: 0, shadow: 1 } satisfies Record<ReviewOutcome['kind'], number>;

function compareOutcomes(a: ReviewOutcome, b: ReviewOutcome): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  if (a.run_id !== b.run_id) return a.run_id < b.run_id ? -1 : 1;
  if (a.round !== b.round) return a.round - b.round;
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  const [x, y] = [a.invocation_id ?? '', b.invocation_id ?? ''];
  return x === y ? 0 : x < y ? -1 : 1;
}

function sortOutcomes(outcomes: readonly ReviewOutcome[]): ReviewOutcome[] {
  return [...outcomes].sort(compareOutcomes);
}

// ---------------------------------------------------------------------------------------------
// Metrics over a window, and their series.

/** Running counts: the window ending at index i is `at(i + 1) − at(start)`. */
export interface Totals {
  examples: number;
  reviews: number;
  agreed: number;
  blocked: number;
  protected_errors: number;
}

export const ZERO_TOTALS: Totals = { examples: 0, reviews: 0, agreed: 0, blocked: 0, protected_errors: 0 };

/** The totals through one more outcome. */
export function addOutcome(t: Totals, o: Pick<ReviewOutcome, 'kind' | 'agreed' | 'blocked' | 'protected_error'>): Totals {
  return {
    examples: t.examples + 1,
    reviews: t.reviews + (o.kind === 'review' ? 1 : 0),
    agreed: t.agreed + (o.agreed ? 1 : 0),
    blocked: t.blocked + (o.blocked ? 1 : 0),
    protected_errors: t.protected_errors + (o.protected_error ? 1 : 0),
  };
}

function prefixTotals(sorted: readonly ReviewOutcome[]): Totals[] {
  const totals: Totals[] = [ZERO_TOTALS];
  for (const o of sorted) totals.push(addOutcome(totals[totals.length - 1] ?? ZERO_TOTALS, o));
  return totals;
}

/** Metrics over the outcomes [start, end) of the prefix totals. */
function windowMetrics(totals: readonly Totals[], start: number, end: number): PromotionMetrics {
  return metricsBetween(totals[start] ?? ZERO_TOTALS, totals[end] ?? ZERO_TOTALS);
}

/** Metrics of the outcomes after `lo` through `hi` (two prefix totals). */
export function metricsBetween(lo: Totals, hi: Totals): PromotionMetrics {
  const examples = hi.examples - lo.examples;
  const reviews = hi.reviews - lo.reviews;
  return {
    examples,
    reviews,
    agreement_rate: examples === 0 ? null : (hi.agreed - lo.agreed) / examples,
    block_rate: reviews === 0 ? null : (hi.blocked - lo.blocked) / reviews,
    protected_errors: hi.protected_errors - lo.protected_errors,
  };
}

/** The metrics over the last `settings.window` outcomes (by time, whatever order they come in). */
export function promotionMetrics(outcomes: readonly ReviewOutcome[], settings: PromotionSettings): PromotionMetrics {
  const totals = prefixTotals(sortOutcomes(outcomes));
  const end = totals.length - 1;
  return windowMetrics(totals, Math.max(0, end - settings.window), end);
}

/**
 * The metrics as a rolling series for a chart: one point per outcome, each over the window ending
 * there; with `points`, at most that many, evenly spaced and always ending at the latest outcome
 * (so the last point equals `promotionMetrics`). Empty input gives an empty series.
 */
export function metricsSeries(outcomes: readonly ReviewOutcome[], settings: PromotionSettings, points?: number): MetricsPoint[] {
  if (points !== undefined && (!Number.isInteger(points) || points < 1)) {
    throw new RangeError(`points must be a positive integer, got ${points}`);
  }
  const sorted = sortOutcomes(outcomes);
  const totals = prefixTotals(sorted);
  const series: MetricsPoint[] = [];
  for (const { start, end } of seriesWindows(sorted.length, settings.window, points)) {
    const last = sorted[end - 1];
    if (last) series.push({ ts: last.ts, ...windowMetrics(totals, start, end) });
  }
  return series;
}

/**
 * The chart's windows over n outcomes in order: outcomes [start, end) for each point. Bucket k ends
 * at outcome ⌈(k+1)·n/count⌉ − 1: strictly increasing, the last one is n − 1.
 */
export function seriesWindows(n: number, window: number, points?: number): { start: number; end: number }[] {
  const count = points === undefined ? n : Math.min(points, n);
  return Array.from({ length: count }, (_, k) => {
    const end = Math.ceil(((k + 1) * n) / count);
    return { start: Math.max(0, end - window), end };
  });
}

// ---------------------------------------------------------------------------------------------
// The suggestion.

function pct(x: number): string {
  const v = Math.round(x * 1000) / 10;
  return `${Number.isInteger(v) ? v : v.toFixed(1)}%`;
}

function phaseName(phase: LifecyclePhase): string {
  return `phase ${phase} (${PHASE_LABELS[phase]})`;
}

/**
 * Hold until there is enough evidence; demote on any protected-effect error or a block rate at or
 * above the limit; promote when agreement reaches the bar with no protected-effect errors.
 */
export function suggestPhase(current: LifecyclePhase, metrics: PromotionMetrics, settings: PromotionSettings): PhaseSuggestion {
  const { examples, reviews, agreement_rate, block_rate, protected_errors } = metrics;
  if (examples < settings.min_examples) {
    const why =
      current === 0 ? ': phase 0 never asks the student, so move to phase 1 (Shadow) to start measuring it' : ': too few to suggest a change';
    return { action: 'hold', reason: `${examples} of ${settings.min_examples} reviewed rounds so far${why}.` };
  }
  const window = `the last ${examples} reviewed rounds`;

  const demoteBecause =
    protected_errors > 0
      ? `${protected_errors} protected-effect error${protected_errors === 1 ? '' : 's'} in ${window} (the teacher stopped a protected action the student proposed)`
      : block_rate !== null && block_rate >= settings.demote_block_rate
        ? `the teacher blocked ${Math.round(block_rate * reviews)} of ${reviews} reviews in ${window} (${pct(block_rate)}, limit ${pct(settings.demote_block_rate)})`
        : undefined;
  if (demoteBecause !== undefined) {
    if (current === 0) return { action: 'hold', reason: `Stay in ${phaseName(0)}, the most supervised phase: ${demoteBecause}.` };
    const to = LifecyclePhase.parse(current - 1);
    return { action: 'demote', to, reason: `Demote to ${phaseName(to)}: ${demoteBecause}.` };
  }

  const agreed = agreement_rate === null ? 0 : Math.round(agreement_rate * examples);
  const agreement = `the teacher agreed with ${agreed} of ${examples} student decisions in ${window} (${pct(agreement_rate ?? 0)})`;
  if (agreement_rate !== null && agreement_rate >= settings.promote_agreement) {
    if (current === 4) return { action: 'hold', reason: `Stay in ${phaseName(4)}, the least supervised phase: ${agreement}, with no protected-effect errors.` };
    const to = LifecyclePhase.parse(current + 1);
    return { action: 'promote', to, reason: `Promote to ${phaseName(to)}: ${agreement} (needed ${pct(settings.promote_agreement)}), with no protected-effect errors.` };
  }
  return { action: 'hold', reason: `Stay in ${phaseName(current)}: ${agreement}, below the ${pct(settings.promote_agreement)} needed to promote.` };
}
