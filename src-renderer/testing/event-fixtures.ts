import { RunEvent, eventId, type RunEventPayload } from '@shared/contracts/events';
import type { Decision } from '@shared/contracts/decision';
import type { RoundRecord } from '@shared/contracts/round';
import type { TeacherVerdict } from '@shared/contracts/verdict';
import type { HumanAnswer } from '@shared/contracts/intervention';

/**
 * Event logs shaped exactly as the host emits them (the boundary machine's order), validated with
 * the real RunEvent schema, for the renderer's data-layer tests.
 */
export interface EventLog {
  readonly runId: string;
  readonly events: RunEvent[];
  add(payload: RunEventPayload): RunEvent;
}

export function eventLog(runId: string): EventLog {
  const events: RunEvent[] = [];
  return {
    runId,
    events,
    add(payload) {
      const seq = events.length;
      const event = RunEvent.parse({ ...payload, id: eventId(runId, seq), run_id: runId, seq, ts: new Date(Date.UTC(2026, 0, 5, 9, 0, seq)).toISOString() });
      events.push(event);
      return event;
    },
  };
}

const TOOLS = [
  { name: 'read_text_file', server: 'fs', schema_hash: 'hash-read-0001', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', server: 'fs', schema_hash: 'hash-write-0001', effect: 'reversible_write', effect_source: 'shipped' },
] as const;

export function startRun(log: EventLog, opts: { supervision?: boolean } = {}): void {
  log.add({
    type: 'run.started',
    spec_id: 'notes-cleanup',
    spec_name: 'Tidy the notes folder',
    task: 'Summarise notes/todo.md into notes/summary.md',
    supervision: {
      enabled: opts.supervision ?? true,
      phase: 3,
      rules: { validation_failed: true, sample_rate: 0, sample_seed: 0, complete: false, tools: [] },
      max_repair_rounds: 1,
      max_verdict_attempts: 2,
      on_block: 'fail',
      safe_message: 'I could not complete this safely. Nothing was changed.',
      on_escalate: 'teacher_takeover',
      takeover_rounds: 3,
    },
    exposure: [],
    profiles: {},
    dry_run: false,
    models: { student: 'replay', teacher: 'replay' },
  });
}

function reply(value: unknown, model = 'replay') {
  return { text: JSON.stringify(value), tool_calls: [], model };
}

function parsed(value: unknown) {
  const isTool = typeof value === 'object' && value !== null && (value as { decision_type?: unknown }).decision_type === 'tool_call';
  return { raw: value, tool_call_count: isTool ? 1 : 0 };
}

function openRound(log: EventLog, round: number, candidate: unknown, text?: string) {
  log.add({ type: 'tools.snapshot', round, hash: `snap-${round}-000000`, tools: [...TOOLS] });
  log.add({ type: 'round.started', round, proposer: 'student' });
  const r = text === undefined ? reply(candidate) : { text, tool_calls: [], model: 'replay' };
  const p = text === undefined ? parsed(candidate) : { raw: text, tool_call_count: 0, parse_error: 'not valid JSON' };
  log.add({ type: 'candidate.proposed', round, reply: r, parsed: p });
  return { reply: r, parsed: p };
}

export const READ_CALL: Decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'notes/todo.md' } };
export const BAD_WRITE: Decision = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: '/etc/hosts', content: 'oops' } };
export const GOOD_WRITE: Decision = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'notes/summary.md', content: '- buy milk' } };

/**
 * A read: valid, no review required (not protected), selected, executed. `givenAgain`: the call was made before
 * a stop cut the run's node off, and the result it got then is given again.
 */
export function readExecutedRound(log: EventLog, round: number, opts: { complete?: boolean; givenAgain?: boolean } = {}): void {
  const cand = openRound(log, round, READ_CALL);
  const validation = { ok: true, issues: [], schema_hash: 'hash-read-0001' };
  log.add({ type: 'candidate.validated', round, validation });
  log.add({ type: 'review.decided', round, review: { required: false, rule: 'not_required' } });
  log.add({ type: 'decision.selected', round, source: 'student', decision: READ_CALL });
  const key = `idem-${log.runId}-${round}`;
  const authorization = { ok: true as const, idempotency_key: key, ...(opts.givenAgain ? { recorded_result: true as const } : {}) };
  log.add({ type: 'decision.authorized', round, authorization });
  log.add({ type: 'decision.committed', round, history_index: round, decision: READ_CALL });
  const execution = {
    server: 'fs',
    tool: 'read_text_file',
    arguments: { path: 'notes/todo.md' },
    idempotency_key: key,
    ok: true,
    is_error: false,
    content: '- buy milk\n- call Ada',
    duration_ms: opts.givenAgain ? 0 : 4,
  };
  log.add({ type: 'tool.executed', round, execution });
  if (opts.complete === false) return;
  const record: RoundRecord = {
    round,
    proposer: 'student',
    candidate: cand,
    repairs: [],
    validation,
    review: { required: false, rule: 'not_required' },
    verdicts: [],
    selected: { source: 'student', decision: READ_CALL },
    authorization,
    history_index: round,
    execution,
    outcome: 'executed',
  };
  log.add({ type: 'round.completed', round, record });
}

/** A protected write the teacher replaces; the replacement is validated, selected and executed. */
export function writeReplacedRound(log: EventLog, round: number): void {
  const cand = openRound(log, round, BAD_WRITE);
  const validation = { ok: true, issues: [], schema_hash: 'hash-write-0001' };
  log.add({ type: 'candidate.validated', round, validation });
  const review = { required: true, rule: 'protected_effect' } as const;
  log.add({ type: 'review.decided', round, review });
  const verdict: TeacherVerdict = {
    verdict: 'replace',
    reason_codes: ['unsafe_effect', 'off_task'],
    explanation: 'Writes outside the workspace; write the summary file instead.',
    replacement: GOOD_WRITE,
  };
  const attempt = { attempt: 1, reply: reply(verdict), verdict, replacement_validation: { ok: true, issues: [], schema_hash: 'hash-write-0001' }, usable: true };
  log.add({ type: 'verdict.received', round, attempt });
  log.add({ type: 'decision.selected', round, source: 'teacher', decision: GOOD_WRITE });
  const key = `idem-${log.runId}-${round}`;
  log.add({ type: 'decision.authorized', round, authorization: { ok: true, idempotency_key: key } });
  log.add({ type: 'decision.committed', round, history_index: round, decision: GOOD_WRITE });
  const execution = { server: 'fs', tool: 'write_file', arguments: GOOD_WRITE.decision_type === 'tool_call' ? GOOD_WRITE.arguments : {}, idempotency_key: key, ok: true, is_error: false, content: 'Successfully wrote to notes/summary.md', duration_ms: 6 };
  log.add({ type: 'tool.executed', round, execution });
  log.add({
    type: 'round.completed',
    round,
    record: {
      round,
      proposer: 'student',
      candidate: cand,
      repairs: [],
      validation,
      review,
      verdicts: [attempt],
      selected: { source: 'teacher', decision: GOOD_WRITE },
      authorization: { ok: true, idempotency_key: key },
      history_index: round,
      execution,
      outcome: 'executed',
    },
  });
  log.add({
    type: 'learning.example',
    kind: 'review',
    round,
    context: [],
    student_candidate: BAD_WRITE,
    verdict,
    final_decision: GOOD_WRITE,
    reason_codes: ['unsafe_effect', 'off_task'],
    agreement: false,
    models: { student: 'replay', teacher: 'replay' },
  });
}

/** A protected write the teacher blocks after one malformed (re-asked) verdict. */
export function blockedRound(log: EventLog, round: number): void {
  const cand = openRound(log, round, BAD_WRITE);
  const validation = { ok: true, issues: [], schema_hash: 'hash-write-0001' };
  log.add({ type: 'candidate.validated', round, validation });
  const review = { required: true, rule: 'protected_effect' } as const;
  log.add({ type: 'review.decided', round, review });
  const malformed = { attempt: 1, reply: { text: 'sure, looks fine', tool_calls: [], model: 'replay' }, usable: false, problem: 'malformed verdict: not valid JSON' };
  log.add({ type: 'verdict.received', round, attempt: malformed });
  const verdict: TeacherVerdict = { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'Overwrites a system file.' };
  const block = { attempt: 2, reply: reply(verdict), verdict, usable: true };
  log.add({ type: 'verdict.received', round, attempt: block });
  log.add({
    type: 'round.completed',
    round,
    record: {
      round,
      proposer: 'student',
      candidate: cand,
      repairs: [],
      validation,
      review,
      verdicts: [malformed, block],
      outcome: 'blocked',
      reason: 'verdict_block',
      message: 'Overwrites a system file.',
    },
  });
}

/**
 * A protected write the teacher escalates to a person: the round ends escalated and the run waits
 * (intervention.requested); with `answer`, the person's answer follows.
 */
export function escalatedRound(log: EventLog, round: number, answer?: HumanAnswer): void {
  const cand = openRound(log, round, GOOD_WRITE);
  const validation = { ok: true, issues: [], schema_hash: 'hash-write-0001' };
  log.add({ type: 'candidate.validated', round, validation });
  const review = { required: true, rule: 'protected_effect' } as const;
  log.add({ type: 'review.decided', round, review });
  const verdict: TeacherVerdict = { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve writing the summary.' };
  const attempt = { attempt: 1, reply: reply(verdict), verdict, usable: true };
  log.add({ type: 'verdict.received', round, attempt });
  log.add({
    type: 'round.completed',
    round,
    record: { round, proposer: 'student', candidate: cand, repairs: [], validation, review, verdicts: [attempt], outcome: 'escalated', reason: 'verdict_escalate', message: verdict.explanation },
  });
  const id = `${log.runId}:iv:${round}`;
  log.add({
    type: 'intervention.requested',
    round,
    intervention: { id, run_id: log.runId, round, kind: 'escalation', decision: GOOD_WRITE, reason: verdict.explanation, reason_codes: ['policy_violation'], options: ['approve', 'reject', 'takeover', 'stop'], requested_at: new Date(Date.UTC(2026, 0, 5, 9, 1)).toISOString() },
  });
  if (answer) log.add({ type: 'intervention.answered', round, intervention_id: id, answer });
}

/** Unparseable student output with review of invalid candidates off: the round fails. */
export function invalidCandidateRound(log: EventLog, round: number): void {
  const cand = openRound(log, round, undefined, 'I think I should read the file');
  const validation = { ok: false, issues: [{ code: 'unparseable' as const, message: 'not valid JSON' }] };
  log.add({ type: 'candidate.validated', round, validation });
  const review = { required: false, rule: 'invalid_not_reviewed' } as const;
  log.add({ type: 'review.decided', round, review });
  log.add({
    type: 'round.completed',
    round,
    record: {
      round,
      proposer: 'student',
      candidate: cand,
      repairs: [],
      validation,
      review,
      verdicts: [],
      outcome: 'failed',
      reason: 'invalid_candidate',
      message: "the student's decision failed validation: unparseable: not valid JSON",
    },
  });
}

export function finishRun(log: EventLog, status: 'completed' | 'failed' | 'blocked', rounds: number, output?: string): RunEvent {
  return log.add({ type: 'run.finished', status, output, rounds, event_count: log.events.length + 1 });
}
