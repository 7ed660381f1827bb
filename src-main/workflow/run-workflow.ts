import type { ServerInputWait } from '@shared/contracts/server-input';
import { randomUUID } from 'node:crypto';
import type { RunEventPayload } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { redactToolArguments } from '@shared/util/redact';
import type { InvocationReplay, WorkflowReplayPlan } from '@shared/replay/workflow-replay';
import type { NodeOf, WorkflowGraph, WorkflowNode } from '@shared/workflow/document';
import type { Invocation, NodeFailure } from '@shared/workflow/invocation';
import { createScheduler, schedule, type SchedulerCommand, type SchedulerEvent, type SchedulerState } from '@shared/workflow/scheduler';
import { validateGraph } from '@shared/workflow/validate-graph';
import { SecretRegistry } from '../credentials/secret-registry';
import { credentialErrorText, CredentialStoreError } from '../credentials/credential-store';
import { defaultSealKeys, type SealKey, type SealKeys } from '../credentials/seal-keys';
import type { RunAgentOptions } from '../engine/run-agent';
import type { RunCheckpoint } from '../engine/checkpoint';
import { createEventStamper } from '../engine/event-stamper';
import { boundModelText } from '@shared/history/model-text';
import { applyTraceSettings, traceRetention } from '../engine/trace-settings';
import type { ModelProvider } from '../providers/provider';
import { checkEditedNodeApproval, runAgentNode } from './agent-node';
import { checkInputs } from './run-inputs';
import { DECLINED, errorText, failed, type NodeOutcome, type NodeRun } from './node-outcome';
import { runAssertNode, runTemplateNode } from './template-node';
import { runToolNode, toolOutputs } from './tool-node';
import { FlowSecrets } from './flow-secrets';
import { cannotWaitMessage, openCheckpoint, sealCheckpoint, type SealLoss } from './sealed-checkpoint';
import { liveModelsOf, runPatternNode } from './pattern/pattern-node';
import { setUpSupervision, type RunSupervision } from './supervision/supervise-failure';
import { AttemptTrail, escalatedEvent, failedInvocation, portValidator, settlementOf, supervisionEvents, supervisorCheckpoint, supervisorNamed, verdictEvent, type WorkflowSupervisionOptions } from './supervision/workflow-supervision';
import type { InvocationRecord, OpenChild, WorkflowCheckpoint } from './workflow-checkpoint';
import { WorkflowTools } from './workflow-tools';
import { recordedConsent, recordedElicitation } from '../mcp/recorded-elicitation';
import { checkJudgmentAnswer, type PatternPark } from './pattern/human-judgment';
import { answerPerson, escalateToPerson, escalationIntervention, expirePerson, isPersonSupervisor, personSupervisionOf, settledWithoutPerson } from './supervision/person-supervisor';
import { checkPersonVerdict } from '@shared/supervisor/person-escalation';
import { stickyVerdictFor } from '@shared/supervisor/ledger';
import { partialFailureOf, partialMessage, type PartialFailure } from '@shared/workflow/partial-failure';
import type { NodeProfiles } from './node-deployments';
import type { SubworkflowParent } from '@shared/contracts/events';
import { childRunId, childRunner, runSubworkflowNode, type SubworkflowDeps } from './workflow-node';
import type { WorkflowLibrary } from './workflow-library';
import { workflowToolsFor } from './workflow-as-tool';
import { ParkedByHostStop, parkedAbove, stoppedByHost } from '../engine/host-stop';

/** What a workflow run shares with an agent run: folders, ledger, journal, cancellation, people, models. */
type SharedRunOptions = Pick<
  RunAgentOptions,
  'specDir' | 'workspace' | 'ledger' | 'onEvent' | 'runId' | 'signal' | 'confirm' | 'ollamaHost' | 'credentials' | 'privacy' | 'onProgress' | 'providers' | 'toolHost' | 'onElicit' | 'onReviewSample' | 'oauthConsent'
>;

export interface RunWorkflowOptions extends SharedRunOptions {
  graph: WorkflowGraph;
  inputs: Record<string, unknown>;
  /**
   * Makes a node waiting for a person durable: called as soon as one waits, again (at most each
   * second) while other nodes go on, and when nothing runs any more (the run then ends `waiting`).
   */
  persistWaiting?: (checkpoint: WorkflowCheckpoint) => void;
  /** The run ended after all (cancelled, failed): a checkpoint persisted meanwhile is void. */
  dropWaiting?: () => void;
  /**
   * Continue a parked run: the answer goes to `invocation` (the only waiting one when absent).
   * `next_seq`: where the journal stands for this run, when events came after the checkpoint.
   */
  resume?: { checkpoint: WorkflowCheckpoint; answer: HumanAnswer; invocation?: string; next_seq?: number };
  /** A person answers later (the app): a tool node's escalated call waits for them instead of failing. */
  parkEscalations?: boolean;
  /**
   * A person answers a waiting node while the run goes on (the app): the run hands over its way to
   * take an answer when it starts, and takes it back (undefined) once it settles.
   */
  liveAnswers?: (answer: LiveAnswer | undefined) => void;
  /** A tool node's teacher, injected for tests; resolved from the node's `review` otherwise. */
  reviewTeacher?: ModelProvider;
  /**
   * The run's trace profile: what its trace keeps, and its retention (recorded on workflow.started;
   * the host deletes the run once past it). `traceProfile`: the version it came from, recorded too.
   */
  trace?: TraceSettings;
  traceProfile?: ProfileVersionRef;
  /** Each agent node's own deployment profile version (issue 29), recorded on its agent.started; its phase is already in `graph`. */
  nodeProfiles?: NodeProfiles;
  /** Runs a recorded run again on its recorded answers and, unless live, its recorded tool results (workflow-replay.ts). */
  replay?: WorkflowReplayPlan;
  /** A supervisor decides what a node that still fails does instead of failing the run (issue 11); absent or not enabled, nothing changes. */
  supervision?: WorkflowSupervisionOptions;
  /**
   * The keys that seal a waiting run's sensitive values (issue 27; sealed-checkpoint.ts): the OS
   * keychain's when absent. Asked only when a run holding such a value waits, or resumes sealed.
   */
  sealKeys?: SealKeys;
  /**
   * The stored workflows a workflow node runs and an agent's workflow tools offer (issue 29; workflow-library.ts):
   * absent, such a node fails saying so.
   */
  library?: WorkflowLibrary;
  /** This run is a stored workflow run by a parent's node (workflow-node.ts): recorded on its workflow.started. */
  parent?: SubworkflowParent;
  /**
   * A child started again after a host stop (workflow-node.ts): the id its first start recorded under,
   * from which this run's idempotency keys and its nested runs' keys derive, so no call is made twice.
   */
  keyRunId?: string;
  /** Stored workflow ids from the outermost run down to this one: a workflow that would run one of them again is refused. */
  chain?: string[];
}

/** A child run a host stop (or a crash) cut off, as its parent's report ends it when the node starts again. */
const CHILD_CUT_OFF = 'The host stopped while this run went on, and it was closed as interrupted. The node that started it started again; a tool call already made is not made again.';

/** `declined`: the run could not go on without a call the person declined; `stopped`: they answered "Stop the run" (issue 28). */
export type WorkflowStatus = 'completed' | 'completed_with_failures' | 'failed' | 'cancelled' | 'declined' | 'stopped' | 'waiting';

/**
 * Answers a waiting node of a run still going on: true when the node resumed with the answer, false
 * when nothing of this run waits for that intervention (answered already, or the run is ending).
 * Throws when the answer is not one the intervention offers.
 */
export type LiveAnswer = (interventionId: string, answer: HumanAnswer) => boolean;

/** The same words wherever an answer is checked: live, or from a checkpoint. */
export function checkOffered(intervention: Intervention, answer: HumanAnswer): void {
  // A pattern's judgment: its own answers, checked as its loop will check them (and the expiry the host's timer gives).
  if (intervention.judgment) return checkJudgmentAnswer(intervention.judgment, answer);
  if (!intervention.options.includes(answer.action)) {
    throw new Error(`"${answer.action}" is not one of the answers this intervention offers (${intervention.options.join(', ')})`);
  }
  // A person supervising: only a verdict the escalation allows (the kernel enforces it again).
  if (intervention.supervision) checkPersonVerdict(intervention.supervision, answer.verdict);
}

export interface WorkflowRun {
  run_id: string;
  status: WorkflowStatus;
  outputs: Record<string, unknown>;
  invocations: InvocationRecord[];
  message?: string;
  /** Ended `completed_with_failures`: how many items failed, of how many, where and why (also on run.finished). */
  partial?: PartialFailure;
  /** The run could not start (graph problems, missing inputs, a bad resume): bad input rather than a bad run. */
  setup_error?: string;
  /** Why a run ended that no node's failure explains (a sealed checkpoint that did not open: SealLoss): for details, the message says it in words. */
  failure_code?: string;
  /** Parked runs: what each waiting node asks, and what to persist to resume. */
  interventions?: Array<{ invocation_id: string; intervention: Intervention }>;
  checkpoint?: WorkflowCheckpoint;
}

/** What a waiting node keeps: its question, an agent node's own checkpoint, a pattern node's loop. */
type ParkedNode = { checkpoint?: RunCheckpoint; intervention: Intervention; pattern?: PatternPark; child?: WorkflowCheckpoint; server_input?: ServerInputWait };

/** A parked invocation and the person's answer to it. */
interface Resumed {
  parked: ParkedNode;
  answer: HumanAnswer;
}

/** A recorded invocation of the kind the node is (a graph changed since may have another). */
function narrow<K extends InvocationReplay['kind']>(recorded: InvocationReplay | undefined, kind: K): Extract<InvocationReplay, { kind: K }> | undefined {
  return recorded?.kind === kind ? (recorded as Extract<InvocationReplay, { kind: K }>) : undefined;
}

/** A node that would wait holding a sensitive value with no keychain to seal it (issue 27). */
export const WAIT_NOT_KEPT = 'sensitive_wait_not_kept';
/**
 * A sealed checkpoint that does not open ends its run in words: `run.finished` failed, after the
 * events it had (the answer is not lost silently, the run does not go on with a wrong value).
 */
function lostSealedRun(checkpoint: WorkflowCheckpoint, lost: { code: SealLoss; message: string }, options: RunWorkflowOptions): WorkflowRun {
  const { code, message } = lost;
  const stamper = createEventStamper(checkpoint.run_id, options.onEvent, Math.max(checkpoint.next_seq, options.resume?.next_seq ?? 0));
  try {
    stamper.emit({ type: 'run.finished', status: 'failed', outputs: {}, message, rounds: checkpoint.rounds, event_count: stamper.count + 1 });
  } catch (err) {
    return { run_id: checkpoint.run_id, status: 'failed', outputs: {}, invocations: checkpoint.invocations, message: `${message} (its end was not recorded: ${errorText(err)})`, failure_code: code };
  }
  return { run_id: checkpoint.run_id, status: 'failed', outputs: {}, invocations: checkpoint.invocations, message, failure_code: code };
}

/** The run's outcome in words: a call the person declined says so ("you declined fs/write_file: …"), without a code. */
const describeFailure = (f: NodeFailure | undefined): string | undefined => (f ? (f.code === DECLINED || f.code === WAIT_NOT_KEPT ? f.message : `${f.code}: ${f.message}`) : undefined);

/**
 * A run a person ended, said as what they did (issue 28): "Stop the run" answered at a node (the
 * scheduler cancelled everything for it), or a declined call the run's outputs needed (the first
 * failure, so nothing else broke first).
 */
function personEnded(finished: { status: 'completed' | 'failed' | 'cancelled'; failure?: NodeFailure }, stoppedBy: string | undefined): 'declined' | 'stopped' | undefined {
  if (finished.status === 'cancelled' && stoppedBy !== undefined) return 'stopped';
  if (finished.status === 'failed' && finished.failure?.code === DECLINED) return 'declined';
  return undefined;
}

/**
 * Runs a workflow graph: the pure scheduler (src-shared/workflow/scheduler.ts) decides what runs
 * and when; this host executes agent, tool, template and assert invocations (concurrently, as the
 * scheduler releases them), reports their ends back, and journals everything as one run's events.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRun> {
  const sealKeys = options.sealKeys ?? defaultSealKeys();
  // A checkpoint holding sensitive values is sealed: opened here, or the run ends saying why (issue 27).
  let resumed = options.resume?.checkpoint;
  let sealKey: SealKey | undefined;
  if (resumed?.sealed) {
    const opened = await openCheckpoint(resumed, sealKeys);
    if (!opened.ok) return lostSealedRun(resumed, opened, options);
    resumed = opened.checkpoint;
    sealKey = opened.key;
  }
  const graph = resumed?.graph ?? options.graph;
  const runId = resumed?.run_id ?? options.runId ?? randomUUID();
  // The journal's id is `runId`; the ledger's keys (and nested runs' keys) derive from `keyRunId`.
  const keyRunId = resumed?.key_run_id ?? options.keyRunId ?? runId;
  const secrets = new SecretRegistry();
  let snapshot: Pick<ToolSnapshot, 'tools'> = { tools: [] };
  const sensitiveFound = (value: string) => void secrets.registerSensitive(value);
  // A value bound for a sensitive argument is masked from where it enters, not from the call that shows it (issue 27).
  const flowSecrets = new FlowSecrets(graph, secrets);
  // Asked of the keychain only when a run holding a sensitive value must wait (and once).
  let sealProblem: string | undefined;
  let sealAsked: Promise<void> | undefined;
  const ensureSealKey = (): Promise<void> => {
    if (sealKey || !flowSecrets.holdsValues) return Promise.resolve();
    sealAsked ??= sealKeys.current().then(
      (key) => {
        sealKey = key;
      },
      (err: unknown) => {
        sealProblem = err instanceof CredentialStoreError ? credentialErrorText(err) : errorText(err);
        sealAsked = undefined;
      },
    );
    return sealAsked;
  };
  const stamper = createEventStamper(runId, options.onEvent, Math.max(resumed?.next_seq ?? 0, options.resume?.next_seq ?? 0));
  let rounds = resumed?.rounds ?? 0;
  // Masked, sensitive arguments redacted, model text trimmed: the same path as an agent run's events.
  // A journal that cannot take an event stops the run: a run must not go on unrecorded.
  let crashed: string | undefined;
  // Parked by a host stop (see suspend): nothing more is recorded or fed.
  let suspended = false;
  const running = new Map<string, AbortController>();
  const runningInvocations = new Map<string, Invocation>();
  // A supervisor's retry is attempt 2, 3…: kept with a running or waiting invocation, so it goes on as that attempt (and its key).
  const attempts = new Map<string, number>(Object.entries(resumed?.attempts ?? {}));
  // Invocations a checkpoint keeps per-invocation facts for; `kept` gives the entries that pass (none: undefined).
  const held = (id: string) => runningInvocations.has(id) || waiting.has(id);
  const kept = <V>(map: ReadonlyMap<string, V>, keep: (id: string, value: V) => boolean): Record<string, V> | undefined => {
    const entries = [...map].filter(([id, value]) => keep(id, value));
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  };
  // Started again after host stops, how many times: a workflow node's child then records under a run id of its own.
  const restarts = new Map<string, number>(Object.entries(resumed?.restarts ?? {}));
  // Child runs each running invocation started and that have not ended: a restart ends them as interrupted in this run's report.
  const openChildren = new Map<string, OpenChild[]>(Object.entries(resumed?.open_children ?? {}));
  let childChanges = 0;
  const trace = resumed?.trace ?? options.trace;
  // A result its trace records whole is given again to a node a stop cut off (its key names where it is).
  // Not where a value flows into a sensitive argument: a result is masked in the trace only once it is
  // known to carry one (after the call), so what the model got then may differ from what was recorded.
  const keepToolResults = trace?.include_tool_results !== false && !flowSecrets.flows;
  const replay = resumed?.replay ?? options.replay;
  const recordedOf = (id: string) => replay?.invocations[id];
  const emit = (payload: RunEventPayload): void => {
    if (suspended) return;
    if (payload.type === 'round.completed') rounds += 1;
    try {
      stamper.emit(boundModelText(secrets.mask(applyTraceSettings(redactToolArguments(payload, snapshot, sensitiveFound), trace))));
    } catch (err) {
      crashed ??= errorText(err);
      for (const controller of running.values()) controller.abort();
    }
  };
  const nodes = new Map<string, WorkflowNode>(graph.nodes.map((n) => [n.id, n]));
  const records = new Map<string, InvocationRecord>((resumed?.invocations ?? []).map((r) => [r.id, r]));
  const waiting = new Map<string, ParkedNode>(Object.entries(resumed?.waiting ?? {}));
  // A resumed run keeps the folders and privacy it started with.
  const specDir = resumed?.spec_dir ?? options.specDir;
  const workspace = resumed?.workspace ?? options.workspace;
  const privacy = resumed?.privacy ?? options.privacy;
  const vars: Record<string, string> = { specDir };
  if (workspace !== undefined) vars.workspace = workspace;

  const setupFailure = (message: string): WorkflowRun => ({ run_id: runId, status: 'failed', outputs: {}, invocations: [...records.values()], message, setup_error: message });

  // Checked before anything starts: a graph problem or a missing input never half-runs.
  let inputs: Record<string, unknown> = {};
  if (!resumed) {
    const problems = validateGraph(graph);
    if (problems.length > 0) return setupFailure(`the workflow has ${problems.length} problem(s): ${problems.map((p) => p.message).join('; ')}`);
    const checked = checkInputs(graph, options.inputs);
    if (!checked.ok) return setupFailure(checked.message);
    inputs = checked.inputs;
    flowSecrets.entered(inputs);
  }
  let resumeTarget: string | undefined;
  if (options.resume) {
    resumeTarget = options.resume.invocation ?? (waiting.size === 1 ? [...waiting.keys()][0] : undefined);
    if (resumeTarget === undefined || !waiting.has(resumeTarget)) {
      return setupFailure(`name the waiting node to answer (waiting: ${[...waiting.keys()].join(', ') || 'none'})`);
    }
  }

  // A run a person supervises resumes supervised by them even when the caller did not say so again.
  const supervisionAsked = options.supervision ?? personSupervisionOf(resumed?.supervisor_settings);
  const setup = supervisionAsked
    ? setUpSupervision(supervisionAsked.settings, supervisionAsked.supervisor, { validate: supervisionAsked.validate ?? portValidator(nodes), secrets }, resumed?.supervisor_ledger)
    : { kind: 'off' as const };
  // A model supervisor's read-only tools read the run as it goes (masked with the run's registry).
  if (setup.kind === 'on' && supervisionAsked && !('unavailable' in supervisionAsked.supervisor)) {
    supervisionAsked.supervisor.attach?.({ invocations: () => [...records.values()], secrets, onModelCall: (call) => emit({ type: 'model.called', ...call }), onModelAnswer: (answer) => emit({ type: 'model.answered', ...answer }) });
  }
  // A slow server start or a tool listing is shown live in the app (run.notice) as well as on the CLI; a tool's progress is its own event (tool.progress).
  const notice = (line: string): void => {
    emit({ type: 'run.notice', message: secrets.maskText(line).slice(0, 500) });
    options.onProgress?.(line);
  };
  const tools = new WorkflowTools({ graph, vars, cwd: specDir, secrets, credentials: options.credentials, onProgress: notice, toolHost: options.toolHost, privacy, onSent: (call) => emit({ type: 'mcp.called', ...call }), oauthConsent: options.oauthConsent && recordedConsent(options.oauthConsent, { mask: (text) => secrets.maskText(text), emit }), onElicit: options.onElicit && recordedElicitation(options.onElicit, { mask: (text) => secrets.maskText(text), emit }), ...(options.parkEscalations ? { elicitsDurably: true } : {}) });
  const log: SchedulerEvent[] = resumed ? (resumed.scheduler_events as SchedulerEvent[]) : [];
  let state: SchedulerState = createScheduler(graph);
  let finished: Extract<SchedulerCommand, { type: 'finished' }> | undefined;
  // Called after every scheduler step: the loop below wakes to see whether the run settled.
  let wake: () => void = () => undefined;

  // A host stop while a node waits for a person: the wait is kept and the run parks, as after a
  // crash (what still ran starts again on resume, a tool call it made never re-run); else a cancel.
  // A child run its parked parent stopped (the same reason) halts: the parent starts it again.
  const onAbort = () => {
    const going = !finished && crashed === undefined;
    if (going && stoppedByHost(options.signal) && options.persistWaiting && waiting.size > 0) suspend();
    else if (going && parkedAbove(options.signal) && options.parent) halt();
    else feed({ type: 'cancel' });
  };
  function suspend(): void {
    // Said in the trace before the checkpoint is written (its position includes this): why the nodes shown running are not.
    const stopped = [...runningInvocations.values()];
    const cut = [...new Set(stopped.map((i) => nodes.get(i.node)?.label ?? i.node))];
    emit({
      type: 'run.notice',
      message: `The host stopped while this run waited for you. ${cut.length > 0 ? `What was still running (${cut.join(', ')}) was stopped and starts again once you answer; a tool call it already made is not made again.` : 'Nothing else was running.'}`.slice(0, 500),
      stopped: stopped.map((i) => i.id).slice(0, 1000),
    });
    persistNow();
    if (crashed !== undefined) return;
    // From here the run records nothing more: the checkpoint just written is where it resumes.
    stopAll();
  }
  /** A child run whose parent parked at a host stop: it says so and records nothing more (the next start closes it as interrupted). */
  function halt(): void {
    emit({ type: 'run.notice', message: 'The host stopped while a run above this one waited for a person, and this run stopped with it. When that run resumes, the node that started this one starts again; a tool call already made is not made again.' });
    stopAll();
  }
  function stopAll(): void {
    suspended = true;
    // With that reason: a workflow node's child run halts too, and this run starts it again on resume.
    for (const controller of running.values()) controller.abort(new ParkedByHostStop());
    wake();
  }
  // Set when a person answered "Stop the run" at a node: the cancelled run's outcome says so.
  let stoppedBy: string | undefined;

  function feed(event: SchedulerEvent): void {
    // Cancel is final in the scheduler, and a crash stops the run: the ends of aborted invocations are only awaited.
    if (!finished && crashed === undefined && !suspended) {
      log.push(event);
      const next = schedule(state, event);
      state = next.state;
      for (const command of next.commands) handle(command);
      if (waiting.size > 0) persistSoon(false);
    }
    wake();
  }

  // While a node waits, the run is kept on disk: at once, then at most each second while others go on.
  let persistTimer: ReturnType<typeof setTimeout> | undefined;
  let persisted = false;
  let persistedVersion: string | undefined;
  function persistSoon(now: boolean): void {
    if (!options.persistWaiting) return;
    if (now) {
      persistNow();
      return;
    }
    if (persistTimer === undefined) {
      persistTimer = setTimeout(persistNow, 1000);
      persistTimer.unref?.();
    }
  }
  function persistNow(): void {
    if (persistTimer !== undefined) clearTimeout(persistTimer);
    persistTimer = undefined;
    if (finished || crashed !== undefined || suspended || waiting.size === 0) return;
    // Nothing changed since the last write: nothing to write.
    const version = `${log.length}:${childChanges}:${[...runningInvocations.keys()].map((id) => `${id}#${attempts.get(id) ?? 1}`).join(',')}`;
    if (version === persistedVersion) return;
    try {
      options.persistWaiting?.(checkpointNow());
      persisted = true;
      persistedVersion = version;
    } catch (err) {
      // A wait that cannot be kept must not look kept: the run stops.
      crashed ??= `could not keep the waiting run: ${errorText(err)}`;
      for (const controller of running.values()) controller.abort();
    }
  }
  function checkpointNow(): WorkflowCheckpoint {
    const raw = rawCheckpoint();
    if (!flowSecrets.holdsValues) return raw;
    // Never on disk unlocked: without a key the wait is not kept (the run stops, saying why).
    if (!sealKey) throw new Error(cannotWaitMessage(graph, sealProblem ?? 'the keychain was not asked in time'));
    return sealCheckpoint(raw, sealKey, secrets);
  }
  function rawCheckpoint(): WorkflowCheckpoint {
    const retried = kept(attempts, (id, n) => n > 1 && held(id));
    const restarted = kept(restarts, held);
    const children = kept(openChildren, (id, open) => open.length > 0 && runningInvocations.has(id));
    return {
      version: 1,
      kind: 'workflow',
      run_id: runId,
      ...(keyRunId !== runId ? { key_run_id: keyRunId } : {}),
      saved_at: new Date().toISOString(),
      graph,
      spec_dir: specDir,
      ...(workspace !== undefined ? { workspace } : {}),
      ...(privacy !== undefined ? { privacy } : {}),
      ...(trace !== undefined ? { trace } : {}),
      ...(replay !== undefined ? { replay } : {}),
      next_seq: stamper.count,
      rounds,
      scheduler_events: log as unknown as Array<Record<string, unknown>>,
      invocations: secrets.mask([...records.values()]),
      running: [...runningInvocations.values()],
      ...(retried ? { attempts: retried } : {}),
      ...(restarted ? { restarts: restarted } : {}),
      ...(children ? { open_children: children } : {}),
      // An escalation being decided on its answer is still waiting on disk: a stop then asks again, never reruns the node.
      waiting: { ...Object.fromEntries(deciding), ...Object.fromEntries(waiting) },
      ...(setup.kind === 'on' ? { supervisor_ledger: setup.supervision.ledger } : {}),
      ...(setup.kind !== 'off' && supervisionAsked ? supervisorCheckpoint(supervisionAsked) : {}),
    };
  }

  function handle(command: SchedulerCommand): void {
    switch (command.type) {
      case 'status': {
        const { invocation, status } = command;
        // Learnt before anything shows them; records (the supervisor's tools, results, checkpoints) keep them masked too.
        if (command.outputs) flowSecrets.produced(invocation.node, command.outputs);
        const outputs = command.outputs && flowSecrets.maskOutputs(invocation.node, command.outputs);
        const failure = command.failure && { ...command.failure, message: flowSecrets.maskText(invocation.node, command.failure.message) };
        const record: InvocationRecord = { id: invocation.id, node: invocation.node, lineage: invocation.lineage, parent: invocation.parent, status };
        if (outputs) record.outputs = outputs;
        if (failure) record.failure = failure;
        records.set(invocation.id, record);
        emit({
          type: 'node.invocation',
          invocation_id: invocation.id,
          node: invocation.node,
          lineage: invocation.lineage,
          parent: invocation.parent,
          status,
          ...(status === 'running' ? { inputs: flowSecrets.maskInputs(invocation.node, invocation.inputs) } : {}),
          ...(outputs ? { outputs } : {}),
          ...(failure ? { failure } : {}),
        });
        return;
      }
      case 'run':
        start(command.invocation);
        return;
      case 'abort':
        running.get(command.id)?.abort();
        return;
      case 'finished':
        finished = command;
        return;
    }
  }

  function start(invocation: Invocation, resumeWith?: Resumed, attempt = 1): void {
    // A supervisor's retry is a new attempt with names of its own: its first start, not a restart.
    if (attempt !== (attempts.get(invocation.id) ?? 1)) restarts.delete(invocation.id);
    const controller = new AbortController();
    running.set(invocation.id, controller);
    runningInvocations.set(invocation.id, invocation);
    attempts.set(invocation.id, attempt);
    // A supervised run notes what the attempt showed (its tools, where its models ran): the facts of its retry-safety.
    const trail = setup.kind === 'on' ? new AttemptTrail() : undefined;
    const run: NodeRun = {
      invocation,
      emit: (payload) => {
        trail?.observe(payload);
        // A tool's result bound for a sensitive argument downstream is sensitive from its own trace on.
        if (payload.type === 'tool.executed') flowSecrets.produced(invocation.node, toolOutputs(payload.execution.content));
        emit({ ...payload, invocation_id: invocation.id });
        if (payload.type === 'subworkflow.started' || payload.type === 'subworkflow.finished') childStartedOrEnded(invocation.id, payload);
      },
      signal: controller.signal,
      ...(attempt > 1 ? { attempt } : {}),
      ...streamOf(invocation),
    };
    void execute(invocation, run, resumeWith)
      .catch((err: unknown): NodeOutcome => failed('internal_error', errorText(err)))
      // A wait holding a sensitive value needs the key that seals it: asked while the node still counts as running.
      .then(async (outcome): Promise<NodeOutcome> => {
        if (outcome.status !== 'waiting' || !flowSecrets.holdsValues) return outcome;
        await ensureSealKey();
        return sealKey ? outcome : failed(WAIT_NOT_KEPT, cannotWaitMessage(graph, sealProblem ?? 'no key'));
      })
      .then((outcome) => {
        running.delete(invocation.id);
        runningInvocations.delete(invocation.id);
        switch (outcome.status) {
          case 'done':
            feed({ type: 'done', id: invocation.id, outputs: outcome.outputs });
            return;
          case 'failed': {
            const failure = { ...outcome.failure, message: secrets.maskText(outcome.failure.message) };
            // A call the person declined is their decision, not a failure for a supervisor to retry or skip.
            if (setup.kind === 'on' && !controller.signal.aborted && failure.code !== DECLINED) return superviseFailed(setup.supervision, invocation, failure, controller, attempt, trail, outcome.candidate);
            feed({ type: 'failed', id: invocation.id, failure });
            return;
          }
          case 'stopped':
            // "Stop the run", answered at this node: the whole run ends cancelled, with the person's words as its outcome.
            stoppedBy ??= secrets.maskText(outcome.message);
            feed({ type: 'cancel' });
            return;
          case 'waiting':
            // Answered through the workflow run: an agent node's intervention names the workflow's run.
            waiting.set(invocation.id, { checkpoint: outcome.checkpoint, intervention: { ...outcome.intervention, run_id: runId }, ...(outcome.pattern ? { pattern: outcome.pattern } : {}), ...(outcome.child ? { child: outcome.child } : {}), ...(outcome.server_input ? { server_input: outcome.server_input } : {}) });
            feed({ type: 'waiting', id: invocation.id });
            persistSoon(true);
            return;
        }
      })
      // The host's own failure (an event sink that throws…): stop everything, report it, never reject.
      .catch((err: unknown) => {
        crashed ??= errorText(err);
        for (const controller of running.values()) controller.abort();
        wake();
      });
  }

  /**
   * A streaming node's way downstream: each result goes to the scheduler as `emit`s (an iterate fed by
   * it takes them at once), and what it sent before this start is read back off the scheduler's log,
   * which the checkpoint keeps, so after a host stop or a person's answer it goes on after them.
   */
  function streamOf(invocation: Invocation): Pick<NodeRun, 'sent' | 'send'> {
    const node = nodes.get(invocation.node);
    if (node?.kind !== 'tool' || !node.stream) return {};
    return {
      sent: sentBy(invocation.id),
      send: (outputs) => {
        flowSecrets.produced(invocation.node, outputs);
        feed({ type: 'emit', id: invocation.id, port: 'result', value: outputs.result });
        feed({ type: 'emit', id: invocation.id, port: 'text', value: outputs.text });
      },
    };
  }
  function sentBy(id: string): Array<Record<string, unknown>> {
    const results: unknown[] = [];
    const texts: unknown[] = [];
    for (const e of log) if (e.type === 'emit' && e.id === id) (e.port === 'result' ? results : texts).push(e.value);
    return results.map((result, i) => ({ result, text: texts[i] }));
  }

  /** A supervised run's failed invocation: it counts as running while the supervisor decides, so the run waits and a cancel aborts the decision. */
  async function superviseFailed(supervision: RunSupervision, invocation: Invocation, failure: NodeFailure, controller: AbortController, attempt: number, trail?: AttemptTrail, candidate?: Record<string, unknown>): Promise<void> {
    // The supervisor (a model's prompt, the escalation in the trace) sees the inputs as the trace shows them.
    const shown = { ...invocation, inputs: flowSecrets.maskInputs(invocation.node, invocation.inputs) };
    const failedOne = () => failedInvocation(nodes.get(invocation.node), graph, shown, failure, attempt, trail, { sent: sentBy(invocation.id).length, ...(candidate !== undefined ? { candidate } : {}) });
    running.set(invocation.id, controller);
    runningInvocations.set(invocation.id, invocation);
    const supervisor = supervision.deps.supervisor;
    if (isPersonSupervisor(supervisor)) {
      let step;
      try {
        // The run may wait for the person: its sensitive values need their key first (checkpointNow).
        await ensureSealKey();
        step = await escalateToPerson(supervision, supervisor, failedOne(), waitingForPerson().length);
      } finally {
        running.delete(invocation.id);
        runningInvocations.delete(invocation.id);
      }
      if (step.kind === 'decided') for (const payload of supervisionEvents(invocation, step.result)) emit(payload);
      else emit(escalatedEvent(invocation, step.wait.escalation));
      return personStep(supervision, invocation, step, attempt);
    }
    let result;
    try {
      // The escalation goes in the trace before the model decides (the app shows "deciding…"); the verdict when decided.
      result = await supervision.superviseFailure(failedOne(), controller.signal, (escalation) => emit(escalatedEvent(invocation, escalation)));
    } finally {
      running.delete(invocation.id);
      runningInvocations.delete(invocation.id);
    }
    emit(verdictEvent(invocation, result));
    if (result.next.kind === 'run_again') {
      start(invocation, undefined, attempt + 1);
      // Kept on disk at once: a host stop during the retry resumes this attempt, never the failed one.
      if (waiting.size > 0) persistSoon(true);
    } else feed(settlementOf(invocation.id, result.next, sentBy(invocation.id)));
  }

  /** Notes a child run an invocation started or that ended; a wait kept on disk learns of it within a second. */
  function childStartedOrEnded(id: string, payload: Extract<RunEventPayload, { type: 'subworkflow.started' | 'subworkflow.finished' }>): void {
    const others = (openChildren.get(id) ?? []).filter((c) => c.child_run_id !== payload.child_run_id);
    const started: OpenChild[] = payload.type === 'subworkflow.started' ? [{ child_run_id: payload.child_run_id, workflow_id: payload.workflow_id, ...(payload.tool !== undefined ? { tool: payload.tool } : {}) }] : [];
    openChildren.set(id, [...others, ...started].slice(-64));
    childChanges += 1;
    if (waiting.size > 0) persistSoon(false);
  }

  /** A waiting invocation runs again with the person's answer (its own inputs kept, should it start again after a host stop). */
  function resumeNode(id: string, resumeWith: Resumed): void {
    const invocation = heldInvocation(id);
    if (!invocation) return;
    feed({ type: 'resumed', id });
    if (resumeWith.parked.intervention.supervision) personAnswered(invocation, resumeWith.parked.intervention, resumeWith.answer);
    else start(invocation, resumeWith, attempts.get(id) ?? 1);
  }
  function heldInvocation(id: string): Invocation | undefined {
    const held = Object.hasOwn(state.invocations, id) ? state.invocations[id] : undefined;
    const source = held ?? records.get(id);
    return source && { id, node: source.node, lineage: source.lineage, ...(source.parent !== undefined ? { parent: source.parent } : {}), inputs: held ? { ...held.inputs } : {} };
  }
  /** A waiting escalation decided without the person's answer (a sticky verdict now applies, or time ran out). */
  function settleWaitingEscalation(id: string, how: undefined | 'expired'): void {
    const w = waiting.get(id);
    const invocation = heldInvocation(id);
    if (!w || !invocation) return;
    waiting.delete(id);
    feed({ type: 'resumed', id });
    personAnswered(invocation, w.intervention, how);
  }

  /** Escalations of this run waiting for a person (they count against max_decisions while they wait). */
  function waitingForPerson(): Array<[string, Intervention]> {
    return [...waiting.entries()].flatMap(([id, w]) => (w.intervention.supervision ? [[id, w.intervention] as [string, Intervention]] : []));
  }
  const expiries = new Map<string, ReturnType<typeof setTimeout>>();
  const deciding = new Map<string, ParkedNode>();

  /** The person's verdict (undefined: what applies without asking, e.g. a sticky verdict; 'expired': the default) settles a waiting escalation. */
  function personAnswered(invocation: Invocation, intervention: Intervention, given: HumanAnswer | undefined | 'expired'): void {
    const wait = intervention.supervision;
    if (!wait || setup.kind !== 'on' || !isPersonSupervisor(setup.supervision.deps.supervisor)) {
      feed({ type: 'failed', id: invocation.id, failure: wait?.failure ?? { code: 'internal_error', message: `${invocation.id} waits for a supervisor verdict and this run has no person supervising it` } });
      return;
    }
    const supervision = setup.supervision;
    const timeout = setup.supervision.deps.supervisor.person.decision_timeout_ms;
    clearTimeout(expiries.get(invocation.id));
    expiries.delete(invocation.id);
    // An answer that comes after the time set (the run was parked meanwhile) finds the default applied.
    const answer = given !== 'expired' && wait.expires_at !== undefined && Date.parse(wait.expires_at) <= Date.now() ? 'expired' : given;
    if (answer !== undefined && answer !== 'expired') emit({ type: 'intervention.answered', invocation_id: invocation.id, round: 0, intervention_id: intervention.id, answer, settled_by: 'person' });
    // Decided in a moment (the kernel replays the answer); running meanwhile, so the run waits for it. Not
    // persisted as running: a stop in that moment must never run the failed node again (it stays waiting on disk).
    const controller = new AbortController();
    running.set(invocation.id, controller);
    deciding.set(invocation.id, { intervention });
    const others = waitingForPerson().length;
    const decided = answer === 'expired' ? Promise.resolve({ kind: 'decided' as const, result: expirePerson(supervision, wait, timeout) }) : answerPerson(supervision, wait, answer?.verdict, others);
    void decided
      .then((step) => {
        running.delete(invocation.id);
        deciding.delete(invocation.id);
        if (step.kind === 'decided') {
          // Not answered by the person: the trace still closes the question, saying what settled it.
          if (answer === undefined || answer === 'expired') emit(settledWithoutPerson(invocation, intervention, answer, step.result));
          emit(verdictEvent(invocation, step.result));
        }
        personStep(supervision, invocation, step, wait.attempt);
      })
      .catch((err: unknown) => {
        running.delete(invocation.id);
        deciding.delete(invocation.id);
        crashed ??= errorText(err);
        for (const c of running.values()) c.abort();
        wake();
      });
  }

  /** A person's decision goes on: the verdict applies, or the escalation waits (again) for them, persisted at once. */
  function personStep(supervision: RunSupervision, invocation: Invocation, step: Awaited<ReturnType<typeof escalateToPerson>>, attempt: number): void {
    if (step.kind === 'ask') {
      const intervention = escalationIntervention(runId, step.wait);
      emit({ type: 'intervention.requested', invocation_id: invocation.id, round: 0, intervention });
      waiting.set(invocation.id, { intervention });
      feed({ type: 'waiting', id: invocation.id });
      persistSoon(true);
      armExpiry(invocation.id, intervention);
      return;
    }
    const { next } = step.result;
    if (next.kind === 'run_again') start(invocation, undefined, attempt + 1);
    else feed(settlementOf(invocation.id, next, sentBy(invocation.id)));
    // A skip or fail of the person's sticks: escalations of the same failure waiting for them are decided by it now.
    for (const [id, intervention] of waitingForPerson()) {
      if (intervention.supervision && stickyVerdictFor(supervision.ledger, intervention.supervision.escalation) !== undefined) settleWaitingEscalation(id, undefined);
    }
    if (waiting.size > 0) persistSoon(true);
  }

  /** A waiting escalation with a decision time: its default applies when the time is up (at once when it passed while parked). */
  function armExpiry(id: string, intervention: Intervention): void {
    const expiresAt = intervention.supervision?.expires_at;
    if (expiresAt === undefined) return;
    const timer = setTimeout(() => {
      if (waiting.get(id)?.intervention.id !== intervention.id || settled || finished) return;
      settleWaitingEscalation(id, 'expired');
    }, Math.max(0, Date.parse(expiresAt) - Date.now()));
    timer.unref?.();
    expiries.set(id, timer);
  }

  // Until the run settles, a person's answer goes to the waiting node here, in the live run.
  let settled = false;
  const answerLive: LiveAnswer = (interventionId, answer) => {
    if (settled || suspended || finished || crashed !== undefined) return false;
    const found = [...waiting.entries()].find(([, w]) => w.intervention.id === interventionId);
    if (!found) return false;
    const [id, parked] = found;
    checkOffered(parked.intervention, answer);
    checkEditedNodeApproval(parked, answer);
    // Claimed here (one thread): a second answer to the same question finds nothing waiting.
    waiting.delete(id);
    resumeNode(id, { parked, answer });
    // The disk follows at once, so a host stop never resumes the answered node again: the
    // checkpoint without it (the trace first), or none when nothing else waits.
    if (waiting.size > 0) persistSoon(true);
    else if (persisted) {
      try {
        options.dropWaiting?.();
        persisted = false;
        persistedVersion = undefined;
      } catch (err) {
        crashed ??= `could not drop the answered wait: ${errorText(err)}`;
        for (const controller of running.values()) controller.abort();
      }
    }
    wake();
    return true;
  };

  /** What an agent or pattern node runs its agents with; one that uses all of the workflow's servers shares the run's tool host. */
  async function agentDeps(node: NodeOf<'agent'> | NodeOf<'pattern'>) {
    const toolHost = node.servers === undefined && graph.servers.length > 0 ? (await tools.get()).host : options.toolHost;
    return { runId, keyRunId, keepToolResults, graph, specDir, workspace, ledger: options.ledger, confirm: options.confirm, privacy, ollamaHost: options.ollamaHost, credentials: options.credentials, onProgress: options.onProgress, onElicit: options.onElicit, oauthConsent: options.oauthConsent, onReviewSample: options.onReviewSample, sealKeys, toolHost, ...(options.parkEscalations ? { durableServerInput: true } : {}) };
  }

  /** What a workflow node (or an agent's workflow tool) runs its child with: this run's shared options, its own journal (issue 29). */
  function subworkflowDeps(invocationId: string): SubworkflowDeps {
    const run = childRunner(
      (child) =>
        runWorkflow({
          ...child,
          ledger: options.ledger,
          confirm: options.confirm,
          ollamaHost: options.ollamaHost,
          credentials: options.credentials,
          privacy,
          onProgress: options.onProgress,
          providers: options.providers,
          onElicit: options.onElicit,
          oauthConsent: options.oauthConsent,
          onReviewSample: options.onReviewSample,
          parkEscalations: options.parkEscalations,
          sealKeys,
          ...(options.reviewTeacher ? { reviewTeacher: options.reviewTeacher } : {}),
          ...(trace ? { trace } : {}),
          ...(options.library ? { library: options.library } : {}),
        }),
      { privacy, ollamaHost: options.ollamaHost, credentials: options.credentials },
    );
    const restarted = restarts.get(invocationId);
    return { library: options.library, runId, keyRunId, ...(restarted !== undefined ? { restarted } : {}), workflowId: graph.id, chain: options.chain ?? [graph.id], ...(options.onEvent ? { onEvent: options.onEvent } : {}), runChild: run };
  }

  async function execute(invocation: Invocation, run: NodeRun, resumeWith?: Resumed): Promise<NodeOutcome> {
    const node = nodes.get(invocation.node);
    const inputsOf = invocation.inputs;
    // A model never sees a sensitive value: an agent's or a pattern's task is written from its inputs as the trace shows them.
    const modelRun = (): NodeRun => ({ ...run, invocation: { ...invocation, inputs: secrets.mask(flowSecrets.maskInputs(invocation.node, inputsOf)) } });
    switch (node?.kind) {
      case 'template':
        return runTemplateNode(node, inputsOf);
      case 'assert':
        return runAssertNode(node, inputsOf);
      case 'tool':
        return runToolNode(node, run, {
          runId,
          keyRunId,
          keepToolResults,
          graph,
          tools,
          ledger: options.ledger,
          secrets,
          vars,
          confirm: options.confirm,
          privacy,
          ollamaHost: options.ollamaHost,
          credentials: options.credentials,
          teacher: options.reviewTeacher,
          parkEscalations: options.parkEscalations,
          ...(replay ? { replay: { live: replay.live, recorded: narrow(recordedOf(invocation.id), 'tool') } } : {}),
          onSnapshot: (taken) => {
            // Recorded once, by the tool node that took it: every tool node validates against it.
            if (snapshot === taken) return;
            snapshot = taken;
            run.emit({
              type: 'tools.snapshot',
              round: taken.round,
              hash: taken.hash,
              tools: taken.tools.map((t) => ({ name: t.name, server: t.server, schema_hash: t.schema_hash, effect: t.effect.effect, effect_source: t.effect_source })),
            });
          },
        }, resumeWith && { intervention: resumeWith.parked.intervention, answer: resumeWith.answer, ...(resumeWith.parked.server_input ? { serverInput: resumeWith.parked.server_input } : {}) });
      case 'agent': {
        const agentCheckpoint = resumeWith?.parked.checkpoint;
        if (resumeWith && !agentCheckpoint) return failed('internal_error', `the waiting agent node ${invocation.id} has no checkpoint to resume`);
        // Stored workflows offered as tools (issue 29): their calls run child workflows under this invocation.
        const workflowTools = node.workflow_tools?.length ? workflowToolsFor(node.workflow_tools, subworkflowDeps(invocation.id), invocation.id, run.emit) : undefined;
        if (workflowTools && !workflowTools.ok) return failed('unknown_workflow', workflowTools.message);
        return runAgentNode(
          node,
          modelRun(),
          {
            ...(await agentDeps(node)),
            providers: options.providers,
            ...(options.nodeProfiles?.get(node.id) ? { profiles: options.nodeProfiles.get(node.id) } : {}),
            ...(workflowTools?.ok ? { wrapToolHost: workflowTools.wrap } : {}),
            ...(replay ? { replay: { live: replay.live, replayOf: replay.replay_of, recorded: narrow(recordedOf(invocation.id), 'agent') } } : {}),
          },
          agentCheckpoint && resumeWith ? { checkpoint: agentCheckpoint, answer: resumeWith.answer } : undefined,
        );
      }
      case 'pattern': {
        // A replay gives the pattern its recorded member answers and judgments (a person's too). A plan
        // without them (kept before they were recorded) runs replay scripts again, and refuses live models.
        const recorded = narrow(recordedOf(invocation.id), 'pattern');
        const live = replay && !recorded ? liveModelsOf(node) : [];
        if (live.length > 0) return failed('replay_mismatch', `the pattern node ${node.id} replays only on replay models (it uses ${live.join(', ')})`);
        // A person's judgment parks the loop (the run waits persisted); an answer resumes it at the judgment.
        return runPatternNode(node, modelRun(), {
          ...(await agentDeps(node)),
          ...(replay && !replay.live ? { dryRun: true } : {}),
          ...(replay && recorded ? { replay: { recorded, replayOf: replay.replay_of } } : {}),
          parkHuman: true,
          // Members offered stored workflows as tools run them as child runs (issue 29).
          ...(node.members.some((m) => m.workflow_tools?.length) ? { subworkflow: subworkflowDeps(invocation.id) } : {}),
        }, resumeWith);
      }
      case 'workflow': {
        // A replay never runs a child workflow again: its agents would call live models (and, in a
        // dry run, nothing may execute). The child is a run of its own, replayed on its own.
        if (replay) {
          // The child the recorded run started last (one cut off by a stop was started again under an id of its own).
          const recorded = narrow(recordedOf(invocation.id), 'workflow')?.child_run_id ?? childRunId(replay.replay_of, invocation.id);
          return failed('replay_mismatch', `the workflow node ${node.id} ran the stored workflow "${node.workflow}" as a run of its own; a replay does not run it again: replay that run on its own (steward replay ${recorded})`);
        }
        // A child run that waits is resumed from its own checkpoint with the answer (workflow-node.ts).
        const child = resumeWith?.parked.child;
        if (resumeWith && !child) return failed('internal_error', `the waiting workflow node ${invocation.id} has no child run to resume`);
        return runSubworkflowNode(node, run, subworkflowDeps(invocation.id), child && resumeWith ? { checkpoint: child, answer: resumeWith.answer, interventionId: resumeWith.parked.intervention.id } : undefined);
      }
      default:
        return failed('internal_error', `the scheduler asked to run ${invocation.node}, which is not an agent, pattern, tool, template, assert or workflow node`);
    }
  }

  try {
    if (resumed && options.resume && resumeTarget !== undefined) {
      // The same events give the same state: replayed silently, then the answer runs the node again.
      for (const event of log) state = schedule(state, event).state;
      // A new registry in each process: what the log brought in is learnt again before anything shows.
      flowSecrets.replayed(log, (id) => (Object.hasOwn(state.invocations, id) ? state.invocations[id]?.node : undefined));
      const parked = waiting.get(resumeTarget);
      waiting.delete(resumeTarget);
      if (parked) resumeNode(resumeTarget, { parked, answer: options.resume.answer });
      // Cut off by a host stop while they ran: they start again (a tool call they made is never re-run).
      // A supervisor's retry goes on as the attempt it was (a read's retry keeps its own key: I5 holds).
      for (const invocation of resumed.running) {
        if (invocation.id === resumeTarget) continue;
        // Its child runs the stop cut off are closed as interrupted in the history: the report says so before the new start.
        for (const child of openChildren.get(invocation.id) ?? []) {
          emit({ type: 'subworkflow.finished', invocation_id: invocation.id, workflow_id: child.workflow_id, child_run_id: child.child_run_id, status: 'interrupted', message: CHILD_CUT_OFF, interventions: [], ...(child.tool !== undefined ? { tool: child.tool } : {}) });
        }
        openChildren.delete(invocation.id);
        restarts.set(invocation.id, (restarts.get(invocation.id) ?? 0) + 1);
        start(invocation, undefined, attempts.get(invocation.id) ?? 1);
      }
      // Escalations still waiting for a person keep their decision time (past already: the default now).
      for (const [id, intervention] of waitingForPerson()) armExpiry(id, intervention);
    } else {
      emit({
        type: 'workflow.started',
        workflow_id: graph.id,
        workflow_name: graph.name,
        nodes: graph.nodes.map((n) => ({ id: n.id, kind: n.kind, ...(n.label !== undefined ? { label: n.label } : {}) })),
        inputs: flowSecrets.maskFields(inputs),
        ...traceRetention(trace),
        ...(replay ? { replay_of: replay.replay_of, dry_run: !replay.live } : {}),
        ...(options.traceProfile !== undefined ? { trace_profile: options.traceProfile } : {}),
        ...(setup.kind === 'on' ? { supervisor: supervisorNamed(setup.supervision.deps.supervisor.identity) } : {}),
        ...(options.parent ? { parent: options.parent } : {}),
      });
      // Asked for and not to be had: the run goes on unsupervised, and says so.
      if (setup.kind === 'unavailable') emit({ type: 'run.notice', message: setup.notice.slice(0, 500) });
      feed({ type: 'start', inputs });
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    options.liveAnswers?.(answerLive);
    // Every end of an invocation feeds the scheduler; the run settles once nothing runs (after a
    // cancel too: aborted work ends before the run reports, so nothing is left running).
    while (running.size > 0) await new Promise<void>((resolve) => (wake = resolve));
  } catch (err) {
    for (const controller of running.values()) controller.abort();
    return { ...setupFailure(errorText(err)), setup_error: undefined };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    // Settled: an answer from now on goes to the checkpoint (kept or dropped just below, before any await).
    settled = true;
    options.liveAnswers?.(undefined);
    for (const timer of expiries.values()) clearTimeout(timer);
  }

  if (persistTimer !== undefined) clearTimeout(persistTimer);
  persistTimer = undefined;
  const parks = !finished && crashed === undefined && waiting.size > 0;
  if (parks) persistNow();
  // A checkpoint kept while the run went on is void once it ended otherwise.
  if (persisted && (!parks || crashed !== undefined)) options.dropWaiting?.();
  await tools.close();
  const invocations = secrets.mask([...records.values()]);
  if (crashed !== undefined) return { run_id: runId, status: 'failed', outputs: {}, invocations, message: secrets.maskText(`the run stopped: ${crashed}`) };
  if (!finished) {
    if (waiting.size > 0) {
      const checkpoint = checkpointNow();
      // As the trace shows them (the checkpoint keeps the call itself, to make it once approved).
      const interventions = [...waiting.entries()].map(([invocation_id, w]) => ({ invocation_id, intervention: secrets.mask(redactToolArguments(w.intervention, snapshot, sensitiveFound)) }));
      return { run_id: runId, status: 'waiting', outputs: {}, invocations, message: interventions.map((i) => `${i.invocation_id}: ${i.intervention.reason}`).join('; '), interventions, checkpoint };
    }
    finished = { type: 'finished', status: 'failed', outputs: {}, failure: { code: 'internal_error', message: 'the scheduler stopped with nothing running and no end' } };
  }
  // Complete to the scheduler (its outputs got their inputs), yet work was lost on the way: its own outcome, never a plain success.
  const partial = finished.status === 'completed' ? partialFailureOf(invocations, (node) => nodes.get(node)?.label ?? node) : undefined;
  const status: WorkflowStatus = partial ? 'completed_with_failures' : (personEnded(finished, stoppedBy) ?? finished.status);
  const message = partial ? partialMessage(partial) : finished.status === 'completed' ? undefined : (describeFailure(finished.failure) ?? (finished.status === 'cancelled' ? (stoppedBy ?? 'the run was cancelled') : undefined));
  const runOutputs = flowSecrets.maskRunOutputs(finished.outputs);
  emit({ type: 'run.finished', status, outputs: runOutputs, ...(message !== undefined ? { message } : {}), ...(partial ? { partial } : {}), rounds, event_count: stamper.count + 1 });
  if (crashed !== undefined) return { run_id: runId, status: 'failed', outputs: {}, invocations, message: secrets.maskText(`the run's end was not recorded: ${crashed}`) };
  return { run_id: runId, status, outputs: secrets.mask(runOutputs), invocations, ...(message !== undefined ? { message: secrets.maskText(message) } : {}), ...(partial ? { partial } : {}) };
}
