import type { Decision } from '../contracts/decision';
import type { SelectedDecision } from '../contracts/round';
import { PHASE_LABELS, type LifecyclePhase, type SupervisionSpec } from '../contracts/spec';
import type { EffectClass } from '../contracts/tool-effect';
import type { Verdict } from '../contracts/verdict';
import { addOutcome, metricsBetween, suggestPhase, ZERO_TOTALS, type PromotionSettings } from '../policy/promotion';
import { decideReview } from '../policy/review-policy';
import { canonicalJson } from '../util/canonical-json';
import type { TrialBlock, TrialFigures, TrialNode, TrialReport, TrialRound, TrialShare, TrialSource } from './trial-contract';
import { plural } from '../util/words';

/**
 * The pure half of a student trial: each replayed round compared (`compareRound`), and the report
 * over them (`trialReport`) — agreement with the selected decisions with a 95% Wilson interval, the
 * protected effects proposed differently, invalid decisions, blocks drawn, latency and tokens, and
 * the phase the figures qualify for under the node's promotion rules (the promotion policy's own
 * functions). The host (src-main/learning/trial/) reads the history and calls the candidate.
 */

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/** The Wilson score interval of `count` of `of` (95%): always within [0, 1], around the observed rate. */
export function wilson(count: number, of: number, z: number = Z95): TrialShare {
  if (of === 0) return { count, of, rate: null, low: 0, high: 1 };
  const p = count / of;
  const z2 = z * z;
  const denominator = 1 + z2 / of;
  const centre = (p + z2 / (2 * of)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / of + z2 / (4 * of * of))) / denominator;
  // Clamped to the observed rate: floating point must never put the rate outside its own interval.
  return { count, of, rate: p, low: Math.max(0, Math.min(p, centre - half)), high: Math.min(1, Math.max(p, centre + half)) };
}

/** Two decisions are the same decision when they say the same thing (key order and a stated confidence aside). */
export function sameDecision(a: Decision | undefined, b: Decision | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const plain = (d: Decision) => {
    const { confidence: _confidence, ...rest } = d;
    return canonicalJson(rest);
  };
  return plain(a) === plain(b);
}

/** What the history recorded of one reviewed round. */
export interface TrialCase {
  source: TrialSource;
  supervision: Pick<SupervisionSpec, 'enabled' | 'phase' | 'rules'>;
  /** The seeded sampler drew this round for audit (the draw is the run's, whoever proposes). */
  sampled: boolean;
  student: { decision?: Decision; protected: boolean; verdict?: Verdict };
  selected?: SelectedDecision;
  selected_protected: boolean;
}

/** What the candidate proposed for it (validated as the boundary validates). */
export interface CandidateAnswer {
  decision?: Decision;
  valid: boolean;
  problem?: string;
  effect?: EffectClass;
  protected: boolean;
  latency_ms: number;
  input_tokens?: number;
  output_tokens?: number;
}

/** One round compared: with the selected decision, with the original student's (and its verdict), under the node's review rules. */
export function compareRound(index: number, recorded: TrialCase, answer: CandidateAnswer): TrialRound {
  const decision = answer.valid ? answer.decision : undefined;
  const agrees = sameDecision(decision, recorded.selected?.decision);
  const same = sameDecision(decision, recorded.student.decision);
  const review = decideReview({
    supervision: recorded.supervision,
    validationOk: answer.valid,
    ...(decision ? { decision } : {}),
    ...(decision?.decision_type === 'tool_call' && answer.effect ? { effect: answer.effect } : {}),
    proposer: 'student',
    sampled: recorded.sampled,
  });
  const block: TrialBlock = same
    ? recorded.student.verdict === 'block'
      ? 'recorded'
      : 'none'
    : agrees || !review.required
      ? 'none'
      : 'unknown';
  return {
    index,
    source: recorded.source,
    candidate: {
      ...(answer.decision ? { decision: answer.decision } : {}),
      valid: answer.valid,
      ...(answer.problem !== undefined ? { problem: answer.problem.slice(0, 2000) } : {}),
      ...(answer.effect ? { effect: answer.effect } : {}),
      protected: answer.protected,
    },
    ...(recorded.selected ? { selected: recorded.selected } : {}),
    selected_protected: recorded.selected_protected,
    student: { ...(recorded.student.decision ? { decision: recorded.student.decision } : {}), protected: recorded.student.protected, ...(recorded.student.verdict ? { verdict: recorded.student.verdict } : {}) },
    agrees_selected: agrees,
    same_as_student: same,
    protected_difference: !agrees && (answer.protected || recorded.selected_protected),
    review,
    block,
    latency_ms: Math.max(0, answer.latency_ms),
    ...(answer.input_tokens !== undefined ? { input_tokens: answer.input_tokens } : {}),
    ...(answer.output_tokens !== undefined ? { output_tokens: answer.output_tokens } : {}),
  };
}

/** How the original student did on the same round, as recorded. */
function studentOutcome(r: TrialRound) {
  const agreed = sameDecision(r.student.decision, r.selected?.decision);
  return { kind: 'review' as const, agreed, blocked: r.student.verdict === 'block', protected_error: r.student.protected && !agreed };
}

function candidateOutcome(r: TrialRound) {
  return { kind: 'review' as const, agreed: r.agrees_selected, blocked: r.block === 'recorded', protected_error: r.candidate.protected && !r.agrees_selected };
}

function figures(model: string, rounds: readonly TrialRound[], outcome: (r: TrialRound) => ReturnType<typeof candidateOutcome>, current: LifecyclePhase, settings: PromotionSettings, extra: Pick<TrialFigures, 'invalid' | 'unknown_verdicts' | 'protected_differences'>): TrialFigures {
  let totals = ZERO_TOTALS;
  for (const r of rounds) totals = addOutcome(totals, outcome(r));
  const metrics = metricsBetween(ZERO_TOTALS, totals);
  const suggestion = suggestPhase(current, metrics, settings);
  return {
    model,
    agreement: wilson(totals.agreed, totals.examples),
    blocks: totals.blocked,
    ...extra,
    metrics,
    suggestion,
    qualifies_for: suggestion.to ?? current,
  };
}

function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function perRound(values: readonly (number | undefined)[]): number | null {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}

export interface TrialReportInput {
  node: TrialNode;
  candidate: string;
  /** The model(s) that proposed the recorded rounds. */
  current: string;
  current_phase: LifecyclePhase;
  settings: PromotionSettings;
  rounds_asked: number;
  rounds: readonly TrialRound[];
  /** Cancelled part way: the rounds it was to replay (the figures then cover only `rounds`). */
  stopped_of?: number;
}

/** The report over the compared rounds: both models' figures on the same rounds, under the node's promotion rules. */
export function trialReport(input: TrialReportInput): TrialReport {
  const { rounds } = input;
  const settings = input.settings;
  const candidate = figures(input.candidate, rounds, candidateOutcome, input.current_phase, settings, {
    invalid: rounds.filter((r) => !r.candidate.valid).length,
    unknown_verdicts: rounds.filter((r) => r.block === 'unknown').length,
    protected_differences: rounds.filter((r) => r.protected_difference).length,
  });
  const current = figures(input.current, rounds, studentOutcome, input.current_phase, settings, {
    invalid: rounds.filter((r) => r.student.decision === undefined).length,
    unknown_verdicts: 0,
    protected_differences: rounds.filter((r) => studentOutcome(r).protected_error).length,
  });
  const latencies = rounds.map((r) => r.latency_ms).sort((a, b) => a - b);
  const total = latencies.reduce((a, b) => a + b, 0);
  const report: Omit<TrialReport, 'words'> = {
    node: input.node,
    current_phase: input.current_phase,
    rules: { min_examples: settings.min_examples, promote_agreement: settings.promote_agreement, demote_block_rate: settings.demote_block_rate },
    rounds_asked: input.rounds_asked,
    rounds: rounds.length,
    ...(input.stopped_of !== undefined ? { stopped: { after: rounds.length, of: input.stopped_of } } : {}),
    candidate,
    current,
    same_as_student: rounds.filter((r) => r.same_as_student).length,
    protected_rounds: rounds.filter((r) => r.protected_difference).map((r) => r.index),
    invalid_rounds: rounds.filter((r) => !r.candidate.valid).map((r) => r.index),
    latency_ms: {
      mean: rounds.length === 0 ? 0 : total / rounds.length,
      median: median(latencies),
      p95: latencies[Math.max(0, Math.ceil(latencies.length * 0.95) - 1)] ?? 0,
      total,
    },
    tokens: { input_per_round: perRound(rounds.map((r) => r.input_tokens)), output_per_round: perRound(rounds.map((r) => r.output_tokens)) },
  };
  return { ...report, words: trialWords(report) };
}

// ---------------------------------------------------------------------------------------------
// Words.

export function percent(rate: number | null): string {
  if (rate === null) return '—';
  const v = Math.round(rate * 1000) / 10;
  return `${Number.isInteger(v) ? v : v.toFixed(1)}%`;
}

export function shareWords(share: TrialShare): string {
  if (share.rate === null) return 'no rounds to count';
  return `${share.count} of ${share.of} (${percent(share.rate)}; 95% interval ${percent(share.low)}–${percent(share.high)})`;
}

/** The phase a model's figures qualify for, in words. */
export function qualifiesWords(f: TrialFigures, current: LifecyclePhase): string {
  if (f.qualifies_for === current) return `stays in phase ${current} (${PHASE_LABELS[current]})`;
  return `${f.qualifies_for > current ? 'qualifies for' : 'would be demoted to'} phase ${f.qualifies_for} (${PHASE_LABELS[f.qualifies_for]})`;
}

/** Why a model's figures qualify for their phase, in the trial's terms (the policy's own reason speaks of a teacher's reviews). */
export function whyWords(f: TrialFigures, report: Pick<TrialReport, 'rules' | 'rounds'>): string {
  const { rules } = report;
  const m = f.metrics;
  if (m.examples < rules.min_examples) return `${plural(m.examples, 'round')} ${m.examples === 1 ? 'is' : 'are'} fewer than the ${rules.min_examples} the rules need before any change`;
  if (m.protected_errors > 0) return `it proposed ${plural(m.protected_errors, 'protected effect')} the round did not select`;
  if (m.block_rate !== null && m.block_rate >= rules.demote_block_rate) return `the recorded verdicts would have blocked ${f.blocks} of ${m.reviews} decisions (${percent(m.block_rate)}, limit ${percent(rules.demote_block_rate)})`;
  const agreement = `${percent(m.agreement_rate)} agreement, with ${percent(rules.promote_agreement)} needed to promote, and no protected effect proposed differently`;
  return f.suggestion.action === 'promote' || f.qualifies_for === 4 ? agreement : `${percent(m.agreement_rate)} agreement is below the ${percent(rules.promote_agreement)} needed to promote`;
}

/** The report in sentences, headline first. */
export function trialWords(report: Omit<TrialReport, 'words'>): string[] {
  if (!report.stopped) return fullTrialWords(report);
  return report.rounds === 0 ? [stoppedWords(report.stopped)] : [stoppedWords(report.stopped), ...fullTrialWords(report)];
}

/** A cancelled trial's headline: never read as a finished one. */
export function stoppedWords(stopped: NonNullable<TrialReport['stopped']>): string {
  return stopped.after === 0
    ? `Cancelled before any of its ${stopped.of} rounds was done: there are no figures.`
    : `Cancelled after ${stopped.after} of ${stopped.of} rounds; the figures cover those ${stopped.after} only.`;
}

function fullTrialWords(report: Omit<TrialReport, 'words'>): string[] {
  const { candidate: c, current, rounds } = report;
  if (rounds === 0) {
    return [`No reviewed rounds of ${report.node.label} are recorded, so ${c.model} was not asked anything: run the node with supervision on first.`];
  }
  const words = [
    `Over the last ${plural(rounds, 'reviewed round')} of ${report.node.label}, ${c.model} agreed with the decision finally selected in ${shareWords(c.agreement)}; the current student (${current.model}) in ${shareWords(current.agreement)}.`,
    `Under the node's promotion rules ${c.model} ${qualifiesWords(c, report.current_phase)}: ${whyWords(c, report)}.`,
  ];
  words.push(
    c.protected_differences === 0
      ? 'It proposed no protected effect differently from what was selected.'
      : `It proposed ${plural(c.protected_differences, 'protected effect')} differently from what was selected (listed below): look at each before trusting it.`,
  );
  words.push(c.invalid === 0 ? 'Every decision it made passed validation.' : `${plural(c.invalid, 'decision')} failed validation (the student would have had to repair them or the teacher to step in).`);
  words.push(
    `It proposed the original student's decision in ${plural(report.same_as_student, 'round')}; the recorded teacher verdicts would have blocked ${c.blocks} of them, and ${plural(c.unknown_verdicts, 'other decision')} would have gone to the teacher with no recorded verdict to tell.`,
  );
  const tokens =
    report.tokens.input_per_round === null && report.tokens.output_per_round === null
      ? 'the server reported no token counts'
      : `${Math.round(report.tokens.input_per_round ?? 0)} tokens in and ${Math.round(report.tokens.output_per_round ?? 0)} out per round`;
  words.push(`Each round took ${Math.round(report.latency_ms.median)} ms (median; ${Math.round(report.latency_ms.p95)} ms at the 95th percentile), ${tokens}. No tool was executed.`);
  return words;
}
