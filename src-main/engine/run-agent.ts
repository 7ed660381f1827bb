import type { OAuthConsent } from '../mcp/mcp-tool-host';
import { randomUUID } from 'node:crypto';
import { toPromise } from 'xstate';
import type { BoundaryInput } from '@shared/boundary/machine';
import { checkFinalAnswer, foldClaimEvent, NO_CLAIM_FACTS, type ClaimFacts } from '@shared/boundary/final-answer-check';
import type { RunEvent, RunEventPayload, FinalRunStatus } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { modelLabel, type ChatMessage, type ModelReply } from '@shared/contracts/model';
import type { LearningDataSettings, ProfileKind, ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import type { RoundRecord, ToolExecution } from '@shared/contracts/round';
import { roundNumber } from '@shared/contracts/round-number';
import type { RunResult } from '@shared/contracts/run-result';
import type { ModelScriptInput } from '@shared/contracts/script';
import type { AgentSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { AgentRoute, TakenRoute } from '@shared/contracts/routes';
import { describeExposure, type PrivacyPolicy } from '@shared/policy/privacy';
import { isSampled } from '@shared/policy/sampler';
import type { ScsRecord } from '@shared/scs/contracts';
import { redactToolArguments } from '@shared/util/redact';
import type { CredentialStore } from '../credentials/credential-store';
import { SecretRegistry } from '../credentials/secret-registry';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import { toolProgressEvent } from '../mcp/progress-event';
import { startToolHost } from '../mcp/mcp-tool-host';
import type { ElicitationAsk, ElicitationReply } from '../mcp/client-capabilities';
import { sampleWith } from '../mcp/sample-with-model';
import { recordedConsent, recordedElicitation } from '../mcp/recorded-elicitation';
import { maskedReview, type ReviewSample } from '../mcp/reviewed-sampling';
import type { ToolHost } from '../mcp/tool-host';
import type { ModelProvider } from '../providers/provider';
import { modelPlace, recordCalls } from '../providers/record-calls';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../providers/retry';
import { RecentEvents } from '../scs/evidence';
import { eventIdsSince } from '../scs/round-fact';
import { ScsSession } from '../scs/scs-session';
import { createBoundaryActor } from './boundary-actor';
import { boundaryEffects, type ConfirmTool } from './boundary-actors';
import { CanonicalHistory } from './canonical-history';
import type { RunCheckpoint } from './checkpoint';
import { defaultSealKeys, type SealKey, type SealKeys } from '../credentials/seal-keys';
import { credentialErrorText, CredentialStoreError } from '../credentials/credential-store';
import { cannotWaitWords } from '../workflow/sealed-checkpoint';
import { openRunCheckpoint, sealRunCheckpoint } from './sealed-run-checkpoint';
import { createEventStamper } from './event-stamper';
import { Handover } from './handover';
import { interventionFor, rawDecisionOf, resumeStep } from './intervention';
import type { PausedCall } from './boundary-actors';
import { inputResponsesFor, serverInputIntervention, serverInputWait, type PausedInput } from './server-input';
import { createPromptEncoder, learningFromRoundAndShadow } from './learning-record';
import { ModelGuard } from './model-guard';
import { unreachableModelMessage } from './model-reachability';
import { interpretRound } from './round-outcome';
import { prepareRun, type PreparedRun } from './run-setup';
import { ProvenanceFactsOf } from './provenance-facts';
import { boundResult } from './stored-text';
import { boundModelText } from '@shared/history/model-text';
import { applyTraceSettings, traceRetention } from './trace-settings';

export interface RunAgentOptions {
  spec: AgentSpec;
  specDir: string;
  /** Absolute workspace folder (`${workspace}`), when the spec has one. */
  workspace?: string;
  /** The replay script (completed with defaults here, so callers may give only the roles they use). */
  script?: ModelScriptInput;
  ledger: IdempotencyLedger;
  onEvent: (event: RunEvent) => void;
  runId?: string;
  /** The run whose trace the events go into, when not this one (a workflow's node): its tool calls' `traceparent`. */
  traceRunId?: string;
  signal?: AbortSignal;
  confirm?: ConfirmTool;
  /** Ollama base URL for refs that don't name one. */
  ollamaHost?: string;
  /** The workspace's privacy policy; local only when absent. */
  privacy?: PrivacyPolicy;
  /** Where `keychain:NAME` references are resolved (the OS keychain). Needed only when the spec has some. */
  credentials?: CredentialStore;
  /** Call the models, execute no tool (the panel's Dry-run). */
  dryRun?: boolean;
  /** This run replays that recorded run (its answers are the script): recorded on run.started. */
  replayOf?: string;
  trace?: TraceSettings;
  /**
   * Whether the trace these events go into records tool results (a workflow's node: the workflow's trace
   * profile says; otherwise `trace` does): a call's key then names where its result is recorded whole, to be
   * given again to a node a stop cut off (boundary-actors.ts).
   */
  keepToolResults?: boolean;
  learning?: LearningDataSettings;
  /** The profile versions the settings came from: recorded on the run. */
  profiles?: Partial<Record<ProfileKind, ProfileVersionRef>>;
  /** Makes a waiting run durable; called right after its intervention.requested event is emitted. */
  persistWaiting?: (checkpoint: RunCheckpoint) => void;
  /** Continue a run that waited for a person, with their answer. */
  resume?: { checkpoint: RunCheckpoint; answer: HumanAnswer };
  /** The keys that seal a waiting run's sensitive argument values (issue 27); the OS keychain's when absent. */
  sealKeys?: SealKeys;
  /** Injected for tests and benchmarks; resolved from the spec otherwise. */
  providers?: { student: ModelProvider; teacher: ModelProvider };
  toolHost?: ToolHost;
  /** Wraps the run's tool host (given or started): a workflow agent node's workflow tools are added so (workflow-as-tool.ts). */
  wrapToolHost?: (host: ToolHost) => ToolHost;
  /** How long the check before round 1 waits for each model's address to answer (5 s by default). */
  reachabilityTimeoutMs?: number;
  /** How transient model failures are retried; tests pass an instant `sleep`. */
  retry?: Partial<RetryPolicy>;
  /** Progress while waiting on a slow MCP server ("still waiting for X to list its tools (10 s)…"). */
  onProgress?: (line: string) => void;
  /** How often that progress is reported (10 s by default); tests make it short. */
  progressIntervalMs?: number;
  /**
   * The run can wait durably (the app's runs, issue 30): a 2026-07-28 server's question for a person
   * pauses its call, the run waits like every other wait (a checkpoint), and the person's answer
   * continues the same call. Absent: such questions are answered in the process (`onElicit`).
   */
  durableServerInput?: boolean;
  /** A person answers an MCP server's elicitation (never a model); absent: servers are told Steward cannot ask. */
  onElicit?: (ask: ElicitationAsk) => Promise<ElicitationReply>;
  /** A person consents in the browser when a remote server asks for a wider scope mid-run (mcp-tool-host.ts). */
  oauthConsent?: OAuthConsent;
  /** A person allows or denies each sampling request of a server with `sampling: "ask"`; absent, those are denied. */
  onReviewSample?: ReviewSample;
  /**
   * The spec's task and instructions are final: `${…}` in them is text, not a variable (a workflow's
   * agent node substitutes its own variables before its inputs, which may hold `${…}`, go in).
   */
  textsFinal?: boolean;
}

export interface AgentRun extends RunResult {
  /** The run could not start (servers, providers, variables, privacy): bad input rather than a bad run. */
  setup_error?: string;
  /** Present when the run waits for a person: what to persist to resume it. */
  checkpoint?: RunCheckpoint;
}

const noConfirmation: ConfirmTool = async () => 'unavailable';

/** A person's edited arguments as the trace records them: sensitive ones masked, as in the decision they edit. */
function withMaskedEdit(answer: HumanAnswer, decision: Intervention['decision'], snapshot: ToolSnapshot, found: (value: string) => void): HumanAnswer {
  if (answer.arguments === undefined || decision?.decision_type !== 'tool_call') return answer;
  return { ...answer, arguments: redactToolArguments({ ...decision, arguments: answer.arguments }, snapshot, found).arguments };
}

/** This round's offer: the host's tools, and the agent's routes when it declares any (validated like a tool name). */
function withRoutes(snapshot: ToolSnapshot, routes: readonly AgentRoute[] | undefined): ToolSnapshot {
  return routes === undefined ? snapshot : { ...snapshot, routes: [...routes] };
}

/** What round.started records of the person's words (its contract's bound; the prompt has them whole). */
const toldText = (text: string): string => (text.length <= 8000 ? text : `${text.slice(0, 7999)}…`);

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The agent loop: every model round goes through the decision boundary machine; the loop decides
 * who proposes (lifecycle phase, takeover), whether the sampler drew the round, what SCS allows,
 * and what the round's outcome means for the run (continue, hand over, wait for a person, stop).
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  // A checkpoint holding a sensitive argument's value is sealed: opened here, or the run ends saying why (issue 27).
  const parked = options.resume?.checkpoint;
  if (!parked?.sealed || !options.resume) return runOpened(options, false);
  const opened = await openRunCheckpoint(parked, options.sealKeys ?? defaultSealKeys());
  if (!opened.ok) return lostSealedRun(parked, opened.message, options);
  // What the clear checkpoint left out comes back from the box: the spec's inline script and the run's script.
  const { checkpoint } = opened;
  const spec = options.spec.script === undefined && checkpoint.spec.script !== undefined ? { ...options.spec, script: checkpoint.spec.script } : options.spec;
  const script = options.script ?? checkpoint.script;
  return runOpened({ ...options, spec, ...(script !== undefined ? { script } : {}), resume: { ...options.resume, checkpoint } }, true);
}

/** A sealed run whose box cannot be opened: it ends failed, in words; nothing is sent to any tool. */
function lostSealedRun(checkpoint: RunCheckpoint, message: string, options: RunAgentOptions): AgentRun {
  const stamper = createEventStamper(checkpoint.run_id, options.onEvent, checkpoint.next_seq);
  const rounds = checkpoint.rounds_before;
  const models = { student: modelLabel(checkpoint.spec.models.student), teacher: modelLabel(checkpoint.spec.models.teacher) };
  const result = { run_id: checkpoint.run_id, status: 'failed' as const, profiles: checkpoint.profiles, dry_run: checkpoint.dry_run, history: [], rounds: [], executions: [], models };
  try {
    stamper.emit({ type: 'run.finished', status: 'failed', message, rounds, event_count: stamper.count + 1 });
  } catch (err) {
    return { ...result, message: `${message} (its end was not recorded: ${errorText(err)})`, event_count: stamper.count };
  }
  return { ...result, message, event_count: stamper.count };
}

async function runOpened(options: RunAgentOptions, openedSealed: boolean): Promise<AgentRun> {
  const resumed = options.resume?.checkpoint;
  const runId = resumed?.run_id ?? options.runId ?? randomUUID();
  const replayOf = options.replayOf ?? resumed?.replay_of;
  const vars: Record<string, string> = { specDir: options.specDir };
  if (options.workspace !== undefined) vars.workspace = options.workspace;

  // SCS's monitor sees the run's last 20 events (its evidence pack).
  const recent = new RecentEvents();
  // What was refused and what ran, from the stored (masked) events: a final answer is checked against it.
  let claims: ClaimFacts = resumed?.claims ?? NO_CLAIM_FACTS;
  const stamper = createEventStamper(runId, (event) => {
    recent.add(event);
    claims = foldClaimEvent(claims, event);
    options.onEvent(event);
  }, resumed?.next_seq ?? 0);
  const history = new CanonicalHistory(resumed?.history ?? []);
  const rounds: RoundRecord[] = [];
  const executions: ToolExecution[] = [];
  const { spec } = options;
  const { supervision } = spec;
  const models = { student: modelLabel(spec.models.student), teacher: modelLabel(spec.models.teacher) };
  // The latest round's snapshot: its effect metadata says which arguments are sensitive.
  let snapshot: ToolSnapshot = { round: 0, tools: [], hash: 'no-tools-yet' };
  // Every credential value this run resolves is masked wherever it could surface: events, results, prompts.
  const secrets = new SecretRegistry();
  // A sensitive argument value found in any candidate (even one that did not parse) is masked by value from then on.
  // Whether the run holds such a value: then it waits only sealed (issue 27). A sealed run it resumed holds one.
  let holdsSensitive = openedSealed;
  const sensitiveFound = (value: string) => {
    if (secrets.registerSensitive(value)) holdsSensitive = true;
  };
  // Masked before trimmed: a cut must never leave half a secret unmasked.
  // Learning examples store each prompt as what is new since the previous example's (last: the stored prompts are compared).
  const storePrompt = createPromptEncoder();
  const emit = (payload: RunEventPayload) => stamper.emit(storePrompt(boundModelText(secrets.mask(applyTraceSettings(redactToolArguments(payload, snapshot, sensitiveFound), options.trace)))));
  // A dry run executes nothing: what its teacher said about a call that never ran teaches nothing.
  const learningKinds = new Set(options.learning?.record === false || options.dryRun === true ? [] : (options.learning?.kinds ?? ['review', 'shadow', 'demonstration']));

  let status: FinalRunStatus | 'waiting' = 'failed';
  let output: string | undefined;
  let message: string | undefined;
  let setupError: string | undefined;
  let checkpoint: RunCheckpoint | undefined;
  let intervention: Intervention | undefined;
  let scsRecord: ScsRecord | undefined;
  let route: TakenRoute | undefined;
  let toolHost: ToolHost | undefined;

  let prepared: PreparedRun | undefined;
  try {
    prepared = await prepareRun({
      spec,
      vars,
      script: options.script,
      privacy: options.privacy,
      ollamaHost: options.ollamaHost,
      credentialStore: options.credentials,
      secrets,
      scriptStart: resumed?.script_positions,
      providers: options.providers,
      textsFinal: options.textsFinal,
    });
  } catch (err) {
    setupError = secrets.maskText(errorText(err));
  }
  if (!resumed) {
    emit({
      type: 'run.started',
      spec_id: spec.id,
      spec_name: spec.name,
      task: prepared?.task ?? spec.task,
      supervision,
      models,
      workspace: options.workspace,
      exposure: describeExposure(spec.models, options.ollamaHost),
      profiles: options.profiles ?? {},
      dry_run: options.dryRun === true,
      limits: spec.limits,
      ...(spec.synthesis !== undefined ? { synthesis: spec.synthesis } : {}),
      ...(replayOf !== undefined ? { replay_of: replayOf } : {}),
      ...traceRetention(options.trace),
    });
  }

  try {
    if (!prepared) throw new Error(setupError ?? 'the run could not be prepared');
    const { instructions, task } = prepared;
    // Nobody answering at a model's address ends the run here, with one message, before any tool
    // server starts and before a round is spent on it. Injected providers are not the spec's.
    if (!options.providers) {
      const unreachable = await unreachableModelMessage(spec, prepared.endpoints, { signal: options.signal, timeoutMs: options.reachabilityTimeoutMs });
      if (unreachable !== undefined) {
        setupError = secrets.maskText(unreachable);
        throw new Error(setupError);
      }
    }
    // A model that cannot heal ends the run after its round, with its one message. A failed
    // proposal ends the round by itself; a failed review would be asked again (max_verdict_attempts),
    // so that round is stopped at once.
    let inFlight: { actor: { send: (event: { type: 'CANCEL'; reason?: string }) => void }; proposer: string } | undefined;
    const guard = new ModelGuard({
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      onRetry: (notice) => emit({ type: 'model.retry', ...notice }),
      onFatal: (reason, role) => {
        if (role === 'teacher' && inFlight?.proposer === 'student') inFlight.actor.send({ type: 'CANCEL', reason });
      },
    });
    // The privacy log: every call that reaches a model (each retry too), committee and monitor included.
    const observe = (provider: ModelProvider, role: 'student' | 'teacher'): ModelProvider =>
      recordCalls(provider, modelPlace(spec.models[role], options.ollamaHost), (call) => emit({ type: 'model.called', ...call }), (answer) => emit({ type: 'model.answered', ...answer }));
    const providers = { student: guard.wrap(observe(prepared.providers.student, 'student')), teacher: guard.wrap(observe(prepared.providers.teacher, 'teacher')) };
    // A slow server start or tool listing is an event (the app shows it) as well as a CLI line.
    const notice = (line: string): void => {
      emit({ type: 'run.notice', message: secrets.maskText(line).slice(0, 500) });
      options.onProgress?.(line);
    };
    try {
      const wrap = options.wrapToolHost ?? ((host: ToolHost) => host);
      toolHost = wrap(options.toolHost ?? (await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: options.specDir, credentials: prepared.credentials, onProgress: notice, progressIntervalMs: options.progressIntervalMs, privacy: options.privacy, oauthStore: options.credentials, oauthConsent: options.oauthConsent && recordedConsent(options.oauthConsent, { mask: (text) => secrets.maskText(text), emit }), onSecret: (name, value) => void secrets.register(name, value), ...(options.durableServerInput ? { elicitsDurably: true } : {}), onElicit: options.onElicit && recordedElicitation(options.onElicit, { mask: (text) => secrets.maskText(text), emit }), onSample: sampleWith(providers.student, options.signal), onReviewSample: maskedReview(options.onReviewSample, (text) => secrets.maskText(text)), sampleModel: modelLabel(spec.models.student), onSent: (call) => emit({ type: 'mcp.called', ...call }) })));
    } catch (err) {
      setupError = secrets.maskText(errorText(err));
      throw err;
    }

    let feedback: string | undefined;
    let consecutiveFailures = resumed?.consecutive_failures ?? 0;
    let failuresSoFar = 0;
    const delivered: string[] = [...(resumed?.delivered ?? [])];
    const prompts = new Map<number, ChatMessage[]>();
    const shadows = new Map<number, { reply: ModelReply } | { error: string }>();
    const handover = new Handover(supervision, resumed?.takeover_left ?? 0);
    const scs = new ScsSession({
      settings: spec.scs,
      maxRounds: spec.limits.max_rounds,
      models: spec.models,
      labels: models,
      providers,
      observe,
      script: prepared.script,
      context: () => ({ task, instructions, snapshot, recent: recent.list() }),
      emit,
      mask: (value) => secrets.mask(redactToolArguments(value, snapshot, sensitiveFound)),
      signal: options.signal,
      resumed: resumed?.scs,
    });
    let preselected: BoundaryInput['preselected'];
    // A call paused by its server's question (issue 30), as its round left it; and the one a person's answer continues.
    let paused: PausedInput | undefined;
    let continuation: (PausedCall & { server: string; tool: string }) | undefined;
    // The person's words for the next round's proposer (a rejection and its note, a reply): its prompt carries them, round.started records them.
    let told: string | undefined;
    let finished = false;

    if (options.resume) {
      const { checkpoint: cp, answer } = options.resume;
      // The waiting round's tools say which arguments are sensitive, also in a person's edited ones.
      if (cp.tool_snapshot) snapshot = cp.tool_snapshot;
      // A tool's question: the person's form entries go to the server only, never into the trace (as for any server's ask).
      const recorded = cp.intervention.kind === 'server_input' ? { action: answer.action, ...(answer.note !== undefined ? { note: answer.note } : {}) } : withMaskedEdit(answer, cp.intervention.decision, snapshot, sensitiveFound);
      emit({ type: 'intervention.answered', round: cp.intervention.round, intervention_id: cp.intervention.id, answer: recorded });
      const step = resumeStep(cp.intervention, answer);
      switch (step.kind) {
        case 'continue_call': {
          const wait = cp.server_input;
          if (!wait) throw new Error('the run waited for a tool\'s question but kept no call to continue');
          preselected = step.preselected;
          const continueWith = { inputResponses: inputResponsesFor(wait, answer), ...(wait.request_state !== undefined ? { requestState: wait.request_state } : {}) };
          continuation = { server: wait.server, tool: wait.tool, idempotency_key: wait.idempotency_key, continueWith };
          break;
        }
        case 'approve':
          preselected = step.preselected;
          // Approve with edits: the person's decision replaces the proposed one, and teaches as a review would.
          if (answer.arguments !== undefined && learningKinds.has('review')) {
            emit({
              type: 'learning.example',
              kind: 'review',
              round: cp.intervention.round,
              context: cp.prompt ?? [],
              rule: 'human_decided',
              student_candidate: cp.intervention.decision,
              final_decision: step.preselected.decision,
              reason_codes: [],
              agreement: false,
              models,
            });
          }
          break;
        case 'reject':
          feedback = step.feedback;
          told = toldText(step.feedback);
          break;
        case 'answer':
          feedback = step.feedback;
          told = toldText(step.feedback);
          // The question's history entry carries the answer: later prompts still show what the person said.
          if (step.result !== undefined) history.settleLastOfRound(cp.intervention.round, step.result);
          break;
        case 'takeover':
          emit({ type: 'handover', round: cp.intervention.round, to: 'teacher', reason: 'escalation', rounds: handover.startTakeover() });
          break;
        case 'stop':
          // The person ended it: "Stopped by you", not a cancel or a failure (issue 28).
          status = 'stopped';
          message = 'you stopped the run';
          finished = true;
          break;
      }
    }

    const effects = boundaryEffects({
      runId,
      traceRunId: options.traceRunId ?? runId,
      instructions: () => scs.withBrief(instructions),
      finishGate: (round) => scs.finishGate(round),
      task,
      student: providers.student,
      teacher: providers.teacher,
      studentMode: spec.models.student.provider === 'script' ? 'structured' : spec.models.student.mode,
      toolHost,
      ledger: options.ledger,
      history,
      confirm: options.confirm ?? noConfirmation,
      feedback: () => feedback,
      // A tool may echo a credential (an env dump, an error): masked before history and prompts.
      maskText: (text) => secrets.maskText(text),
      maskVersion: () => secrets.version,
      sensitiveFound,
      onExecution: (e) => executions.push(secrets.mask(e)),
      onToolProgress: (round, key, report) => emit(toolProgressEvent(round, key, report, (text) => secrets.maskText(text))),
      dryRun: options.dryRun === true,
      keepResults: options.dryRun !== true && (options.keepToolResults ?? options.trace?.include_tool_results !== false),
      // Only the round's own prompt is kept (its learning example, a checkpoint): not every round's, for the run's length.
      onPrompt: (round, messages) => {
        prompts.clear();
        prompts.set(round, messages);
      },
      shadow: supervision.enabled && supervision.phase === 1 ? (round, outcome) => shadows.set(round, outcome) : undefined,
      runSignal: options.signal,
      ...(options.durableServerInput ? { pauseForInput: true } : {}),
      onInputPause: (pause, call) => {
        paused = { pause, ...call };
      },
      continuation: (server, tool) => {
        const next = continuation;
        if (!next || next.server !== server || next.tool !== tool) return undefined;
        continuation = undefined;
        return next;
      },
      decisionTimeoutMs: spec.limits.decision_timeout_ms,
      maxOutputTokens: spec.limits.max_output_tokens,
    });
    const budget = () => scs.budget(spec.limits.max_rounds);
    // Where a tool call's values came from (issue 31): the person's texts against the results the history holds.
    const provenanceOf = new ProvenanceFactsOf(spec.servers);
    const personWords: string[] = [];
    const provenanceFacts = () => {
      // A loop, not flatMap: a round visits every entry, and an array each would be garbage each round.
      const given = [task, instructions, ...personWords];
      const entries = history.view();
      for (const e of entries) if (e.decision.decision_type !== 'tool_call' && e.result !== undefined) given.push(e.result);
      return provenanceOf.facts(given, entries, snapshot);
    };

    // A decision the person approved runs in its own round, even when the one it was asked in was the last.
    for (let round = resumed?.next_round ?? 0; (round < budget() || preselected !== undefined) && !finished; round += 1) {
      if (options.signal?.aborted) {
        status = 'cancelled';
        message = 'the run was cancelled';
        break;
      }
      try {
        snapshot = withRoutes(await toolHost.snapshot(round), spec.routes);
      } catch (err) {
        status = 'failed';
        message = `could not list tools for round ${roundNumber(round)}: ${errorText(err)}`;
        if (round === 0) setupError = message;
        break;
      }
      emit({
        type: 'tools.snapshot',
        round,
        hash: snapshot.hash,
        tools: snapshot.tools.map((t) => ({ name: t.name, server: t.server, schema_hash: t.schema_hash, effect: t.effect.effect, effect_source: t.effect_source })),
        ...(snapshot.routes !== undefined ? { routes: snapshot.routes.map((r) => r.name) } : {}),
      });
      if ((await scs.beforeRound(snapshot, failuresSoFar)) === 'blocked') {
        status = 'blocked';
        message = scs.blockedMessage;
        break;
      }
      if (guard.fatalMessage !== undefined) {
        status = 'failed';
        message = guard.fatalMessage;
        break;
      }

      const roundStartSeq = stamper.count;
      const proposer = handover.proposer();
      // A replay draws as the run it replays did, so the same rounds are sampled for review.
      const sampled = isSampled(supervision.rules.sample_rate, supervision.rules.sample_seed, replayOf ?? runId, round);
      if (told !== undefined) personWords.push(told);
      const actor = createBoundaryActor(effects, { round, proposer, snapshot, supervision, sampled, preselected, constraints: scs.constraints, claims, provenanceFacts: provenanceFacts(), ...(told !== undefined ? { told } : {}) });
      preselected = undefined;
      told = undefined;
      actor.on('*', (payload) => emit(payload));
      const onAbort = () => actor.send({ type: 'CANCEL' });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      inFlight = { actor, proposer };
      actor.start();
      let record: RoundRecord;
      try {
        record = await toPromise(actor);
      } finally {
        inFlight = undefined;
        options.signal?.removeEventListener('abort', onAbort);
      }
      rounds.push(redactToolArguments(record, snapshot, sensitiveFound));
      if (guard.fatalMessage !== undefined) {
        status = 'failed';
        message = guard.fatalMessage;
        break;
      }
      for (const example of learningFromRoundAndShadow(record, prompts.get(round) ?? [], shadows.get(round), snapshot, models)) {
        if (learningKinds.has(example.kind)) emit(example);
      }
      if (proposer === 'teacher' && handover.endOfRound() && supervision.phase >= 2) {
        emit({ type: 'handover', round, to: 'student', reason: 'takeover_ended' });
      }
      if (record.outcome === 'failed' || record.outcome === 'blocked' || record.execution?.is_error) failuresSoFar += 1;
      if ((await scs.afterRound(record, eventIdsSince(runId, roundStartSeq, stamper.count))) === 'blocked') {
        status = 'blocked';
        message = scs.blockedMessage;
        break;
      }

      let verdict = interpretRound(record, supervision, scs.finishRejection, spec.routes);
      // Nobody checked a final answer given after a refusal: not a green Completed (issue 10).
      if (verdict.next === 'stop' && verdict.status === 'completed') {
        const check = checkFinalAnswer(claims, record);
        if (!check.trusted) verdict = { ...verdict, status: 'unverified', message: check.message };
      }
      switch (verdict.next) {
        case 'continue':
          consecutiveFailures = verdict.failed ? consecutiveFailures + 1 : 0;
          feedback = verdict.feedback;
          if (verdict.delivered) delivered.push(verdict.delivered);
          if (consecutiveFailures >= spec.limits.max_consecutive_failures) {
            status = 'failed';
            message = `${consecutiveFailures} failed rounds in a row; last: ${record.message ?? record.reason ?? 'the tool reported an error'}`;
            finished = true;
          }
          break;
        case 'takeover':
          consecutiveFailures = 0;
          feedback = undefined;
          emit({ type: 'handover', round, to: 'teacher', reason: 'escalation', rounds: handover.startTakeover() });
          break;
        case 'wait': {
          // A run holding a sensitive value waits only sealed: without a keychain key it does not wait (nothing is sent to the tool).
          let sealKey: SealKey | undefined;
          if (holdsSensitive) {
            try {
              sealKey = await (options.sealKeys ?? defaultSealKeys()).current();
            } catch (err) {
              status = 'failed';
              message = cannotWaitWords('', err instanceof CredentialStoreError ? credentialErrorText(err) : errorText(err));
              finished = true;
              break;
            }
          }
          // The rounds after this one: a rejection is proposed again in them, and none left means nobody can try again.
          const pausedCall = verdict.kind === 'server_input' ? paused : undefined;
          paused = undefined;
          if (verdict.kind === 'server_input' && !pausedCall) {
            status = 'failed';
            message = 'a server asked for input, but the call it paused was not kept';
            finished = true;
            break;
          }
          intervention = pausedCall ? serverInputIntervention(record, pausedCall, runId) : interventionFor(record, verdict.kind, runId, supervision.enabled, Math.max(0, budget() - (round + 1)));
          // The intervention.requested event takes this seq; a resumed run continues after it.
          const requestedSeq = stamper.count;
          checkpoint = {
            version: 1,
            run_id: runId,
            saved_at: new Date().toISOString(),
            spec,
            spec_dir: options.specDir,
            workspace: options.workspace,
            // Already substituted: substituting again on resume changes nothing.
            script: prepared.script,
            script_positions: { student: providers.student.position?.() ?? 0, teacher: providers.teacher.position?.() ?? 0 },
            privacy: options.privacy,
            trace: options.trace,
            learning: options.learning,
            profiles: options.profiles ?? {},
            dry_run: options.dryRun === true,
            ...(replayOf !== undefined ? { replay_of: replayOf } : {}),
            next_round: round + 1,
            next_seq: requestedSeq + 1,
            rounds_before: (resumed?.rounds_before ?? 0) + rounds.length,
            history: history.entries(),
            consecutive_failures: consecutiveFailures,
            takeover_left: handover.remaining,
            delivered,
            intervention: { ...intervention, decision: rawDecisionOf(record, verdict.kind) },
            tool_snapshot: snapshot,
            ...(prompts.has(round) ? { prompt: prompts.get(round) } : {}),
            scs: scs.checkpoint(),
            claims,
            ...(pausedCall ? { server_input: serverInputWait(pausedCall) } : {}),
          };
          // Never on disk unlocked: the values sealed, the question in the clear as a page is shown it.
          if (sealKey) checkpoint = sealRunCheckpoint(checkpoint, sealKey, secrets);
          emit({ type: 'intervention.requested', round, intervention });
          options.persistWaiting?.(checkpoint);
          status = 'waiting';
          message = intervention.reason;
          finished = true;
          break;
        }
        case 'stop':
          status = verdict.status;
          output = verdict.output ?? (verdict.status === 'needs_input' ? delivered.join('\n\n') || undefined : undefined);
          message = verdict.message;
          route = verdict.route;
          finished = true;
          break;
      }
      if (!finished && round === budget() - 1) {
        status = 'max_rounds';
        message = `stopped after ${budget()} rounds without completing`;
        output = delivered.join('\n\n') || undefined;
      }
    }
    // Rounds used up with no end set in the loop (an answer given in the last round, an approved call run after it): the round limit.
    if (!finished && status === 'failed' && message === undefined) {
      status = 'max_rounds';
      message = `stopped after ${budget()} rounds without completing`;
      output = delivered.join('\n\n') || undefined;
    }
    scsRecord = scs.record();
    scs.stop();
  } catch (err) {
    status = 'failed';
    message = secrets.maskText(errorText(err));
  } finally {
    if (toolHost && !options.toolHost) await toolHost.close().catch(() => undefined);
  }

  const totalRounds = (resumed?.rounds_before ?? 0) + rounds.length;
  const event_count = stamper.count + (status === 'waiting' ? 0 : 1);
  // A waiting run is not finished: it ends when it resumes and reaches an end.
  if (status !== 'waiting') emit({ type: 'run.finished', status, output, message, ...(route !== undefined ? { route } : {}), rounds: totalRounds, event_count });
  return boundResult({
    run_id: runId,
    status,
    // Masked like the run.finished event: a message may quote a parse error, an output a value.
    output: secrets.mask(output),
    message: secrets.mask(redactToolArguments(message, snapshot, sensitiveFound)),
    ...(route !== undefined ? { route: secrets.mask(route) } : {}),
    intervention: intervention ? secrets.mask(redactToolArguments(intervention, snapshot, sensitiveFound)) : undefined,
    checkpoint,
    profiles: options.profiles ?? {},
    dry_run: options.dryRun === true,
    scs: scsRecord,
    // Results are reports like traces: sensitive arguments stay masked (the tools got the real values).
    history: secrets.mask(redactToolArguments(history.entries(), snapshot, sensitiveFound)),
    rounds: secrets.mask(rounds),
    // Masked again: a value found after an execution was recorded is masked in it too.
    executions: secrets.mask(executions),
    models,
    event_count,
    setup_error: setupError,
  });
}
