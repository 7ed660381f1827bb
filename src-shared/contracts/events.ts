import { z } from 'zod';
import { Decision } from './decision';
import { ChatMessage, ModelReply, ModelUsage } from './model';
import { LearningContextRef, LearningKind } from './learning-export';
import { ChangedFile, MonitorDecision, MonitorTrigger, PhasePlan, ScsMode } from '../scs/contracts';
import { HumanAnswer, Intervention } from './intervention';
import { ProfileVersionRef } from './profiles';
import { EffectClass, EffectSource } from './tool-effect';
import { Proposer, RoundRecord, Selector, ToolExecution, VerdictAttempt } from './round';
import { TeacherVerdict, ReasonCode } from './verdict';
import { SupervisionSpec } from './spec';
import { TakenRoute } from './routes';
import { ParsedCandidate } from '../boundary/parse-candidate';
import { ValidationResult } from './validation-result';
import { ReviewDecision, ReviewRule } from '../policy/review-policy';
import { DataExposure } from '../policy/privacy';
import { ModelAnswered, ModelCalled } from './model-call';
import { McpCalled } from './server-call';
import { A2aCalled } from './a2a-call';
import { Authorization } from '../boundary/authorization';
import { InvocationStatus, Lineage, NodeFailure } from '../workflow/invocation';
import { Escalation, SupervisorVerdict } from '../supervisor/contracts';
import { JudgmentRecord, PATTERN_STATUSES } from '../pattern/contracts';
import { PartialFailure, partialStatusLabel, type PartialCounts } from '../workflow/partial-failure';
import { TrialNode, TrialReport, TrialRound } from '../learning/trial-contract';

export const RUN_STATUSES = [
  'running',
  /** Paused for a person (escalation to human handling, a tool confirmation); not final. */
  'waiting',
  'completed',
  /**
   * A workflow run that got its outputs while some of its work failed (an iterate item an assert
   * refused): not a success (issue 28). Its run.finished says how many items failed and where.
   */
  'completed_with_failures',
  /** Completed, but the final answer followed a refused call nobody checked it against (issue 10). */
  'unverified',
  'failed',
  'blocked',
  'escalated',
  'needs_input',
  'rerouted',
  'cancelled',
  /**
   * A person declined a call the run could not do without ("Don't run it" on a workflow step, or
   * `--no-confirm`): what they decided, not a failure of the system (issue 28). Before this status
   * existed such a run ended `failed` with the node's `declined_by_person` failure.
   */
  'declined',
  /**
   * A person answered "Stop the run" (a confirmation, a question, a workflow step): they ended it,
   * it did not fail (issue 28). Before this status existed such a run ended `cancelled`.
   */
  'stopped',
  'max_rounds',
  /** The host stopped (crash, kill, power) while the run was in progress. */
  'interrupted',
] as const;
export const RunStatus = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatus>;
export type FinalRunStatus = Exclude<RunStatus, 'running' | 'waiting'>;

export const RUN_STATUS_LABELS = {
  running: 'Running',
  waiting: 'Waiting for you',
  completed: 'Completed',
  completed_with_failures: 'Completed with failures',
  unverified: 'Completed — unverified',
  failed: 'Failed',
  blocked: 'Blocked',
  escalated: 'Escalated',
  needs_input: 'Needs your input',
  rerouted: 'Rerouted',
  cancelled: 'Cancelled',
  declined: 'Declined by you',
  stopped: 'Stopped by you',
  max_rounds: 'Round limit reached',
  interrupted: 'Interrupted',
} satisfies Record<RunStatus, string>;

/**
 * A run's status in words, on every screen and in the CLI. A workflow run that completed after its
 * supervisor's verdicts were applied reads "Completed — supervised": seed 004's derived display
 * state, from the run's `supervisor.verdict` events, not a status the host sets.
 */
export function runStatusLabel(status: RunStatus, supervised = false, partial?: PartialCounts): string {
  // A run that lost work says how much, whoever supervised it: "Completed · 1 of 5 items failed".
  if (status === 'completed_with_failures' && partial) return partialStatusLabel(partial);
  return supervised && status === 'completed' ? 'Completed — supervised' : RUN_STATUS_LABELS[status];
}

const round = z.number().int().nonnegative();

const SCS_MONITOR_EVENTS = [
  'scs.student.plan_approved',
  'scs.student.plan_vetoed',
  'scs.student.rethink_requested',
  'scs.student.phase_accepted',
  'scs.student.phase_rejected',
  'scs.student.finish_allowed',
  'scs.student.finish_rejected',
  'scs.budget.extended',
  'scs.budget.denied',
] as const;

const envelope = {
  /** `${run_id}:${seq}`: deterministic, so a replay is idempotent by key. */
  id: z.string().min(8),
  run_id: z.string().min(8),
  seq: z.number().int().nonnegative(),
  ts: z.string(),
};

/** A text of the record that was stored trimmed (src-shared/util/trim-text.ts): where, and its full size. */
export const TrimmedText = z.object({ path: z.string(), original_bytes: z.number().int().nonnegative() }).strict();

function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z
    .object({
      type: z.literal(type),
      ...envelope,
      ...shape,
      /** Texts a model said that this event stores trimmed, with their original sizes. */
      trimmed: z.array(TrimmedText).optional(),
      /** In a workflow run: the node invocation this event belongs to (src-shared/workflow/invocation.ts). */
      invocation_id: z.string().optional(),
      /** In a pattern node: the member agent run this event belongs to (`<member>#<step>.<iteration>`). */
      pattern_member: z.string().optional(),
    })
    .strict();
}

/** A trace profile's retention (keep N days after the end / N newest runs of the workflow), recorded on a run's start. */
export const RunRetention = z.object({ days: z.number().int().positive().optional(), runs: z.number().int().positive().optional() }).strict();

/**
 * The runtime limits a run used (the Runtime group: round limit, decision timeout, model reply
 * bound), as recorded on its start. Loose bounds: a record is read back, never refused for a limit
 * a later Steward narrowed. Absent in traces written before they were recorded.
 */
export const RecordedLimits = z
  .object({
    max_rounds: z.number().int().positive(),
    max_consecutive_failures: z.number().int().positive(),
    decision_timeout_ms: z.number().int().positive().optional(),
    max_output_tokens: z.number().int().positive().optional(),
  })
  .strict();
export type RecordedLimits = z.infer<typeof RecordedLimits>;

/**
 * The agent's speech settings (the Synthesis group), recorded on its start when it has any: what
 * the app and the CLI read to speak its delivered responses (src-shared/history/spoken-responses.ts).
 * Loose, like RecordedLimits: a record is read back, never refused for a bound a later Steward narrowed.
 */
export const RecordedSynthesis = z
  .object({ enabled: z.boolean(), voice: z.string().optional(), rate: z.number().positive(), speak: z.array(z.string()) })
  .strict();
export type RecordedSynthesis = z.infer<typeof RecordedSynthesis>;

/** The parent of a child workflow run (issue 29): its run, the invocation that ran it, and that run's workflow. */
export const SubworkflowParent = z.object({ run_id: z.string().min(8), invocation_id: z.string(), workflow_id: z.string() }).strict();
export type SubworkflowParent = z.infer<typeof SubworkflowParent>;

/**
 * One intervention inside a child workflow run, as its parent's report lists it under the node: who
 * intervened (the teacher at a boundary, a person, the workflow supervisor, a pattern's judge), at which
 * of the child's nodes (`inner › node` for a workflow inside it), and what they did, in words.
 */
export const ChildIntervention = z
  .object({
    by: z.enum(['teacher', 'person', 'supervisor', 'judge']),
    node: z.string(),
    action: z.string().max(40),
    text: z.string().max(600),
  })
  .strict();
export type ChildIntervention = z.infer<typeof ChildIntervention>;

/** How an agent run starts: the run's own (run.started) or a workflow's agent node (agent.started). */
const agentStart = {
  spec_id: z.string(),
  spec_name: z.string(),
  task: z.string(),
  supervision: SupervisionSpec,
  models: z.object({ student: z.string(), teacher: z.string() }).strict(),
  workspace: z.string().optional(),
  /** Which provider is shown which data in this run (privacy record). */
  exposure: z.array(DataExposure).default([]),
  /** The profile versions this run used (profile kind → id, name, version); empty for a spec's own settings. */
  profiles: z.record(z.string(), ProfileVersionRef).default({}),
  /** Dry run: models are called, no tool is executed. */
  dry_run: z.boolean().default(false),
  /** The runtime limits it ran under (optional, so older traces read). */
  limits: RecordedLimits.optional(),
  /** Its speech settings, when it has any (optional: absent is off, and older traces read). */
  synthesis: RecordedSynthesis.optional(),
};

/** Every event a run emits, one schema per type, validated wherever events cross a process boundary. */
export const RunEvent = z.discriminatedUnion('type', [
  event('run.started', {
    ...agentStart,
    /** A replay's original run (src-shared/replay/): its recorded answers are this run's models. Optional, so older traces read. */
    replay_of: z.string().min(1).optional(),
    /** The trace profile's retention when the run started: the host deletes the run once past it (never while running or waiting). */
    retention: RunRetention.optional(),
  }),
  /**
   * An agent node began inside a workflow run (its invocation_id says which): what run.started says
   * for an agent run. run.started/run.finished stay the workflow's own.
   */
  event('agent.started', agentStart),
  /** An agent node inside a workflow run ended (what run.finished says for an agent run). */
  event('agent.finished', {
    status: RunStatus.exclude(['running', 'waiting']),
    output: z.string().optional(),
    message: z.string().optional(),
    /** The declared route a reroute took, and who chose it (optional: older traces read). */
    route: TakenRoute.optional(),
    rounds: z.number().int().nonnegative(),
  }),
  event('tools.snapshot', {
    round,
    hash: z.string(),
    tools: z.array(
      z.object({ name: z.string(), server: z.string(), schema_hash: z.string(), effect: EffectClass, effect_source: EffectSource }).strict(),
    ),
    /** The routes a reroute could name this round (absent: the node declares none). */
    routes: z.array(z.string()).optional(),
  }),
  /** `told`: what a person told this round's proposer about the previous round (their rejection and note, their reply), as its prompt carries it. */
  event('round.started', { round, proposer: Proposer, told: z.string().max(8000).optional() }),
  /** `attempt` 0 is the first proposal; 1, 2… are the student's repairs within the round. */
  event('candidate.proposed', { round, attempt: z.number().int().nonnegative().optional(), reply: ModelReply, parsed: ParsedCandidate }),
  event('candidate.validated', { round, attempt: z.number().int().nonnegative().optional(), validation: ValidationResult }),
  event('review.decided', { round, review: ReviewDecision }),
  event('verdict.received', { round, attempt: VerdictAttempt }),
  event('decision.selected', { round, source: Selector, decision: Decision }),
  event('decision.authorized', { round, authorization: Authorization }),
  event('decision.committed', { round, history_index: z.number().int().nonnegative(), decision: Decision }),
  event('tool.executed', { round, execution: ToolExecution }),
  event('response.delivered', { round, decision: Decision }),
  event('round.completed', { round, record: RoundRecord }),
  /** The run waits for a person; it is persisted and resumes when they answer. */
  event('intervention.requested', { round, intervention: Intervention }),
  /**
   * `settled_by`, on a workflow supervisor's escalation only: the person answered, an earlier
   * answer's sticky skip/fail settled it (`answer` holds that verdict), or its decision time ran out
   * (`answer` is `expired`; the default verdict follows in `supervisor.verdict`).
   */
  event('intervention.answered', { round, intervention_id: z.string(), answer: HumanAnswer, settled_by: z.enum(['person', 'sticky', 'expiry']).optional() }),
  // SCS (seed 001): committee · student (monitor) · supervisor (executor).
  event('scs.enabled', { mode: ScsMode, active: z.boolean(), reason: z.string(), model: z.string() }),
  /** `alternatives`: the committee drafted several plans (`plan` is the first); the student selects one, may edit it, or vetoes all. */
  event('scs.committee.plan_drafted', {
    phase: z.number().int().positive(),
    attempt: z.number().int().positive(),
    plan: PhasePlan.optional(),
    error: z.string().optional(),
    alternatives: z.array(PhasePlan).optional(),
  }),
  /** `alternatives`: on a plan review, how many alternative plans the student chose among (its `decision.choice`, `decision.edit`). */
  ...SCS_MONITOR_EVENTS.map((type) =>
    event(type, { phase: z.number().int().nonnegative(), trigger: MonitorTrigger, decision: MonitorDecision, budget: z.number().int().nonnegative(), alternatives: z.number().int().min(2).optional() }),
  ),
  event('scs.supervisor.phase_started', { phase: z.number().int().positive(), plan: PhasePlan }),
  event('scs.supervisor.phase_blocked', { phase: z.number().int().positive(), reasons: z.array(z.string()) }),
  /** A stop condition of the phase plan matched a round (stop-conditions.ts): the phase stops for the monitor's review, with its evidence. */
  event('scs.supervisor.phase_stopped', {
    phase: z.number().int().positive(),
    round,
    condition: z.string(),
    matched: z.string(),
    evidence: z.array(z.string()),
    changed_files: z.array(ChangedFile),
  }),
  event('scs.warning', { message: z.string() }),
  /** What the committee or monitor was asked and answered: kept for inspection, not shown by default. */
  event('scs.transcript', {
    role: z.enum(['committee', 'monitor']),
    phase: z.number().int().nonnegative(),
    trigger: MonitorTrigger.optional(),
    messages: z.array(ChatMessage),
    reply: z.string(),
    /** What the call cost, as on a candidate's reply (ModelReply); absent in traces written before calls were measured. */
    usage: ModelUsage.optional(),
    latency_ms: z.number().int().nonnegative().optional(),
  }),
  /** A model call failed with a transient error (429, 5xx, a dropped connection) and is made again after `delay_ms`. */
  event('model.retry', {
    role: z.enum(['student', 'teacher']),
    model: z.string(),
    /** 1 for the first retry (the second call). */
    attempt: z.number().int().positive(),
    delay_ms: z.number().int().nonnegative(),
    reason: z.string(),
  }),
  /**
   * A prompt was sent to a model (every attempt, committee and monitor included): the privacy log.
   * Which provider and host saw which categories of data, and how many bytes; never the content.
   */
  event('model.called', ModelCalled.shape),
  /** That call settled: tokens the server reported and its latency (issue 31); absent in older runs. */
  event('model.answered', ModelAnswered.shape),
  /** A tool call was sent to a remote MCP server: the privacy log's record of what it was sent (argument names, bytes), never the values. */
  event('mcp.called', McpCalled.shape),
  /**
   * A pattern's A2A judge was asked (or refused by the privacy policy before anything was sent): the
   * privacy log's record of which agent and host, the sizes and field names sent, never the values.
   */
  event('a2a.called', A2aCalled.shape),
  /**
   * An MCP server asked the person (elicitation: a form or a link) and how it ended. Field names
   * only: what the person typed may be sensitive and is never recorded. The message is masked.
   */
  event('mcp.elicitation', {
    server: z.string(),
    mode: z.enum(['form', 'url']),
    message: z.string().max(500),
    fields: z.array(z.string()),
    action: z.enum(['accept', 'decline', 'cancel']),
    /** Nobody could be asked (no terminal, --json): the form's defaults answered it (SEP-1034). */
    answered_by: z.literal('defaults').optional(),
    /**
     * Steward asked the person to authorize the server (a wider OAuth scope, or signing in again)
     * mid-run: mode `url`, the message in words only, never the authorization link, its state, the
     * code or a token. `accept`: the person agreed and the authorization page came back with a code.
     */
    asked_for: z.literal('authorization').optional(),
  }),
  /**
   * A tool call in flight reported progress (MCP `notifications/progress`), thinned out by the tool
   * host (at most one per call per second, plus the last). `round` is the agent's round (0 in a tool
   * node); the call ends with its `tool.executed` (same `idempotency_key`). The message is masked.
   */
  event('tool.progress', {
    round,
    server: z.string(),
    tool: z.string(),
    idempotency_key: z.string(),
    progress: z.number().nonnegative(),
    total: z.number().positive().optional(),
    message: z.string().max(200).optional(),
  }),
  /**
   * Something slow is still under way (an MCP server listing its tools…): shown live, never silent.
   * `stopped`: the host stopped while a workflow waited for a person, and these invocations, running
   * then, were stopped; they start again once the person answers (run-workflow.ts: suspend).
   */
  event('run.notice', { message: z.string().max(500), stopped: z.array(z.string().min(1)).max(1000).optional() }),
  /** Who proposes changed: the teacher takes over after an escalation, or hands back. */
  event('handover', {
    round,
    to: Proposer,
    reason: z.enum(['escalation', 'takeover_ended']),
    /** Rounds the teacher will decide (on a takeover). */
    rounds: z.number().int().positive().optional(),
  }),
  event('learning.example', {
    round,
    /** review: the teacher ruled on the student's candidate · shadow: the student proposed alongside
     * a teacher who acted (phase 1) · demonstration: the teacher decided (phase 0, takeover). */
    kind: LearningKind.default('review'),
    /** The student's prompt for the round, redacted: the input of a fine-tuning example. With
     * `context_ref`, only the messages after the referenced span (src-shared/learning/learning-context.ts). */
    context: z.array(ChatMessage).default([]),
    /** The span of an earlier example's prompt this prompt repeats (absent: `context` is the whole prompt, as before). */
    context_ref: LearningContextRef.optional(),
    /** With `context_ref`: the messages before that span (a system prompt that changed). */
    context_head: z.array(ChatMessage).optional(),
    /** The review rule that sent the round to the teacher. */
    rule: ReviewRule.optional(),
    /** Absent for a demonstration (the student said nothing): optional, since JSON drops an undefined key. */
    student_candidate: z.unknown().optional(),
    verdict: TeacherVerdict.optional(),
    final_decision: Decision.optional(),
    reason_codes: z.array(ReasonCode),
    agreement: z.boolean(),
    models: z.object({ student: z.string(), teacher: z.string() }).strict(),
  }),
  /** A workflow run (kind "workflow") began: its graph's nodes and the run's inputs. */
  event('workflow.started', {
    workflow_id: z.string(),
    workflow_name: z.string(),
    nodes: z.array(z.object({ id: z.string(), kind: z.string(), label: z.string().optional() }).strict()),
    inputs: z.record(z.string(), z.unknown()),
    /** A replay's recorded workflow run: its agent nodes answer with that run's recorded answers. Optional, so older traces read. */
    replay_of: z.string().min(1).optional(),
    /** Tool nodes give back their recorded results and agents execute no tool (a dry replay). */
    dry_run: z.boolean().optional(),
    /** The trace profile's retention, as on run.started: the host deletes the run once past it. */
    retention: RunRetention.optional(),
    /** The trace profile version the run used, when it came from one. */
    trace_profile: ProfileVersionRef.optional(),
    /** A stored workflow run by a parent workflow's node (or an agent's workflow tool; issue 29): the parent run and its invocation. */
    parent: SubworkflowParent.optional(),
    /** Who supervises the run (issue 11): only a supervised run says, so an unsupervised run's event is as before. */
    supervisor: z
      .discriminatedUnion('kind', [z.object({ kind: z.literal('person') }).strict(), z.object({ kind: z.literal('model'), label: z.string(), local: z.boolean() }).strict()])
      .optional(),
  }),
  /** A node invocation changed status (pending → running → waiting → done | failed | skipped | cancelled). */
  event('node.invocation', {
    node: z.string(),
    lineage: Lineage,
    parent: z.string().optional(),
    status: InvocationStatus,
    inputs: z.record(z.string(), z.unknown()).optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    failure: NodeFailure.optional(),
  }),
  /** A supervised workflow run: a node invocation still failed, and the supervisor is asked (issue 11). Only a supervised run emits it. */
  event('supervisor.escalated', { escalation: Escalation }),
  /** The verdict on that escalation, with who decided it, and what the run does next with the node. */
  event('supervisor.verdict', {
    node: z.string(),
    verdict: SupervisorVerdict,
    next: z.enum(['run_again', 'done', 'skip', 'end_stream', 'failed']),
  }),
  // Pattern nodes (issue 12): under the node's invocation_id, like its members' agent events.
  /** An iteration's members are done: their output refs (ids a verdict cites) and the pattern's output. */
  event('pattern.iteration', {
    step: z.number().int().nonnegative(),
    iteration: z.number().int().positive(),
    outputs: z.array(z.object({ id: z.string(), member_id: z.string() }).strict()),
    output: z.string(),
  }),
  /** One judgment call: who judged (human / llm / system), the verdict, feedback, evidence, verification and timing. */
  event('pattern.judgment', {
    judgment: JudgmentRecord,
    /**
     * The judge's prompt as a model judge is sent it (the task, the judgment prompt, the member
     * outputs by id), masked like every event: what `steward eval verdicts --teacher` puts to a
     * candidate (issue 31). Recorded for a model's, an A2A agent's and a person's judgment; absent in older runs.
     */
    context: z.array(ChatMessage).optional(),
  }),
  /** A rejected output with its feedback and the approved output that followed: a preference pair for learning. */
  event('pattern.preference', {
    step: z.number().int().nonnegative(),
    prompt: z.string(),
    rejected: z.string(),
    feedback: z.string(),
    chosen: z.string(),
    judgments: z.object({ rejected: z.string(), approved: z.string() }).strict(),
  }),
  event('pattern.ended', {
    status: z.enum(PATTERN_STATUSES),
    approved: z.boolean(),
    iterations: z.number().int().nonnegative(),
    reason: z.string().optional(),
  }),
  // A student trial (issue 31): its own run (run.started … run.finished), no tool executed.
  /** What the trial replays: the node, the candidate student, the rounds asked for and found. */
  event('trial.started', { node: TrialNode, candidate: z.string(), rounds_asked: z.number().int().positive(), rounds: z.number().int().nonnegative() }),
  /** One recorded round put to the candidate, compared with the selected decision and the recorded verdict. */
  event('trial.round', { trial: TrialRound }),
  /** The trial's report (src-shared/learning/trial-report.ts). */
  event('trial.finished', { report: TrialReport }),
  /**
   * A workflow node (or an agent's workflow tool, `tool`) started a stored workflow as its own run,
   * `child_run_id` (issue 29): that run's workflow.started names this run as its parent.
   */
  event('subworkflow.started', { workflow_id: z.string(), workflow_name: z.string(), child_run_id: z.string().min(8), tool: z.string().optional() }),
  /** That child run ended (or waits for a person): its outcome and the interventions inside it, listed under the node in this run's report. */
  event('subworkflow.finished', {
    workflow_id: z.string(),
    child_run_id: z.string().min(8),
    status: RunStatus.exclude(['running']),
    message: z.string().max(4000).optional(),
    tool: z.string().optional(),
    interventions: z.array(ChildIntervention).max(200),
  }),
  event('run.finished', {
    status: RunStatus.exclude(['running', 'waiting']),
    output: z.string().optional(),
    /** A workflow run's output node fields. */
    outputs: z.record(z.string(), z.unknown()).optional(),
    message: z.string().optional(),
    /** An agent run that took one of its declared routes: which, and who chose it (optional: older traces read). */
    route: TakenRoute.optional(),
    /** A workflow run that ended `completed_with_failures`: how many items failed, of how many, where and why (optional: older traces read). */
    partial: PartialFailure.optional(),
    rounds: z.number().int().nonnegative(),
    /** Events in this run including this one: lets a consumer prove it has all of them. */
    event_count: z.number().int().positive(),
  }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunEventType = RunEvent['type'];
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event before the host stamps its envelope. */
export type RunEventPayload = DistributiveOmit<RunEvent, keyof typeof envelope>;
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

export function eventId(runId: string, seq: number): string {
  return `${runId}:${String(seq).padStart(6, '0')}`;
}
