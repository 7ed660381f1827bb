import { RunEvent } from '../../contracts/events';
import { canonicalJson } from '../../util/canonical-json';
import { DECISIONS_FOR_TRIGGER, MonitorDecision, PhasePlan, PlanAlternatives, type MonitorDecisionKind, type MonitorTrigger } from '../contracts';
import type { ScsEmitted } from '../machine';
import { usesUp } from '../required-action';
import { matchStopCondition } from '../stop-conditions';
import type { ScsTrace } from './replay';
import type { RoleCall, ScsJournalEntry, StepEntry } from './scripted-roles';

/**
 * The SCS controller's invariants (seed 001, DESIGN.md §5) as checks over one replayed trace: what
 * each role was asked and answered, what the run loop sent, every microstep and every event. Each
 * check re-derives what it needs from the role answers (is this answer usable for its trigger?)
 * rather than trusting the machine's context. Returns the violations; empty means all held.
 *
 * S1 the executor runs only under an approved (or read-only fail-open), schema-valid plan
 * S2 bounds: drafts per phase, replans, extensions and their size
 * S3 a bound that runs out ends blocked, with reasons and a phase_blocked event
 * S4 finished only through finish_allowed at a finish, or read-only fail-open there
 * S5 a monitor failure fails closed for write work, open with a warning for read-only work
 * S6 every event is a valid RunEvent once stamped; every usable decision is announced exactly once
 * S7 (coverage of every state and transition) is a property of all traces together: see machine.paths.test.ts
 * S8 what the monitor said reaches the committee's next draft
 * S9 rolling phases: an accepted phase (not kept going, not finishing) leads to the next phase's draft; phases count 1, 2, 3…
 * S10 a round that matches a stop condition stops the phase with its evidence and asks the monitor; no other round does
 * S11 next_required_action: a refused finish requires more work, an accept with `finish` requires the finish, a crossed decision uses it up
 * Alternatives: an approval names one of the drafted plans (`choice`) and may edit it; the plan that
 * runs is that one, edited, valid as a plan. An approval that resolves to no valid plan is refused
 * (a warning, no announcement): the student is asked once more, then it counts as a veto.
 */

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

const MONITOR_EVENT = {
  approve_plan: 'scs.student.plan_approved',
  veto_plan: 'scs.student.plan_vetoed',
  rethink_plan: 'scs.student.rethink_requested',
  accept_phase: 'scs.student.phase_accepted',
  reject_phase: 'scs.student.phase_rejected',
  finish_allowed: 'scs.student.finish_allowed',
  finish_rejected: 'scs.student.finish_rejected',
  extend_steps: 'scs.budget.extended',
  deny_extension: 'scs.budget.denied',
} as const satisfies Record<MonitorDecisionKind, ScsEmitted['type']>;
const MONITOR_EVENT_TYPES: ReadonlySet<string> = new Set(Object.values(MONITOR_EVENT));

/** Verdicts by event content: thousands of paths emit the same few hundred events. */
const contractMemo = new Map<string, string | null>();

/** Every emitted event, stamped with an envelope as the host would, against the RunEvent schema. */
export function eventContractProblems(events: readonly ScsEmitted[]): string[] {
  return events.flatMap((e, seq) => {
    const key = JSON.stringify(e);
    let problem = contractMemo.get(key);
    if (problem === undefined) {
      const stamped = RunEvent.safeParse({ ...e, id: `run-test-1:${String(seq).padStart(6, '0')}`, run_id: 'run-test-1', seq, ts: '2026-01-01T00:00:00.000Z' });
      problem = stamped.success ? null : `S6: emitted ${e.type} breaks the RunEvent contract: ${stamped.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`;
      contractMemo.set(key, problem);
    }
    return problem === null ? [] : [problem];
  });
}

const usableCache = new WeakMap<RoleCall, MonitorDecision | null>();

/** The monitor's answer if it is usable for its trigger: schema-valid and of a kind that answers it. */
export function usableAnswer(call: RoleCall): MonitorDecision | undefined {
  if (call.role !== 'monitor' || call.settled?.kind !== 'done') return undefined;
  const cached = usableCache.get(call);
  if (cached !== undefined) return cached ?? undefined;
  const parsed = MonitorDecision.safeParse(call.settled.output);
  const allowed: readonly string[] = DECISIONS_FOR_TRIGGER[call.input.trigger];
  const usable = parsed.success && allowed.includes(parsed.data.decision) ? parsed.data : undefined;
  usableCache.set(call, usable ?? null);
  return usable;
}

const draftCache = new WeakMap<RoleCall, boolean>();

/** The committee answered with a schema-valid phase plan. */
function validDraft(call: RoleCall): boolean {
  if (call.role !== 'committee' || call.settled?.kind !== 'done') return false;
  let valid = draftCache.get(call);
  if (valid === undefined) draftCache.set(call, (valid = PhasePlan.safeParse(call.settled.output).success || PlanAlternatives.safeParse(call.settled.output).success));
  return valid;
}
/** The committee answered, but not with a valid plan. */
const malformedDraft = (call: RoleCall): boolean => call.role === 'committee' && call.settled?.kind === 'done' && !validDraft(call);

/** The plan an approval resolves to (its choice among the alternatives, edited), or undefined when it is refused. */
export function approvedPlan(call: RoleCall, d: MonitorDecision): PhasePlan | undefined {
  if (call.role !== 'monitor' || d.decision !== 'approve_plan') return undefined;
  const options = call.input.alternatives && call.input.alternatives.length > 0 ? call.input.alternatives : call.input.plan ? [call.input.plan] : [];
  const chosen = options[(d.choice ?? 1) - 1];
  if (!chosen || !d.edit) return chosen;
  const edited = PhasePlan.safeParse({ ...chosen, ...d.edit });
  // Stated independently of the machine: an edit may narrow the committee's tools, never widen them.
  if (!edited.success || edited.data.allowed_tools.some((t) => !chosen.allowed_tools.includes(t))) return undefined;
  return edited.data;
}
/** A usable approval that resolves to no valid plan: refused, never announced. */
const refusedApproval = (call: RoleCall): boolean => {
  const d = usableAnswer(call);
  return d?.decision === 'approve_plan' && approvedPlan(call, d) === undefined;
};
const REFUSAL_WARNING = "The student's approval was refused";

/** The monitor was asked and could not decide: it failed, or its answer was malformed or of the wrong kind. */
const monitorFailed = (call: RoleCall): boolean => call.role === 'monitor' && call.settled !== undefined && usableAnswer(call) === undefined;

const PROGRESS_TRIGGERS: readonly MonitorTrigger[] = ['tool_failure', 'loop_guard', 'periodic', 'stop_condition', 'file_batch'];

/** accept_phase that ends the phase: neither kept going (supervisor_continue) nor finishing. */
const endsPhase = (d: MonitorDecision): boolean => d.decision === 'accept_phase' && d.next_required_action !== 'supervisor_continue' && d.next_required_action !== 'finish';

/** States the machine rests in (not transient): where a step's consequence shows. */
const RESTING = new Set(['planning', 'reviewingPlan', 'executing', 'monitoring', 'finished', 'blocked']);

export function checkScsInvariants(trace: ScsTrace): string[] {
  const v: string[] = [];
  const { input, journal } = trace;
  const { settings, writeWork } = input;
  const events = journal.flatMap((e) => (e.kind === 'event' ? [e.event] : []));
  const calls = journal.flatMap((e, i) => (e.kind === 'call' ? [{ call: e, at: i }] : []));
  const committee = calls.filter((c) => c.call.role === 'committee');
  const monitor = calls.filter((c) => c.call.role === 'monitor');
  const lastCallAt = calls.at(-1)?.at ?? -1;

  /** The first resting state the machine reached after journal index `at`. */
  const restingAfter = (at: number): StepEntry | undefined => {
    for (let i = at + 1; i < journal.length; i++) {
      const e = journal[i];
      if (e?.kind === 'step' && RESTING.has(e.value)) return e;
    }
    return undefined;
  };
  const stepsAfter = (at: number): StepEntry[] => journal.slice(at + 1).filter((e): e is StepEntry => e.kind === 'step');

  // ── S1: the executor runs only under an approved, schema-valid plan ─────────────────────────
  const approved = new Set<string>();
  const planJson = new Map<unknown, string>();
  const planKey = (phase: number, plan: unknown): string => {
    let json = planJson.get(plan);
    if (json === undefined) planJson.set(plan, (json = canonicalJson(plan)));
    return `${phase}|${json}`;
  };
  const phasesStarted = new Map<number, unknown>();
  for (const entry of journal) {
    if (entry.kind === 'call' && entry.role === 'monitor' && entry.input.trigger === 'plan' && entry.settled) {
      const d = usableAnswer(entry);
      const resolved = d ? approvedPlan(entry, d) : undefined;
      if (resolved) approved.add(planKey(entry.input.phase, resolved));
      else if (!writeWork && d === undefined) approved.add(planKey(entry.input.phase, entry.input.plan));
    }
    if (entry.kind === 'step' && entry.value === 'executing') {
      const { plan, phase } = entry.context;
      if (!plan) v.push('S1: executing without a plan');
      else if (!PhasePlan.safeParse(plan).success) v.push('S1: executing a plan that fails the PhasePlan schema');
      else if (!approved.has(planKey(phase, plan))) v.push(`S1: executing phase ${phase} under a plan the monitor never approved`);
      if (plan && !phasesStarted.has(phase)) phasesStarted.set(phase, plan);
    }
  }
  const started = events.filter((e) => e.type === 'scs.supervisor.phase_started');
  if (!same(started.map((e) => [e.phase, e.plan]), [...phasesStarted].map(([phase, plan]) => [phase, plan]))) {
    v.push('S1: scs.supervisor.phase_started does not announce exactly the phases that ran, with their plans');
  }

  // ── S2: bounds ───────────────────────────────────────────────────────────────────────────────
  const draftsByPhase = new Map<number, number[]>();
  for (const { call } of committee) {
    if (call.role !== 'committee') continue;
    draftsByPhase.set(call.input.phase, [...(draftsByPhase.get(call.input.phase) ?? []), call.input.attempt]);
  }
  for (const [phase, attempts] of draftsByPhase) {
    if (attempts.length > settings.max_committee_retries + 1) v.push(`S2: ${attempts.length} committee drafts for phase ${phase} (max ${settings.max_committee_retries + 1})`);
    if (!same(attempts, attempts.map((_, i) => i + 1))) v.push(`S2: committee attempts for phase ${phase} are ${attempts.join(',')}, not 1..n`);
  }
  if (draftsByPhase.size > settings.max_phases) v.push(`S2: ${draftsByPhase.size} phases (max ${settings.max_phases})`);
  const replansAsked = monitor.filter(({ call, at }) => {
    const d = usableAnswer(call);
    return call.role === 'monitor' && PROGRESS_TRIGGERS.includes(call.input.trigger) && (d?.decision === 'reject_phase' || d?.decision === 'rethink_plan') && committee.some((c) => c.at > at);
  }).length;
  if (replansAsked > settings.max_replans) v.push(`S2: ${replansAsked} replans (max ${settings.max_replans})`);
  const extended = events.filter((e) => e.type === 'scs.budget.extended');
  if (extended.length > settings.max_extensions) v.push(`S2: ${extended.length} extensions (max ${settings.max_extensions})`);
  let budget = input.budget;
  let extensionsSeen = 0;
  for (const entry of journal) {
    if (entry.kind === 'event' && entry.event.type === 'scs.budget.extended') {
      extensionsSeen++;
      if (entry.event.trigger !== 'budget') v.push(`S2: an extension granted at a ${entry.event.trigger} review`);
    }
    if (entry.kind !== 'step') continue;
    const now = entry.context.budget;
    if (now !== budget) {
      if (now < budget) v.push(`S2: the budget shrank from ${budget} to ${now}`);
      if (now - budget > settings.extension_rounds) v.push(`S2: the budget grew by ${now - budget} at once (max ${settings.extension_rounds})`);
      if (entry.context.extensions > settings.max_extensions) v.push(`S2: ${entry.context.extensions} extensions in the context (max ${settings.max_extensions})`);
      budget = now;
    }
  }
  if (budget > input.budget + extensionsSeen * settings.extension_rounds) v.push(`S2: budget ${budget} exceeds ${input.budget} + ${extensionsSeen} × ${settings.extension_rounds}`);
  // Not asked again for the same budget after a denial (or after any budget answer).
  const budgetAsks = monitor.filter((m) => m.call.role === 'monitor' && m.call.input.trigger === 'budget').map((m) => (m.call.role === 'monitor' ? m.call.input.budget : -1));
  if (new Set(budgetAsks).size !== budgetAsks.length) v.push(`S2: the budget question was asked twice for the same budget (${budgetAsks.join(',')})`);

  // ── S3: a bound that runs out ends blocked, with reasons ──────────────────────────────────────
  let exhaustedAt: number | undefined;
  const draftsSoFar = new Map<number, number>();
  let replans = 0;
  let refusals = 0;
  for (const { call, at } of calls) {
    if (call.role === 'committee') refusals = 0;
    if (call.role === 'monitor' && call.input.trigger === 'plan' && refusedApproval(call)) {
      refusals++;
      // Refused twice: a veto of the draft.
      if (refusals === 2 && (draftsSoFar.get(call.input.phase) ?? 0) === settings.max_committee_retries + 1) exhaustedAt ??= at;
    }
    if (call.role === 'committee') {
      const n = (draftsSoFar.get(call.input.phase) ?? 0) + 1;
      draftsSoFar.set(call.input.phase, n);
      const lastChance = n === settings.max_committee_retries + 1;
      if (lastChance && malformedDraft(call)) exhaustedAt ??= at;
    } else {
      const d = usableAnswer(call);
      if (call.input.trigger === 'plan' && (d?.decision === 'veto_plan' || d?.decision === 'rethink_plan')) {
        if ((draftsSoFar.get(call.input.phase) ?? 0) === settings.max_committee_retries + 1) exhaustedAt ??= at;
      }
      if (PROGRESS_TRIGGERS.includes(call.input.trigger) && (d?.decision === 'reject_phase' || d?.decision === 'rethink_plan')) {
        if (replans >= settings.max_replans || call.input.phase >= settings.max_phases) exhaustedAt ??= at;
        replans++;
      }
      if (PROGRESS_TRIGGERS.includes(call.input.trigger) && d && endsPhase(d) && call.input.phase >= settings.max_phases) exhaustedAt ??= at;
    }
  }
  if (exhaustedAt !== undefined) {
    if (trace.finalValue !== 'blocked') v.push(`S3: a bound ran out but the controller ended in ${trace.finalValue}`);
    if (exhaustedAt !== lastCallAt) v.push('S3: a role was asked again after a bound ran out');
    if (stepsAfter(exhaustedAt).some((s) => s.value === 'executing' || s.value === 'finished')) v.push('S3: execution continued after a bound ran out');
  }
  const blockedEvents = events.filter((e) => e.type === 'scs.supervisor.phase_blocked');
  if (trace.finalValue === 'blocked') {
    const reasons = trace.context.blockedReasons;
    if (reasons.length === 0 || reasons.some((r) => r.trim() === '')) v.push('S3: blocked without reasons');
    if (blockedEvents.length !== 1) v.push(`S3: ${blockedEvents.length} phase_blocked events for one block`);
    else if (!same(blockedEvents[0]?.reasons, reasons)) v.push('S3: phase_blocked does not carry the blocked reasons');
    if (events.at(-1)?.type !== 'scs.supervisor.phase_blocked') v.push('S3: phase_blocked is not the last event');
  } else if (blockedEvents.length > 0) {
    v.push(`S3: phase_blocked emitted but the controller is ${trace.finalValue}`);
  }

  // ── S4: finished only through finish_allowed (or read-only fail-open) at a finish ─────────────
  if (trace.finalValue === 'finished') {
    const last = monitor.at(-1)?.call;
    const sent = journal.filter((e): e is Extract<ScsJournalEntry, { kind: 'sent' }> => e.kind === 'sent').at(-1);
    if (sent?.event.type !== 'FINISH_REQUESTED') v.push('S4: finished without a finish request from the executor');
    if (!last || last.role !== 'monitor' || last.input.trigger !== 'finish') v.push('S4: finished without a finish review');
    else {
      const d = usableAnswer(last);
      if (d && d.decision !== 'finish_allowed') v.push(`S4: finished on ${d.decision}`);
      if (!d && writeWork) v.push('S4: write work finished although the monitor could not decide');
    }
  }
  for (const { call, at } of monitor) {
    const d = usableAnswer(call);
    if (d?.decision === 'finish_allowed' && restingAfter(at)?.value !== 'finished') v.push('S4: finish_allowed did not finish');
    if (d?.decision === 'finish_rejected') {
      const next = restingAfter(at);
      if (next?.value !== 'executing' || next.context.finishRejection !== d.reason) v.push('S4: a rejected finish did not send the executor back with the reason');
    }
  }

  // ── S5: monitor failure: closed for write work, open with a warning for read-only work ────────
  const warnings = events.filter((e) => e.type === 'scs.warning' && !e.message.startsWith(REFUSAL_WARNING));
  const refusalWarnings = events.length - events.filter((e) => e.type !== 'scs.warning' || !e.message.startsWith(REFUSAL_WARNING)).length;
  const refused = monitor.filter((m) => refusedApproval(m.call)).length;
  if (refusalWarnings !== refused) v.push(`Alternatives: ${refusalWarnings} refusal warnings for ${refused} refused approvals`);
  const failedMonitors = monitor.filter((m) => monitorFailed(m.call));
  if (writeWork) {
    if (warnings.length > 0) v.push('S5: write work continued past a monitor failure with a warning');
    for (const { at } of failedMonitors) {
      if (restingAfter(at)?.value !== 'blocked') v.push('S5: write work did not block when the monitor failed');
      else if (!trace.context.blockedReasons.some((r) => r.endsWith('write work fails closed'))) v.push('S5: the block does not say write work fails closed');
    }
  } else {
    if (warnings.length !== failedMonitors.length) v.push(`S5: ${warnings.length} warnings for ${failedMonitors.length} monitor failures`);
    for (const { call, at } of failedMonitors) {
      const expected = call.role === 'monitor' && call.input.trigger === 'finish' ? 'finished' : 'executing';
      if (restingAfter(at)?.value !== expected) v.push(`S5: read-only work did not fail open to ${expected} (${restingAfter(at)?.value})`);
    }
  }

  // ── S6: events: the contract, and exactly one announcement per usable decision ───────────────
  v.push(...eventContractProblems(events));
  const announced = events.filter((e) => MONITOR_EVENT_TYPES.has(e.type));
  const expected = monitor.flatMap(({ call }) => {
    const d = usableAnswer(call);
    return d && call.role === 'monitor' && !refusedApproval(call) ? [{ type: MONITOR_EVENT[d.decision], phase: call.input.phase, trigger: call.input.trigger, decision: d }] : [];
  });
  const shown = announced.map((e) => ('decision' in e && 'trigger' in e ? { type: e.type, phase: e.phase, trigger: e.trigger, decision: e.decision } : e));
  if (!same(shown, expected)) v.push('S6: the monitor events do not match the usable monitor answers one to one');
  const drafted = events.filter((e) => e.type === 'scs.committee.plan_drafted');
  const answeredDrafts = committee.filter((c) => c.call.settled?.kind === 'done');
  if (drafted.length !== answeredDrafts.length) v.push(`S6: ${drafted.length} plan_drafted events for ${answeredDrafts.length} committee answers`);
  answeredDrafts.forEach(({ call }, i) => {
    const e = drafted[i];
    if (call.role !== 'committee' || call.settled?.kind !== 'done' || !e) return;
    const valid = validDraft(call);
    if (e.phase !== call.input.phase || e.attempt !== call.input.attempt) v.push('S6: plan_drafted names another phase or attempt than the committee was asked for');
    if (valid !== (e.plan !== undefined) || valid === (e.error !== undefined)) v.push('S6: plan_drafted carries a plan exactly when the draft was valid, an error otherwise');
  });

  // ── S8: what the monitor said reaches the committee's next draft ─────────────────────────────
  for (const { call, at } of calls) {
    const next = committee.find((c) => c.at > at)?.call;
    if (!next || next.role !== 'committee') continue;
    if (malformedDraft(call)) {
      if (!next.input.feedback.some((f) => f.startsWith("the committee's plan was malformed"))) v.push("S8: the committee's next draft was not told its plan was malformed");
    }
    const d = usableAnswer(call);
    if (d && ['veto_plan', 'rethink_plan', 'reject_phase'].includes(d.decision) && !next.input.feedback.includes(d.reason)) {
      v.push(`S8: the committee's next draft was not given the monitor's ${d.decision} reason`);
    }
  }

  // ── S9: rolling phases ───────────────────────────────────────────────────────────────────────
  for (const { call, at } of monitor) {
    const d = usableAnswer(call);
    if (!d || call.role !== 'monitor' || !PROGRESS_TRIGGERS.includes(call.input.trigger) || !endsPhase(d) || call.input.phase >= settings.max_phases) continue;
    if (restingAfter(at)?.value !== 'planning') v.push('S9: an accepted phase did not send the committee to draft the next one');
    const next = committee.find((c) => c.at > at)?.call;
    if (next?.role === 'committee' && (next.input.phase !== call.input.phase + 1 || next.input.attempt !== 1)) v.push('S9: the next milestone was not drafted as the next phase, first attempt');
  }
  if (!same(started.map((e) => e.phase), started.map((_, i) => i + 1))) v.push(`S9: phases started as ${started.map((e) => e.phase).join(',')}, not 1, 2, 3…`);

  // ── S10: stop conditions ─────────────────────────────────────────────────────────────────────
  const stopped = events.filter((e) => e.type === 'scs.supervisor.phase_stopped');
  let expectedStops = 0;
  journal.forEach((entry, i) => {
    if (entry.kind !== 'sent' || entry.event.type !== 'ROUND_DONE') return;
    const after = stepsAfter(i)[0];
    if (!after?.context.plan) return;
    const match = matchStopCondition(after.context.plan.stop_conditions, after.context.facts.slice(after.context.phaseStart));
    const nextCall = calls.find((c) => c.at > i)?.call;
    if (match) {
      expectedStops++;
      if (nextCall?.role !== 'monitor' || nextCall.input.trigger !== 'stop_condition') v.push('S10: a matched stop condition did not ask the monitor (trigger stop_condition)');
      if (!stopped.some((e) => e.condition === match.condition && same(e.evidence, match.evidence) && e.round === match.round)) v.push('S10: a matched stop condition was not announced with its evidence');
    } else if (restingAfter(i)?.value === 'monitoring' && restingAfter(i)?.context.trigger === 'stop_condition') {
      v.push('S10: the phase stopped on a round that matches no stop condition');
    }
  });
  if (stopped.length !== expectedStops) v.push(`S10: ${stopped.length} phase_stopped events for ${expectedStops} matched rounds`);

  // ── S11: next_required_action ────────────────────────────────────────────────────────────────
  for (const { call, at } of monitor) {
    const d = usableAnswer(call);
    const next = restingAfter(at);
    if (d?.decision === 'finish_rejected' && next?.value === 'executing' && next.context.required?.kind !== 'execute') v.push('S11: a refused finish does not require more work first');
    if (d?.decision === 'accept_phase' && d.next_required_action === 'finish' && next?.value === 'executing' && next.context.required?.kind !== 'finish') v.push('S11: an accept with next_required_action finish does not require the finish');
  }
  journal.forEach((entry, i) => {
    if (entry.kind === 'sent' && entry.event.type === 'ROUND_DONE' && usesUp(entry.event.fact) && stepsAfter(i)[0]?.context.required !== undefined) v.push('S11: a decision that crossed the boundary did not use the requirement up');
  });

  return v;
}
