import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { CallerIdentity, JudgmentRecord, PatternStatus, VerdictKind } from '@shared/pattern/contracts';

/**
 * A pattern node's iterations as the run view shows them (issue 12): each iteration's output and
 * member outputs, every judgment of it (who judged, the verdict, its feedback, the evidence cited,
 * verification, timing), the feedback the iteration was asked to address, a judgment waiting for a
 * person, and how the node ended. Built from the node's `pattern.*` and intervention events only.
 */

export interface JudgmentView {
  id: string;
  caller: string;
  caller_kind: CallerIdentity['kind'];
  attempt: number;
  /** Absent when the answer could not be used (verification failed). */
  verdict?: VerdictKind;
  feedback?: string;
  reason?: string;
  evidence: string[];
  /** Why the answer could not be used; absent when it was verified. */
  problem?: string;
  started_at: string;
  ended_at: string;
}

export type IterationOutcome = 'approved' | 'rejected' | 'escalated' | 'unjudged';

export interface IterationView {
  step: number;
  iteration: number;
  output: string;
  outputs: { id: string; member_id: string }[];
  /** The rejection feedback this iteration was asked to address (the previous iteration's of the same step). */
  addresses?: string;
  judgments: JudgmentView[];
  /** What its verified verdicts came to: an escalation wins, then a rejection, then approval. */
  outcome: IterationOutcome;
  /** A person's judgment of this iteration is still open. */
  waiting: boolean;
}

export interface PatternTimeline {
  iterations: IterationView[];
  ended?: { status: PatternStatus; approved: boolean; iterations: number; reason?: string };
}

export function describeCaller(caller: CallerIdentity): string {
  switch (caller.kind) {
    case 'human':
      return caller.who !== undefined ? `a person (${caller.who})` : 'a person';
    case 'llm':
      return `model “${caller.profile}”`;
    case 'system':
      return 'the system';
  }
}

export function judgmentView(record: JudgmentRecord): JudgmentView {
  const v = record.verdict;
  return {
    id: record.id,
    caller: describeCaller(record.caller),
    caller_kind: record.caller.kind,
    attempt: record.attempt,
    ...(v ? { verdict: v.verdict } : {}),
    ...(v?.verdict === 'rejected' ? { feedback: v.feedback } : {}),
    ...(v?.verdict === 'escalated' ? { reason: v.reason } : {}),
    evidence: record.evidence,
    ...(record.verification.ok ? {} : { problem: record.verification.problem }),
    started_at: record.started_at,
    ended_at: record.ended_at,
  };
}

/**
 * What an iteration's judgment came to. Several callers agree by the node's rule, which the events do
 * not restate, so what followed decides: another iteration of the same step means it was rejected;
 * the next step, or the node ending approved, means it was approved.
 */
function outcomeOf(it: Omit<IterationView, 'outcome'>, all: readonly Omit<IterationView, 'outcome'>[], ended: PatternTimeline['ended']): IterationOutcome {
  const kinds = it.judgments.flatMap((j) => (j.verdict ? [j.verdict] : []));
  if (kinds.includes('escalated')) return 'escalated';
  if (kinds.length === 0) return 'unjudged';
  if (all.some((o) => o.step === it.step && o.iteration > it.iteration)) return 'rejected';
  if (all.some((o) => o.step > it.step) || ended?.status === 'approved') return 'approved';
  if (ended !== undefined) return 'rejected';
  return kinds.every((k) => k === 'approved') ? 'approved' : 'rejected';
}

const key = (step: number, iteration: number) => `${step}.${iteration}`;

/** The timeline of one pattern node invocation, in the order its events came. */
export function patternTimeline(events: readonly RunEvent[], invocationId: string): PatternTimeline {
  const iterations = new Map<string, Omit<IterationView, 'outcome'>>();
  const asked = new Map<string, RunEventOf<'intervention.requested'>>();
  const answered = new Set<string>();
  let ended: PatternTimeline['ended'];
  for (const e of events) {
    if (e.invocation_id !== invocationId) continue;
    switch (e.type) {
      case 'pattern.iteration': {
        const previous = iterations.get(key(e.step, e.iteration - 1));
        const addresses = previous?.judgments.filter((j) => j.feedback !== undefined).map((j) => j.feedback).join('\n\n');
        iterations.set(key(e.step, e.iteration), { step: e.step, iteration: e.iteration, output: e.output, outputs: e.outputs, ...(addresses ? { addresses } : {}), judgments: [], waiting: false });
        break;
      }
      case 'pattern.judgment': {
        const it = iterations.get(key(e.judgment.step, e.judgment.iteration));
        if (it) it.judgments.push(judgmentView(e.judgment));
        break;
      }
      case 'pattern.ended':
        ended = { status: e.status, approved: e.approved, iterations: e.iterations, ...(e.reason !== undefined ? { reason: e.reason } : {}) };
        break;
      case 'intervention.requested':
        if (e.intervention.judgment) asked.set(e.intervention.id, e);
        break;
      case 'intervention.answered':
        answered.add(e.intervention_id);
        break;
      default:
        break;
    }
  }
  for (const [id, e] of asked) {
    const j = e.intervention.judgment;
    const it = j ? iterations.get(key(j.step, j.iteration)) : undefined;
    if (it && !answered.has(id) && ended === undefined) it.waiting = true;
  }
  const all = [...iterations.values()];
  return { iterations: all.map((it) => ({ ...it, outcome: outcomeOf(it, all, ended) })), ...(ended ? { ended } : {}) };
}

/** How long a judgment took, in words ("1.2 s", "3 min"), or nothing when its times are unknown. */
export function judgmentTook(j: Pick<JudgmentView, 'started_at' | 'ended_at'>): string | undefined {
  const ms = Date.parse(j.ended_at) - Date.parse(j.started_at);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
