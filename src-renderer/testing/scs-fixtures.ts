import type { Decision } from '@shared/contracts/decision';
import type { RoundRecord } from '@shared/contracts/round';
import { roundNumber } from '@shared/contracts/round-number';
import type { ChangedFile, MonitorDecision, MonitorTrigger, PhasePlan } from '@shared/scs/contracts';
import { eventLog, finishRun, readExecutedRound, startRun, type EventLog } from './event-fixtures';

/**
 * SCS event logs in the order the host emits them (src-main/scs/scs-controller.ts, run-agent.ts):
 * every committee or monitor reply is a `scs.transcript` right before the event it decided; the
 * plan gate runs after round 0's tool snapshot and before its `round.started`; the finish gate runs
 * inside the round, between `decision.selected` and `decision.authorized`.
 */

export const SUMMARY_PLAN: PhasePlan = {
  phase_goal: 'Write summary.md from the meeting notes',
  plan: ['Read the meeting notes', 'Draft the summary with owners', 'Write summary.md'],
  acceptance_criteria: ['summary.md exists', 'summary.md lists every action item with its owner'],
  allowed_tools: ['read_text_file', 'write_file'],
  stop_conditions: ['the notes cannot be found'],
};

const TOOLS = [
  { name: 'read_text_file', server: 'fs', schema_hash: 'hash-read-0001', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', server: 'fs', schema_hash: 'hash-write-0001', effect: 'reversible_write', effect_source: 'shipped' },
] as const;

function reply(value: unknown) {
  return { text: JSON.stringify(value), tool_calls: [], model: 'replay' };
}

export function snapshot(log: EventLog, round: number): void {
  log.add({ type: 'tools.snapshot', round, hash: `snap-${round}-000000`, tools: [...TOOLS] });
}

/** `plan` null: the committee's reply was not a usable plan. */
export function committeeDrafts(log: EventLog, phase: number, attempt: number, plan: PhasePlan | null = SUMMARY_PLAN): void {
  const text = plan ? JSON.stringify(plan) : 'I would read the notes first.';
  log.add({ type: 'scs.transcript', role: 'committee', phase, messages: [{ role: 'system', content: 'You are the committee…' }, { role: 'user', content: `Phase ${phase}, draft ${attempt}.` }], reply: text });
  log.add({ type: 'scs.committee.plan_drafted', phase, attempt, plan: plan ?? undefined, error: plan ? undefined : "the committee's plan was malformed: plan: expected object" });
}

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
} as const;

export function monitorDecides(log: EventLog, phase: number, trigger: MonitorTrigger, decision: MonitorDecision, budget = 8): void {
  log.add({ type: 'scs.transcript', role: 'monitor', phase, trigger, messages: [{ role: 'system', content: `You are the student (monitor)… asked because of: ${trigger}` }, { role: 'user', content: 'Evidence (latest last): …' }], reply: JSON.stringify(decision) });
  log.add({ type: MONITOR_EVENT[decision.decision], phase, trigger, decision, budget });
}

/** The runtime stopped `phase` because round `round`'s result matched its stop condition; the evidence is the last event (returned). */
export function phaseStops(log: EventLog, phase: number, round: number, changed_files: ChangedFile[] = []): string {
  const evidence = log.events.at(-1)?.id ?? '';
  log.add({
    type: 'scs.supervisor.phase_stopped',
    phase,
    round,
    condition: 'the notes are missing ("ENOENT")',
    matched: `the result of round ${roundNumber(round)} contains "ENOENT"`,
    evidence: [evidence],
    changed_files,
  });
  return evidence;
}

/** SCS on, the committee's plan approved, phase 1 started — all before round 0 starts. */
export function scsStart(log: EventLog, opts: { mode?: 'on' | 'auto'; reason?: string } = {}): void {
  startRun(log);
  snapshot(log, 0);
  log.add({ type: 'scs.enabled', mode: opts.mode ?? 'on', active: true, reason: opts.reason ?? 'SCS is on', model: 'replay' });
  committeeDrafts(log, 1, 1);
  monitorDecides(log, 1, 'plan', { decision: 'approve_plan', confidence: 0.82, evidence: [], reason: 'Reads before writing; the criteria are observable.', next_required_action: 'supervisor_execute' });
  log.add({ type: 'scs.supervisor.phase_started', phase: 1, plan: SUMMARY_PLAN });
}

const MISSING_READ: Decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'notes.md' } };

/** A read of a file that is not there: executed, but the tool reported an error. */
export function failedReadRound(log: EventLog, round: number, opts: { snapshot?: boolean } = {}): void {
  if (opts.snapshot !== false) snapshot(log, round);
  log.add({ type: 'round.started', round, proposer: 'student' });
  const candidate = { reply: reply(MISSING_READ), parsed: { raw: MISSING_READ, tool_call_count: 1 } };
  log.add({ type: 'candidate.proposed', round, attempt: 0, ...candidate });
  const validation = { ok: true, issues: [], schema_hash: 'hash-read-0001' };
  log.add({ type: 'candidate.validated', round, attempt: 0, validation });
  log.add({ type: 'review.decided', round, review: { required: false, rule: 'not_required' } });
  log.add({ type: 'decision.selected', round, source: 'student', decision: MISSING_READ });
  const key = `idem-${log.runId}-${round}`;
  log.add({ type: 'decision.authorized', round, authorization: { ok: true, idempotency_key: key } });
  log.add({ type: 'decision.committed', round, history_index: round, decision: MISSING_READ });
  const execution = { server: 'fs', tool: 'read_text_file', arguments: { path: 'notes.md' }, idempotency_key: key, ok: true, is_error: true, content: 'ENOENT: no such file or directory', duration_ms: 3 };
  log.add({ type: 'tool.executed', round, execution });
  const record: RoundRecord = {
    round,
    proposer: 'student',
    candidate,
    repairs: [],
    validation,
    review: { required: false, rule: 'not_required' },
    verdicts: [],
    selected: { source: 'student', decision: MISSING_READ },
    authorization: { ok: true, idempotency_key: key },
    history_index: round,
    execution,
    outcome: 'executed',
  };
  log.add({ type: 'round.completed', round, record });
}

/**
 * The executor asks to finish; the monitor rules inside the round. Refused: the round is blocked
 * (`finish_rejected`) and nothing reaches history. Allowed: the `complete` is delivered.
 */
export function finishRound(log: EventLog, round: number, monitor: MonitorDecision | 'stop_before_ruling', output = 'Done.'): void {
  snapshot(log, round);
  log.add({ type: 'round.started', round, proposer: 'student' });
  const decision: Decision = { decision_type: 'complete', output };
  const candidate = { reply: reply(decision), parsed: { raw: decision, tool_call_count: 0 } };
  log.add({ type: 'candidate.proposed', round, attempt: 0, ...candidate });
  log.add({ type: 'candidate.validated', round, attempt: 0, validation: { ok: true, issues: [] } });
  log.add({ type: 'review.decided', round, review: { required: false, rule: 'not_required' } });
  log.add({ type: 'decision.selected', round, source: 'student', decision });
  if (monitor === 'stop_before_ruling') return;
  monitorDecides(log, 1, 'finish', monitor);
  const base = { round, proposer: 'student' as const, candidate, repairs: [], validation: { ok: true, issues: [] }, review: { required: false, rule: 'not_required' as const }, verdicts: [], selected: { source: 'student' as const, decision } };
  if (monitor.decision === 'finish_rejected') {
    const authorization = { ok: false as const, reason: 'finish_rejected' as const, message: 'the monitor has not seen evidence that the acceptance criteria are met; the run goes on' };
    log.add({ type: 'decision.authorized', round, authorization });
    log.add({ type: 'round.completed', round, record: { ...base, authorization, outcome: 'blocked', reason: 'finish_rejected', message: authorization.message } });
    return;
  }
  log.add({ type: 'decision.authorized', round, authorization: { ok: true } });
  log.add({ type: 'decision.committed', round, history_index: round, decision });
  log.add({ type: 'response.delivered', round, decision });
  log.add({ type: 'round.completed', round, record: { ...base, authorization: { ok: true }, history_index: round, outcome: 'delivered' } });
}

export const FINISH_REFUSED: MonitorDecision = {
  decision: 'finish_rejected',
  confidence: 0.9,
  evidence: ['round 1: read_text_file notes.md failed (no such file)'],
  reason: 'The read failed and summary.md does not exist: no evidence for either criterion.',
  next_required_action: 'supervisor_continue',
};

/** The seed's regression case (resources/examples/scs-summary.json), event for event. */
export function summaryRegressionRun(runId = 'run-scs-0001'): EventLog {
  const log = eventLog(runId);
  scsStart(log);
  failedReadRound(log, 0, { snapshot: false });
  monitorDecides(log, 1, 'tool_failure', { decision: 'accept_phase', confidence: 0.7, evidence: [log.events.at(-1)?.id ?? ''], reason: 'The file name was wrong; the notes are in the folder. Continue.', next_required_action: 'supervisor_continue' });
  finishRound(log, 1, FINISH_REFUSED);
  readExecutedRound(log, 2);
  // The host refuses a finish_allowed that cites nothing (src-shared/scs/machine.ts).
  const executed = log.events.findLast((e) => e.type === 'tool.executed')?.id ?? '';
  finishRound(log, 3, { decision: 'finish_allowed', confidence: 0.88, evidence: [executed, 'summary.md lists every action item with its owner'], reason: 'summary.md was written with the four action items and their owners.', next_required_action: 'finish' }, 'summary.md lists the four action items with owners.');
  finishRun(log, 'completed', 4, 'summary.md lists the four action items with owners.');
  return log;
}
