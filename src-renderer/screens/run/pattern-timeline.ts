import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { CallerIdentity, JudgmentRecord, PatternStatus, VerdictKind, VERIFIER_KINDS } from '@shared/pattern/contracts';

/**
 * A pattern node's iterations as the run view shows them (issue 12): each iteration's output and
 * member outputs, every judgment of it (who judged, the verdict, its feedback, the evidence cited,
 * verification, timing), the feedback the iteration was asked to address, a judgment waiting for a
 * person, and how the node ended; under each iteration, every member's own agent run (its output,
 * its rounds, whether a teacher supervised it). Built from the node's events only.
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

/** How a member's agent run stands: still working, waiting for a person's answer, or how it ended (agent.finished). */
export type MemberRunStatus = 'working' | 'waiting' | RunEventOf<'agent.finished'>['status'];

/**
 * One member's agent run in one iteration (its events are tagged `pattern_member: <id>`): what it
 * answered, how many rounds it took, whether a teacher supervised it (its rounds then carry verdicts).
 */
export interface MemberRunView {
  /** The output id a verdict cites, and the member run's tag: `draft#2`, `review#2.1`. */
  id: string;
  member_id: string;
  status: MemberRunStatus;
  output?: string;
  message?: string;
  rounds: number;
  supervised: boolean;
}

export interface IterationView {
  step: number;
  iteration: number;
  output: string;
  outputs: { id: string; member_id: string }[];
  /** Each member's own run in this iteration, in the order they ran. */
  members: MemberRunView[];
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
  /**
   * An iteration with member runs but no pattern.iteration: its members are still at work or, once the
   * node has ended, one of them failed it (blocked, waiting for a person). Who ran so far, and how.
   */
  unrecorded?: { step: number; iteration: number; members: MemberRunView[] };
  ended?: { status: PatternStatus; approved: boolean; iterations: number; reason?: string };
}

export function describeCaller(caller: CallerIdentity): string {
  switch (caller.kind) {
    case 'human':
      return caller.who !== undefined ? `a person (${caller.who})` : 'a person';
    case 'llm':
      return `model “${caller.profile}”${caller.model !== undefined ? ` (${caller.model})` : ''}`;
    case 'a2a': {
      // The agent card's name and version as read when it judged (the audit), and where it is.
      const name = caller.agent?.name ?? caller.name;
      return `A2A agent${name !== undefined ? ` “${name}”` : ''}${caller.agent?.version ? ` ${caller.agent.version}` : ''} at ${caller.url}`;
    }
    case 'verifier':
      return `${VERIFIER_WORDS[caller.verifier]} “${caller.name}”`;
    case 'system':
      return 'the system';
  }
}

const VERIFIER_WORDS = { json_schema: 'JSON Schema verifier', expression: 'expression verifier' } satisfies Record<(typeof VERIFIER_KINDS)[number], string>;

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

/** Where a member run tag points: `draft#2` is step 0, iteration 2; `review#2.1` step 1 (the second), iteration 1. */
export function memberRunPlace(tag: string): { member_id: string; step: number; iteration: number } | undefined {
  const m = /^(.+)#(\d+)(?:\.(\d+))?$/.exec(tag);
  if (!m?.[1] || !m[2]) return undefined;
  return m[3] === undefined ? { member_id: m[1], step: 0, iteration: Number(m[2]) } : { member_id: m[1], step: Number(m[2]) - 1, iteration: Number(m[3]) };
}

/** The member runs of one node invocation, by tag, in the order they started. */
function memberRuns(events: readonly RunEvent[], invocationId: string): Map<string, MemberRunView> {
  const runs = new Map<string, MemberRunView>();
  for (const e of events) {
    if (e.invocation_id !== invocationId || e.pattern_member === undefined) continue;
    const tag = e.pattern_member;
    let run = runs.get(tag);
    if (!run) {
      run = { id: tag, member_id: memberRunPlace(tag)?.member_id ?? tag, status: 'working', rounds: 0, supervised: false };
      runs.set(tag, run);
    }
    if (e.type === 'agent.started') run.supervised = e.supervision.enabled;
    else if (e.type === 'round.started') run.rounds += 1;
    // A member's question parks the node until a person answers it (the answer resumes the member).
    else if (e.type === 'intervention.requested') run.status = 'waiting';
    else if (e.type === 'intervention.answered') run.status = 'working';
    else if (e.type === 'agent.finished') Object.assign(run, { status: e.status, rounds: Math.max(run.rounds, e.rounds) }, e.output !== undefined ? { output: e.output } : {}, e.message !== undefined ? { message: e.message } : {});
  }
  return runs;
}

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
        iterations.set(key(e.step, e.iteration), { step: e.step, iteration: e.iteration, output: e.output, outputs: e.outputs, members: [], ...(addresses ? { addresses } : {}), judgments: [], waiting: false });
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
  // Members ran before their iteration was recorded: each run goes to the iteration its tag names.
  let unrecorded: PatternTimeline['unrecorded'];
  for (const run of memberRuns(events, invocationId).values()) {
    const place = memberRunPlace(run.id);
    if (!place) continue;
    const it = iterations.get(key(place.step, place.iteration));
    if (it) it.members.push(run);
    else if (unrecorded === undefined || (unrecorded.step === place.step && unrecorded.iteration === place.iteration)) {
      unrecorded = { step: place.step, iteration: place.iteration, members: [...(unrecorded?.members ?? []), run] };
    }
  }
  const all = [...iterations.values()];
  return { iterations: all.map((it) => ({ ...it, outcome: outcomeOf(it, all, ended) })), ...(unrecorded ? { unrecorded } : {}), ...(ended ? { ended } : {}) };
}

/** How long a judgment took, in words ("1.2 s", "3 min"), or nothing when its times are unknown. */
export function judgmentTook(j: Pick<JudgmentView, 'started_at' | 'ended_at'>): string | undefined {
  const ms = Date.parse(j.ended_at) - Date.parse(j.started_at);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
