import { authorizeDecision, AuthorizationFacts } from '../authorization';
import type { BoundaryEmitted } from '../machine';
import { candidateFromValue, parseCandidate } from '../parse-candidate';
import { validateCandidate } from '../validation';
import { Decision } from '../../contracts/decision';
import { RunEvent } from '../../contracts/events';
import { ROUND_OUTCOMES, RoundRecord, type VerdictAttempt } from '../../contracts/round';
import { isProtectedEffect } from '../../contracts/tool-effect';
import { canonicalJson } from '../../util/canonical-json';
import type { EffectName } from './path-alphabet';
import type { EffectCall, JournalEntry, ReplayTrace } from './replay';

/**
 * The decision boundary's invariants (DESIGN.md §3, I1–I6) as checks over one replayed round: its
 * journal of effect calls and emitted events, its input and its RoundRecord. Each check recomputes
 * what it can (validation, authorization) from first principles rather than trusting the record.
 * Returns the violations found; an empty list means the round kept every invariant.
 */

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** The strict order of §3 as emitted events; verdicts repeat, the last two ranks are alternatives/terminal. */
const EVENT_RANK = {
  'round.started': 0,
  'candidate.proposed': 1,
  'candidate.validated': 2,
  'review.decided': 3,
  'verdict.received': 4,
  'decision.selected': 5,
  'decision.authorized': 6,
  'decision.committed': 7,
  'tool.executed': 8,
  'response.delivered': 8,
  'round.completed': 9,
} as const satisfies Partial<Record<BoundaryEmitted['type'], number>>;
type RankedType = keyof typeof EVENT_RANK;

/** The ranks every round passes through in order, verdicts aside; an early end leaves a prefix. */
const STRICT_ORDER = [0, 1, 2, 3, 5, 6, 7, 8] as const;
/** A round a person decided has no proposal: it starts at validation. */
const PRESELECTED_ORDER = [0, 2, 3, 5, 6, 7, 8] as const;

const EFFECT_RANK = { propose: 0, review: 1, authorize: 2, commit: 3, execute: 4, deliver: 4 } satisfies Record<EffectName, number>;

function callsOf<E extends EffectName>(journal: JournalEntry[], effect: E): Extract<EffectCall, { effect: E }>[] {
  return journal.filter((e): e is Extract<EffectCall, { effect: E }> => e.kind === 'call' && e.effect === effect);
}
function indexOfEvent(journal: JournalEntry[], pred: (e: BoundaryEmitted) => boolean): number {
  return journal.findIndex((e) => e.kind === 'event' && pred(e.event));
}

/** The verdict that decided the round: the last usable one. */
function decidingVerdict(attempts: readonly VerdictAttempt[]): VerdictAttempt | undefined {
  return attempts.filter((a) => a.usable).at(-1);
}

export function checkRoundInvariants(trace: ReplayTrace): string[] {
  const v: string[] = [];
  const { input, journal, output } = trace;
  if (!output) return [`I6: the round never finished (status ${trace.status}, state ${trace.finalValue})`];

  const events = journal.flatMap((e) => (e.kind === 'event' ? [e.event] : []));
  const commits = callsOf(journal, 'commit');
  const executes = callsOf(journal, 'execute');
  const delivers = callsOf(journal, 'deliver');
  const authorizes = callsOf(journal, 'authorize');
  const selected = output.selected;
  const deciding = decidingVerdict(output.verdicts);
  const studentCandidate = output.proposer === 'student' ? output.candidate.parsed?.raw : undefined;

  // ── I1: only the selected decision reaches history, delivery and execution ──────────────────
  if (commits.length > 1) v.push(`I1: ${commits.length} commits in one round`);
  for (const c of commits) {
    if (!selected) v.push('I1: a decision was committed but none was selected');
    else if (!same(c.input.decision, selected.decision) || c.input.source !== selected.source) v.push('I1: the committed decision is not the selected one');
  }
  for (const c of [...executes, ...delivers]) {
    if (!selected || !same(c.input.decision, selected.decision)) v.push(`I1: ${c.effect} was given a decision other than the selected one`);
  }
  for (const e of events) {
    if ((e.type === 'decision.committed' || e.type === 'response.delivered' || e.type === 'decision.selected') && !same(e.decision, selected?.decision)) {
      v.push(`I1: ${e.type} carries a decision other than the selected one`);
    }
  }
  const candidateOverruled = deciding?.verdict !== undefined && deciding.verdict.verdict !== 'accept';
  if (candidateOverruled && studentCandidate !== undefined) {
    for (const c of [...commits, ...executes, ...delivers]) {
      if (same(c.input.decision, studentCandidate)) v.push(`I1: the overruled student candidate reached ${c.effect}`);
    }
  }
  const authorizedOk = events.some((e) => e.type === 'decision.authorized' && e.authorization.ok);
  if (commits.length > 0 && !authorizedOk) v.push('I1: committed without a successful authorization');

  // The candidate itself is validated exactly as the pure function says.
  if (output.candidate.reply) {
    const recomputed = validateCandidate(parseCandidate(output.candidate.reply), input.snapshot, input.constraints).result;
    if (!same(recomputed, output.validation)) v.push('I3: the recorded candidate validation differs from validateCandidate');
  }

  // ── I2: no tool executes without a selected, validated, authorized, committed decision ───────
  for (const x of executes) {
    const at = journal.indexOf(x);
    const authIdx = indexOfEvent(journal, (e) => e.type === 'decision.authorized' && e.authorization.ok && e.authorization.idempotency_key === x.input.idempotency_key);
    if (authIdx < 0 || authIdx > at) v.push('I2: execute without a prior successful authorization for its idempotency key');
    const commitIdx = indexOfEvent(journal, (e) => e.type === 'decision.committed' && same(e.decision, x.input.decision));
    if (commitIdx < 0 || commitIdx > at) v.push('I2: execute before its decision was committed');
    if (!commits.some((c) => c.settled?.kind === 'done' && same(c.input.decision, x.input.decision))) v.push('I2: execute without a successful commit of the same decision');
    const revalidated = validateCandidate(candidateFromValue(x.input.decision), input.snapshot, input.constraints);
    if (!revalidated.result.ok) v.push('I2: the executed decision fails validateCandidate');
    const snapTool = input.snapshot.tools.find((t) => t.name === x.input.decision.tool_name);
    if (!same(x.input.tool, snapTool)) v.push('I2: execute was given a tool other than the snapshotted one');
    const factsCall = authorizes.at(-1);
    const factsParsed = AuthorizationFacts.safeParse(factsCall?.settled?.kind === 'done' ? factsCall.settled.output : undefined);
    if (!factsParsed.success) v.push('I2: execute without authorization facts');
    else {
      // A person's approval (a preselected round) reviews the decision as a verdict does.
    const approvedByPerson = input.preselected !== undefined && output.selected?.source === 'human';
    const reviewed = approvedByPerson || output.proposer === 'teacher' || deciding?.verdict?.verdict === 'accept' || deciding?.verdict?.verdict === 'replace';
      const ruling = authorizeDecision({ decision: x.input.decision, tool: snapTool, reviewed, facts: factsParsed.data });
      if (!ruling.ok) v.push(`I2: execute although the pure ruling denies it (${ruling.reason})`);
    }
  }
  for (const d of delivers) {
    // Typed as a control decision, but that is what is being checked: read it as any decision.
    if ((d.input.decision as Decision).decision_type === 'tool_call') v.push('I2: a tool call was delivered instead of executed');
    if (!commits.some((c) => c.settled?.kind === 'done')) v.push('I2: delivered without a successful commit');
  }

  // ── I3: a replacement passes exactly the student's validation; invalid ones are never selected ─
  for (const a of output.verdicts) {
    if (a.verdict?.verdict !== 'replace') continue;
    const recomputed = validateCandidate(candidateFromValue(a.verdict.replacement), input.snapshot, input.constraints).result;
    if (!same(recomputed, a.replacement_validation)) v.push(`I3: attempt ${a.attempt}'s replacement validation differs from validateCandidate`);
    if (a.usable !== recomputed.ok) v.push(`I3: attempt ${a.attempt} usable=${a.usable} but its replacement validation ok=${recomputed.ok}`);
    if (!recomputed.ok && selected && same(selected.decision, candidateFromValue(a.verdict.replacement).raw)) {
      v.push(`I3: attempt ${a.attempt}'s invalid replacement was selected`);
    }
  }
  if (selected && output.proposer === 'student' && selected.source === 'teacher') {
    if (deciding?.verdict?.verdict !== 'replace' || !same(selected.decision, deciding.verdict.replacement)) v.push('I3: a teacher decision was selected without a usable replace verdict carrying it');
    if (!validateCandidate(candidateFromValue(selected.decision), input.snapshot, input.constraints).result.ok) v.push('I3: the selected replacement fails validateCandidate');
  }
  if (selected && !Decision.safeParse(selected.decision).success) v.push('I3: the selected decision does not satisfy the Decision schema');
  for (const a of output.verdicts) {
    if (a.usable && a.verdict?.verdict === 'accept' && output.validation?.ok !== true) v.push('I3: a teacher accepted an invalid candidate and it was usable');
  }

  // ── I4: protected effects are reviewed; confirmation tools need the user ──────────────────────
  for (const x of executes) {
    const tool = input.snapshot.tools.find((t) => t.name === x.input.decision.tool_name);
    const effect = tool?.effect.effect ?? 'unknown';
    // A person's approval (a preselected round) reviews the decision as a verdict does.
    const approvedByPerson = input.preselected !== undefined && output.selected?.source === 'human';
    const reviewed = approvedByPerson || output.proposer === 'teacher' || deciding?.verdict?.verdict === 'accept' || deciding?.verdict?.verdict === 'replace';
    if (isProtectedEffect(effect) && !reviewed) v.push(`I4: protected effect ${effect} executed without a teacher verdict selecting it`);
    // A call made before, its result given again (I5 checks it is one), runs nothing: the person who confirmed it then is not asked twice.
    if ((tool?.effect.requires_user_confirmation ?? true) && x.input.recorded_result !== true) {
      const last = authorizes.at(-1)?.settled;
      const confirmation = last?.kind === 'done' ? (last.output as { confirmation?: string }).confirmation : undefined;
      if (confirmation !== 'granted') v.push(`I4: ${x.input.decision.tool_name} requires the user's confirmation but executed with ${confirmation ?? 'none'}`);
    }
  }

  // ── I7: a final answer after a refusal is never delivered unreviewed, and its reviewer sees the facts ─
  const refusedBefore = (input.claims?.refused ?? []).some((r) => r.how !== 'approved_by_person');
  if (refusedBefore) {
    for (const d of delivers) {
      const type = (d.input.decision as Decision).decision_type;
      if ((type === 'complete' || type === 'present_result') && selected?.source === 'student' && deciding?.verdict?.verdict !== 'accept') {
        v.push(`I7: a student's ${type} after a refusal was delivered without a teacher accepting it`);
      }
    }
    const finalCandidate = Decision.safeParse(studentCandidate);
    const isFinal = finalCandidate.success && (finalCandidate.data.decision_type === 'complete' || finalCandidate.data.decision_type === 'present_result');
    for (const r of callsOf(journal, 'review')) {
      if (isFinal && output.validation?.ok === true && !same(r.input.claims, input.claims)) v.push('I7: the teacher reviewed a final answer after a refusal without the facts of what ran');
    }
  }

  // ── I5: one execution per round; a non-new ledger state never executes (a call made before with
  // its result kept reaches the host only as that result given again, never as a call) ────────────
  if (executes.length > 1) v.push(`I5: ${executes.length} executions in one round`);
  for (const x of executes) {
    const last = authorizes.at(-1)?.settled;
    const ledger = last?.kind === 'done' ? (last.output as { ledger?: string }).ledger : undefined;
    const givenAgain = ledger === 'executed' && last?.kind === 'done' && (last.output as { result_kept?: boolean }).result_kept === true;
    if (ledger !== 'new' && !givenAgain) v.push(`I5: executed although the ledger said ${ledger ?? 'nothing'}`);
    if ((x.input.recorded_result === true) !== givenAgain) v.push('I5: a call made before was asked of the host as a new call, or a new call as one given again');
    const key = last?.kind === 'done' ? (last.output as { idempotency_key?: string }).idempotency_key : undefined;
    if (key !== x.input.idempotency_key) v.push('I5: executed under a different idempotency key than the ledger checked');
  }

  // ── I6: exactly one outcome, one round.completed, events in the strict order ──────────────────
  if (trace.status !== 'done') v.push(`I6: the actor ended ${trace.status}, not done`);
  if (!(ROUND_OUTCOMES as readonly string[]).includes(output.outcome)) v.push(`I6: unknown outcome ${output.outcome}`);
  if (trace.finalValue !== output.outcome) v.push(`I6: final state ${trace.finalValue} but outcome ${output.outcome}`);
  const parsedRecord = RoundRecord.safeParse(output);
  if (!parsedRecord.success) v.push(`I6: the RoundRecord breaks its contract: ${parsedRecord.error.issues.map((i) => i.path.join('.')).join(', ')}`);
  const completed = events.filter((e) => e.type === 'round.completed');
  if (completed.length !== 1) v.push(`I6: ${completed.length} round.completed events`);
  else if (!same(completed[0]?.record, output)) v.push('I6: round.completed carries a record other than the output');
  if (events.at(-1)?.type !== 'round.completed') v.push('I6: round.completed is not the last event');
  events.forEach((e, seq) => {
    const enveloped = RunEvent.safeParse({ ...e, id: `run-test-1:${seq}`, run_id: 'run-test-1', seq, ts: '2026-01-01T00:00:00.000Z' });
    if (!enveloped.success) v.push(`I6: emitted ${e.type} breaks the RunEvent contract: ${enveloped.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  });
  v.push(...checkEventOrder(events, output.review?.required === true, output.verdicts.length, input.preselected !== undefined));
  v.push(...checkOutcomeEvidence(output.outcome, events, executes, delivers, output.reason));
  const callRanks = journal.flatMap((e) => (e.kind === 'call' ? [EFFECT_RANK[e.effect]] : []));
  if (callRanks.some((r, i) => i > 0 && r < (callRanks[i - 1] ?? 0))) v.push('I6: host effects were called out of order');
  // One proposal, plus at most max_repair_rounds repairs of an invalid candidate by the student.
  const proposes = callsOf(journal, 'propose').length;
  if (input.preselected) {
    if (proposes !== 0) v.push(`I6: a round a person decided still asked a model (${proposes} proposals)`);
    if (output.review?.required !== false || output.review.rule !== 'human_decided') v.push('I6: a round a person decided was sent for review');
  } else {
    const maxProposes = 1 + (output.proposer === 'student' ? input.supervision.max_repair_rounds : 0);
    if (proposes < 1 || proposes > maxProposes) v.push(`I6: propose called ${proposes} times (1 to ${maxProposes} allowed)`);
  }
  const repairProposals = events.filter((e) => e.type === 'candidate.proposed' && (e.attempt ?? 0) > 0).length;
  if (output.repairs.length !== repairProposals) v.push(`I6: ${output.repairs.length} repairs recorded for ${repairProposals} repair proposals`);
  if (output.repairs.some((r) => r.validation.ok)) v.push('I6: a valid candidate was sent back for repair');
  // A review stopped by CANCEL leaves no attempt; every answered one is recorded.
  const answeredReviews = callsOf(journal, 'review').filter((c) => c.settled?.kind !== 'abandoned').length;
  if (answeredReviews !== output.verdicts.length) v.push('I6: answered review calls and recorded verdict attempts disagree');
  if (output.verdicts.length > input.supervision.max_verdict_attempts) v.push('I6: more verdict attempts than max_verdict_attempts');
  return v;
}

function checkEventOrder(allEvents: BoundaryEmitted[], reviewed: boolean, verdicts: number, preselected: boolean): string[] {
  const v: string[] = [];
  let events = allEvents;
  const ranks: number[] = [];
  // A repair repeats candidate.proposed → candidate.validated (attempt ≥ 1) before the review step.
  const isRepair = (e: BoundaryEmitted) => (e.type === 'candidate.proposed' || e.type === 'candidate.validated') && (e.attempt ?? 0) > 0;
  events = events.filter((e) => !isRepair(e));
  for (const e of events) {
    if (!(e.type in EVENT_RANK)) {
      v.push(`I6: the boundary emitted an unexpected ${e.type}`);
      continue;
    }
    ranks.push(EVENT_RANK[e.type as RankedType]);
  }
  const verdictCount = ranks.filter((r) => r === 4).length;
  if (verdictCount !== verdicts) v.push(`I6: ${verdictCount} verdict.received events for ${verdicts} recorded attempts`);
  if (!reviewed && verdictCount > 0) v.push('I6: verdicts without a review being required');
  // Without verdicts, the remaining ranks must be a prefix of the strict order, then round.completed.
  const steps = ranks.filter((r) => r !== 4 && r !== 9);
  const order: readonly number[] = preselected ? PRESELECTED_ORDER : STRICT_ORDER;
  if (!steps.every((r, i) => r === order[i])) v.push(`I6: events out of the strict order: ${events.map((e) => e.type).join(' → ')}`);
  for (let i = 1; i < ranks.length; i++) {
    if ((ranks[i] ?? 0) < (ranks[i - 1] ?? 0)) v.push(`I6: ${events[i]?.type} after ${events[i - 1]?.type}`);
  }
  // Verdicts sit between review.decided and decision.selected (or the end).
  if (verdictCount > 0 && reviewed) {
    const first = ranks.indexOf(4);
    if (ranks[first - 1] !== 3) v.push('I6: the first verdict does not follow review.decided');
  }
  return v;
}

function checkOutcomeEvidence(outcome: string, events: BoundaryEmitted[], executes: EffectCall[], delivers: EffectCall[], reason?: string): string[] {
  const v: string[] = [];
  const has = (t: BoundaryEmitted['type']): boolean => events.some((e) => e.type === t);
  // A call its 2026-07-28 server paused for a person's input (issue 30): escalated to the person, its one execution unfinished.
  const paused = outcome === 'escalated' && reason === 'input_required' && executes.length === 1 && executes[0]?.settled?.kind === 'error' && delivers.length === 0 && !has('tool.executed');
  if (reason === 'input_required' && !paused) v.push('I6: a round said it waits for input without one paused call');
  const executedOk = executes.some((x) => x.settled?.kind === 'done');
  const deliveredOk = delivers.some((d) => d.settled?.kind === 'done');
  if ((outcome === 'executed') !== (has('tool.executed') && executedOk)) v.push('I6: outcome executed ⇔ a tool.executed event from a finished execution');
  if ((outcome === 'delivered') !== (has('response.delivered') && deliveredOk)) v.push('I6: outcome delivered ⇔ a response.delivered event from a finished delivery');
  if ((outcome === 'blocked' || outcome === 'escalated') && !paused && (executes.length > 0 || delivers.length > 0)) v.push(`I6: a ${outcome} round still executed or delivered`);
  if (outcome === 'escalated' && !paused && !events.some((e) => e.type === 'verdict.received' && e.attempt.verdict?.verdict === 'escalate')) v.push('I6: escalated without an escalate verdict');
  return v;
}
