import { z } from 'zod';
import type { RunEvent, RunEventOf } from '../contracts/events';
import type { DeploymentSettings } from '../contracts/profiles';
import { LifecyclePhase, PHASE_LABELS } from '../contracts/spec';
import { isProtectedEffect, type EffectClass } from '../contracts/tool-effect';
import type { Verdict } from '../contracts/verdict';
import { ReviewRule } from './review-policy';

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
    round: z.number().int().nonnegative(),
    ts: z.string(),
    kind: z.enum(['review', 'shadow']),
    /** The review rule that sent the round to the teacher (none for a shadow comparison). */
    rule: ReviewRule.optional(),
    /** The teacher accepted the student's decision; for a shadow, the two decisions were equal. */
    agreed: z.boolean(),
    /** The teacher blocked it, or no usable verdict came and the round was blocked. */
    blocked: z.boolean(),
    /** The student proposed a protected action and the teacher replaced, blocked or escalated it. */
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

type RoundCompleted = RunEventOf<'round.completed'>;
type LearningEvent = RunEventOf<'learning.example'>;

const roundKey = (runId: string, round: number): string => `${runId}\u0000${round}`;

/** Keeps the latest event per key (highest seq): a re-pushed or resumed round counts once. */
function keepLatest<E extends { seq: number }>(map: Map<string, E>, key: string, event: E): void {
  const prior = map.get(key);
  if (!prior || event.seq > prior.seq) map.set(key, event);
}

/**
 * One outcome per reviewed student round and per shadow comparison, from any mix of runs in any
 * order, sorted by time (then run, round, kind). Teacher-proposed rounds and demonstrations teach
 * the student but measure nothing about it, so they are ignored.
 *
 * A reviewed round is a student round whose review was required and that the teacher ruled on (or
 * that was blocked for want of a usable verdict); a round cancelled before any ruling is not. The
 * `round.completed` record is the source (it also holds rounds with no usable verdict, which have
 * no learning example); a `review` learning example stands in when its round record is absent.
 */
export function reviewOutcomesFromEvents(events: readonly RunEvent[]): ReviewOutcome[] {
  const specOf = new Map<string, string>();
  const effects = new Map<string, Map<string, EffectClass[]>>();
  const rounds = new Map<string, RoundCompleted>();
  const reviews = new Map<string, LearningEvent>();
  const shadows = new Map<string, LearningEvent>();

  for (const e of events) {
    switch (e.type) {
      case 'run.started':
        specOf.set(e.run_id, e.spec_id);
        break;
      case 'tools.snapshot': {
        const byName = new Map<string, EffectClass[]>();
        for (const t of e.tools) byName.set(t.name, [...(byName.get(t.name) ?? []), t.effect]);
        effects.set(roundKey(e.run_id, e.round), byName);
        break;
      }
      case 'round.completed':
        if (isReviewedStudentRound(e)) keepLatest(rounds, roundKey(e.run_id, e.round), e);
        break;
      case 'learning.example':
        if (e.kind === 'review' && e.verdict) keepLatest(reviews, roundKey(e.run_id, e.round), e);
        if (e.kind === 'shadow') keepLatest(shadows, roundKey(e.run_id, e.round), e);
        break;
      default:
        break;
    }
  }

  const base = (e: RoundCompleted | LearningEvent) => {
    const spec_id = specOf.get(e.run_id);
    return { ...(spec_id !== undefined ? { spec_id } : {}), run_id: e.run_id, round: e.round, ts: e.ts };
  };
  const outcomes: ReviewOutcome[] = [];
  for (const [key, e] of rounds) {
    const { record } = e;
    const rule = record.review?.rule;
    const verdict = record.verdict?.verdict;
    const unusable = record.outcome === 'blocked' && record.reason === 'verdict_unusable';
    outcomes.push({
      ...base(e),
      kind: 'review',
      ...(rule ? { rule } : {}),
      agreed: verdict === 'accept',
      blocked: verdict === 'block' || unusable,
      protected_error: isProtectedError(rule, verdict, record.candidate.parsed?.raw, effects.get(key)),
    });
  }
  for (const [key, e] of reviews) {
    if (rounds.has(key)) continue;
    const verdict = e.verdict?.verdict;
    outcomes.push({
      ...base(e),
      kind: 'review',
      ...(e.rule ? { rule: e.rule } : {}),
      agreed: verdict === 'accept',
      blocked: verdict === 'block',
      protected_error: isProtectedError(e.rule, verdict, e.student_candidate, effects.get(key)),
    });
  }
  // The student never acts in phase 1: a shadow measures agreement only, never a block or an error.
  for (const e of shadows.values()) {
    outcomes.push({ ...base(e), kind: 'shadow', agreed: e.agreement, blocked: false, protected_error: false });
  }
  return sortOutcomes(outcomes);
}

function isReviewedStudentRound(e: RoundCompleted): boolean {
  const { record } = e;
  if (record.proposer !== 'student' || record.review?.required !== true) return false;
  return record.verdict !== undefined || (record.outcome === 'blocked' && record.reason === 'verdict_unusable');
}

/**
 * The teacher ruled against a protected action the student proposed. `protected_effect` says so
 * directly; in phase 2 every round is recorded as `review_all`, so there the round's tool
 * snapshot decides (a valid tool call whose effect is protected), or phase 2 could never see one.
 */
function isProtectedError(
  rule: ReviewRule | undefined,
  verdict: Verdict | undefined,
  candidate: unknown,
  effects: ReadonlyMap<string, EffectClass[]> | undefined,
): boolean {
  if (verdict === undefined || verdict === 'accept') return false;
  if (rule === 'protected_effect') return true;
  // `validation_failed` candidates are invalid: they could never have executed.
  if (rule === undefined || rule === 'validation_failed' || !effects) return false;
  const tool = toolNameOf(candidate);
  if (tool === undefined) return false;
  // A name the snapshot does not know could not have passed validation; unknown effects are protected.
  return (effects.get(tool) ?? []).some(isProtectedEffect);
}

function toolNameOf(candidate: unknown): string | undefined {
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const c = candidate as { decision_type?: unknown; tool_name?: unknown };
  return c.decision_type === 'tool_call' && typeof c.tool_name === 'string' ? c.tool_name : undefined;
}

const KIND_ORDER = { review: 0, shadow: 1 } satisfies Record<ReviewOutcome['kind'], number>;

function compareOutcomes(a: ReviewOutcome, b: ReviewOutcome): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  if (a.run_id !== b.run_id) return a.run_id < b.run_id ? -1 : 1;
  if (a.round !== b.round) return a.round - b.round;
  return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
}

function sortOutcomes(outcomes: readonly ReviewOutcome[]): ReviewOutcome[] {
  return [...outcomes].sort(compareOutcomes);
}

// ---------------------------------------------------------------------------------------------
// Metrics over a window, and their series.

/** Running counts: the window ending at index i is `at(i + 1) − at(start)`. */
interface Totals {
  examples: number;
  reviews: number;
  agreed: number;
  blocked: number;
  protected_errors: number;
}

const ZERO: Totals = { examples: 0, reviews: 0, agreed: 0, blocked: 0, protected_errors: 0 };

function prefixTotals(sorted: readonly ReviewOutcome[]): Totals[] {
  const totals: Totals[] = [ZERO];
  for (const o of sorted) {
    const t = totals[totals.length - 1] ?? ZERO;
    totals.push({
      examples: t.examples + 1,
      reviews: t.reviews + (o.kind === 'review' ? 1 : 0),
      agreed: t.agreed + (o.agreed ? 1 : 0),
      blocked: t.blocked + (o.blocked ? 1 : 0),
      protected_errors: t.protected_errors + (o.protected_error ? 1 : 0),
    });
  }
  return totals;
}

/** Metrics over the outcomes [start, end) of the prefix totals. */
function windowMetrics(totals: readonly Totals[], start: number, end: number): PromotionMetrics {
  const hi = totals[end] ?? ZERO;
  const lo = totals[start] ?? ZERO;
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
  const n = sorted.length;
  const count = points === undefined ? n : Math.min(points, n);
  const series: MetricsPoint[] = [];
  for (let k = 0; k < count; k += 1) {
    // Bucket k ends at outcome ⌈(k+1)·n/count⌉ − 1: strictly increasing, the last one is n − 1.
    const end = Math.ceil(((k + 1) * n) / count);
    const last = sorted[end - 1];
    if (!last) continue;
    series.push({ ts: last.ts, ...windowMetrics(totals, Math.max(0, end - settings.window), end) });
  }
  return series;
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
