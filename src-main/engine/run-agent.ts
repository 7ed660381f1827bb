import { randomUUID } from 'node:crypto';
import { createActor, toPromise } from 'xstate';
import { boundaryMachine, type BoundaryInput } from '@shared/boundary/machine';
import { Decision } from '@shared/contracts/decision';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { LearningDataSettings, ProfileKind, ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import { parseCandidate } from '@shared/boundary/parse-candidate';
import { validateCandidate } from '@shared/boundary/validation';
import type { RunEvent, RunEventPayload, FinalRunStatus } from '@shared/contracts/events';
import { modelLabel, type ChatMessage, type ModelReply } from '@shared/contracts/model';
import type { RoundRecord, ToolExecution } from '@shared/contracts/round';
import type { RunResult } from '@shared/contracts/run-result';
import { ModelScript, type ModelScriptInput } from '@shared/contracts/script';
import type { AgentSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { checkProviderAllowed, describeExposure, LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { isSampled } from '@shared/policy/sampler';
import { redactToolArguments } from '@shared/util/redact';
import { substituteVars } from '@shared/util/substitute';
import type { CredentialStore } from '../credentials/credential-store';
import { collectCredentialRefs, resolveCredentials } from '../credentials/resolve-credentials';
import { SecretRegistry } from '../credentials/secret-registry';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import { startToolHost } from '../mcp/mcp-tool-host';
import type { ToolHost } from '../mcp/tool-host';
import type { ModelProvider } from '../providers/provider';
import { resolveProvider } from '../providers/resolve-provider';
import { createBoundaryActors, type ConfirmTool } from './boundary-actors';
import { CanonicalHistory } from './canonical-history';
import { createEventStamper } from './event-stamper';
import { Handover } from './handover';
import { learningFromRound, learningFromShadow } from './learning-record';
import { interpretRound } from './round-outcome';
import { isProtectedEffect } from '@shared/contracts/tool-effect';
import { eventId } from '@shared/contracts/events';
import { canonicalJson } from '@shared/util/canonical-json';
import { decideActivation } from '@shared/scs/activation';
import type { RoundFact, ScsRecord } from '@shared/scs/contracts';
import { ScsController } from '../scs/scs-controller';
import { createScriptProvider } from '../providers/script-provider';
import type { RunCheckpoint } from './checkpoint';
import { interventionFor } from './intervention';

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
  trace?: TraceSettings;
  learning?: LearningDataSettings;
  /** The profile versions the settings came from: recorded on the run. */
  profiles?: Partial<Record<ProfileKind, ProfileVersionRef>>;
  /** Makes a waiting run durable; called right after its intervention.requested event is emitted. */
  persistWaiting?: (checkpoint: RunCheckpoint) => void;
  /** Continue a run that waited for a person, with their answer. */
  resume?: { checkpoint: RunCheckpoint; answer: HumanAnswer };
  /** Injected for tests and benchmarks; resolved from the spec otherwise. */
  providers?: { student: ModelProvider; teacher: ModelProvider };
  toolHost?: ToolHost;
}

export interface AgentRun extends RunResult {
  /** The run could not start (servers, providers, variables, privacy): bad input rather than a bad run. */
  setup_error?: string;
  /** Present when the run waits for a person: what to persist to resume it. */
  checkpoint?: RunCheckpoint;
}

const noConfirmation: ConfirmTool = async () => 'unavailable';

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The agent loop: every model round goes through the decision boundary machine; the loop decides
 * who proposes (lifecycle phase, takeover), whether the sampler drew the round, and what the
 * round's outcome means for the run (continue, hand over, finish, stop safely).
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const resumed = options.resume?.checkpoint;
  const runId = resumed?.run_id ?? options.runId ?? randomUUID();
  const vars: Record<string, string> = { specDir: options.specDir };
  if (options.workspace !== undefined) vars.workspace = options.workspace;

  const stamper = createEventStamper(runId, options.onEvent, resumed?.next_seq ?? 0);
  const history = new CanonicalHistory(resumed?.history ?? []);
  const rounds: RoundRecord[] = [];
  const executions: ToolExecution[] = [];
  const spec = options.spec;
  const { supervision } = spec;
  const models = { student: modelLabel(spec.models.student), teacher: modelLabel(spec.models.teacher) };
  // The latest round's snapshot: its effect metadata says which arguments are sensitive.
  let snapshot: ToolSnapshot = { round: 0, tools: [], hash: 'no-tools-yet' };
  // Every credential value this run resolves is masked wherever it could surface: events, results, prompts.
  const secrets = new SecretRegistry();
  const emit = (payload: RunEventPayload) =>
    stamper.emit(secrets.mask(applyTraceSettings(redactToolArguments(payload, snapshot), options.trace)));
  const learningKinds = new Set(options.learning?.record === false ? [] : (options.learning?.kinds ?? ['review', 'shadow', 'demonstration']));

  let status: FinalRunStatus | 'waiting' = 'failed';
  let checkpoint: RunCheckpoint | undefined;
  let scsRecord: ScsRecord | undefined;
  let intervention: Intervention | undefined;
  let output: string | undefined;
  let message: string | undefined;
  let setupError: string | undefined;
  let toolHost: ToolHost | undefined;

  let instructions = spec.instructions;
  let task = spec.task;
  let providers: { student: ModelProvider; teacher: ModelProvider } | undefined;
  let resolved = new Map<string, string>();
  try {
    instructions = substituteVars(spec.instructions, vars, 'instructions');
    task = substituteVars(spec.task, vars, 'task');
    const script = options.script ? substituteVars(ModelScript.parse(options.script), vars, 'script') : undefined;
    for (const role of ['student', 'teacher'] as const) {
      const allowed = checkProviderAllowed(spec.models[role], role, options.privacy ?? LOCAL_ONLY, options.ollamaHost);
      if (!allowed.ok) throw new Error(allowed.message);
    }
    const refs = collectCredentialRefs(spec);
    if (refs.length > 0) {
      if (!options.credentials) throw new Error('this spec uses keychain credentials, but no credential store is available');
      resolved = await resolveCredentials(refs, options.credentials, secrets);
    }
    const deps = { script, ollamaHost: options.ollamaHost, apiKeys: resolved, scriptStart: resumed?.script_positions };
    providers = options.providers ?? {
      student: resolveProvider(spec.models.student, 'student', deps),
      teacher: resolveProvider(spec.models.teacher, 'teacher', deps),
    };
  } catch (err) {
    setupError = secrets.maskText(errorText(err));
  }
  if (!resumed) {
    emit({
      type: 'run.started',
      spec_id: spec.id,
      spec_name: spec.name,
      task,
      supervision,
      models,
      workspace: options.workspace,
      exposure: describeExposure(spec.models, options.ollamaHost),
      profiles: options.profiles ?? {},
      dry_run: options.dryRun === true,
    });
  }

  try {
    if (setupError !== undefined || !providers) throw new Error(setupError ?? 'no model providers');
    try {
      toolHost = options.toolHost ?? (await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: options.specDir, credentials: resolved }));
    } catch (err) {
      setupError = secrets.maskText(errorText(err));
      throw err;
    }

    let feedback: string | undefined;
    let consecutiveFailures = resumed?.consecutive_failures ?? 0;
    const delivered: string[] = [...(resumed?.delivered ?? [])];
    const prompts = new Map<number, ChatMessage[]>();
    const shadows = new Map<number, { reply: ModelReply } | { error: string }>();
    const handover = new Handover(supervision, resumed?.takeover_left ?? 0);
    let preselected: BoundaryInput['preselected'];
    let finished = false;
    const firstRound = resumed?.next_round ?? 0;
    if (options.resume) {
      const { checkpoint: cp, answer } = options.resume;
      emit({ type: 'intervention.answered', round: cp.intervention.round, intervention_id: cp.intervention.id, answer });
      switch (answer.action) {
        case 'approve':
          if (!cp.intervention.decision) throw new Error('there is no decision to approve');
          // The person saw this exact decision: their approval is its review and its confirmation.
          preselected = { decision: cp.intervention.decision, intervention_id: cp.intervention.id, confirmed: true };
          break;
        case 'reject':
          feedback = `The user rejected your proposed decision${answer.note ? `: ${answer.note}` : ''}. Propose something else.`;
          break;
        case 'takeover':
          emit({ type: 'handover', round: cp.intervention.round, to: 'teacher', reason: 'escalation', rounds: handover.startTakeover() });
          break;
        case 'stop':
          status = 'cancelled';
          message = 'stopped by the user';
          finished = true;
          break;
      }
    }
    // SCS (seed 001): decided at the first round (auto needs the offered tools), and again after a
    // failure when auto left it off; once active it gates every phase and the finish.
    let scs: ScsController | undefined;
    let scsDecided = false;
    let scsBase: Pick<ScsRecord, 'mode' | 'active' | 'reason' | 'model'> = { mode: spec.scs.mode, active: false, reason: 'SCS is off', model: '' };
    let failuresSoFar = 0;
    const scsProviders = () => {
      const role = spec.scs.model;
      const ref = spec.models[role];
      const script = options.script ? substituteVars(ModelScript.parse(options.script), vars, 'script') : undefined;
      const live = providers?.[role];
      if (ref.provider === 'script' && script) {
        return { role, committee: createScriptProvider(script, 'committee', { startAt: resumed?.scs?.positions.committee }), monitor: createScriptProvider(script, 'monitor', { startAt: resumed?.scs?.positions.monitor }) };
      }
      if (!live) throw new Error('no model for SCS');
      return { role, committee: live, monitor: live };
    };
    let scsRoles: ReturnType<typeof scsProviders> | undefined;
    const startScs = (restore?: unknown) => {
      scsRoles = scsProviders();
      scs = new ScsController({
        settings: spec.scs,
        budget: spec.limits.max_rounds,
        writeWork: snapshot.tools.some((t) => isProtectedEffect(t.effect.effect)),
        role: scsRoles.role,
        committee: scsRoles.committee,
        monitor: scsRoles.monitor,
        context: () => ({ task, instructions, snapshot }),
        emit,
        restore,
        signal: options.signal,
      });
    };
    if (resumed?.scs) {
      scsDecided = true;
      scsBase = resumed.scs.base;
      if (resumed.scs.snapshot !== undefined) startScs(resumed.scs.snapshot);
    }

    const actors = createBoundaryActors({
      runId,
      instructions: () => {
        const brief = scs?.brief();
        return brief ? `${instructions}\n\n${brief}` : instructions;
      },
      finishGate: async (round) => (scs ? scs.requestFinish(round) : { allowed: true }),
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
      onExecution: (e) => executions.push(secrets.mask(e)),
      dryRun: options.dryRun === true,
      onDelivered: () => undefined,
      onPrompt: (round, messages) => prompts.set(round, messages),
      shadow: supervision.enabled && supervision.phase === 1 ? (round, outcome) => shadows.set(round, outcome) : undefined,
    });
    const machine = boundaryMachine.provide({ actors });

    const budget = () => scs?.budget ?? spec.limits.max_rounds;
    for (let round = firstRound; round < budget() && !finished; round += 1) {
      if (options.signal?.aborted) {
        status = 'cancelled';
        message = 'the run was cancelled';
        break;
      }
      try {
        snapshot = await toolHost.snapshot(round);
      } catch (err) {
        status = 'failed';
        message = `could not list tools for round ${round}: ${errorText(err)}`;
        if (round === 0) setupError = message;
        break;
      }
      emit({
        type: 'tools.snapshot',
        round,
        hash: snapshot.hash,
        tools: snapshot.tools.map((t) => ({ name: t.name, server: t.server, schema_hash: t.schema_hash, effect: t.effect.effect, effect_source: t.effect_source })),
      });

      if (spec.scs.mode !== 'off' && !scs && (!scsDecided || failuresSoFar > 0)) {
        const decision = decideActivation(spec.scs.mode, { tools: snapshot.tools.map((t) => ({ name: t.name, effect: t.effect.effect })), max_rounds: spec.limits.max_rounds, failures: failuresSoFar }, spec.scs);
        if (!scsDecided || decision.active) {
          scsBase = { mode: spec.scs.mode, active: decision.active, reason: decision.reason, model: models[spec.scs.model] };
          emit({ type: 'scs.enabled', ...scsBase });
        }
        scsDecided = true;
        if (decision.active) {
          startScs();
          if ((await scs!.settle()) === 'blocked') {
            status = 'blocked';
            message = `SCS blocked: ${scs!.blockedReasons.join('; ')}`;
            break;
          }
        }
      }
      const roundStartSeq = stamper.count;
      const proposer = handover.proposer();
      const sampled = isSampled(supervision.rules.sample_rate, supervision.rules.sample_seed, runId, round);
      const constraints = scs?.plan ? { allowed_tools: scs.plan.allowed_tools } : undefined;
      const actor = createActor(machine, { input: { round, proposer, snapshot, supervision, sampled, preselected, constraints } });
      preselected = undefined;
      actor.on('*', (payload) => emit(payload));
      const onAbort = () => actor.send({ type: 'CANCEL' });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      actor.start();
      let record: RoundRecord;
      try {
        record = await toPromise(actor);
      } finally {
        options.signal?.removeEventListener('abort', onAbort);
      }
      rounds.push(redactToolArguments(record, snapshot));
      recordLearning(record, prompts.get(round) ?? [], shadows.get(round), snapshot, models, (example) => {
        if (learningKinds.has(example.kind)) emit(example);
      });

      if (proposer === 'teacher' && handover.endOfRound() && supervision.phase >= 2) {
        emit({ type: 'handover', round, to: 'student', reason: 'takeover_ended' });
      }
      if (record.outcome === 'failed' || record.outcome === 'blocked' || record.execution?.is_error) failuresSoFar += 1;
      if (scs && !(record.outcome === 'delivered' && record.selected?.decision.decision_type === 'complete')) {
        const state = await scs.roundDone(roundFact(record, eventIdsSince(runId, roundStartSeq, stamper.count)));
        if (state === 'blocked') {
          status = 'blocked';
          message = `SCS blocked: ${scs.blockedReasons.join('; ')}`;
          break;
        }
      }
      const verdict = interpretRound(record, supervision, scs?.finishRejection);
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
          intervention = interventionFor(record, verdict.kind, runId, supervision.enabled);
          const requestedSeq = stamper.count;
          checkpoint = {
            version: 1,
            run_id: runId,
            saved_at: new Date().toISOString(),
            spec,
            spec_dir: options.specDir,
            workspace: options.workspace,
            script: options.script ? ModelScript.parse(options.script) : undefined,
            script_positions: { student: providers.student.position?.() ?? 0, teacher: providers.teacher.position?.() ?? 0 },
            privacy: options.privacy,
            trace: options.trace,
            learning: options.learning,
            profiles: options.profiles ?? {},
            dry_run: options.dryRun === true,
            next_round: round + 1,
            // The intervention.requested event takes requestedSeq; the resumed run continues after it.
            next_seq: requestedSeq + 1,
            rounds_before: (resumed?.rounds_before ?? 0) + rounds.length,
            history: history.entries(),
            consecutive_failures: consecutiveFailures,
            takeover_left: handover.remaining,
            delivered,
            intervention: { ...intervention, decision: rawDecisionOf(record, verdict.kind) },
            scs: scsDecided
              ? {
                  base: scsBase,
                  snapshot: scs?.persist(),
                  positions: { committee: scsRoles?.committee.position?.() ?? 0, monitor: scsRoles?.monitor.position?.() ?? 0 },
                }
              : undefined,
          };
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
          finished = true;
          break;
      }
      if (!finished && round === budget() - 1) {
        status = 'max_rounds';
        message = `stopped after ${budget()} rounds without completing`;
        output = delivered.join('\n\n') || undefined;
      }
    }
    scsRecord = scsDecided ? (scs ? scs.record(scsBase) : { ...scsBase, phase: 0, status: 'off', blocked_reasons: [], extensions: 0 }) : undefined;
    scs?.stop();
  } catch (err) {
    status = 'failed';
    message = secrets.maskText(errorText(err));
  } finally {
    if (toolHost && !options.toolHost) await toolHost.close().catch(() => undefined);
  }

  const totalRounds = (resumed?.rounds_before ?? 0) + rounds.length;
  const event_count = stamper.count + (status === 'waiting' ? 0 : 1);
  // A waiting run is not finished: it ends when it resumes and reaches an end.
  if (status !== 'waiting') emit({ type: 'run.finished', status, output, message, rounds: totalRounds, event_count });
  return {
    run_id: runId,
    status,
    output,
    message,
    intervention: intervention ? secrets.mask(redactToolArguments(intervention, snapshot)) : undefined,
    checkpoint,
    profiles: options.profiles ?? {},
    dry_run: options.dryRun === true,
    scs: scsRecord,
    // Results are reports like traces: sensitive arguments stay masked (the tools got the real values).
    history: secrets.mask(redactToolArguments(history.entries(), snapshot)),
    rounds: secrets.mask(rounds),
    executions,
    models,
    event_count,
    setup_error: setupError,
  };
}

/** Ids of the events a round emitted (the evidence SCS's monitor can cite). */
function eventIdsSince(runId: string, from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => eventId(runId, from + i));
}

/** A round reduced to what SCS's monitor reasons about. */
function roundFact(record: RoundRecord, eventIds: string[]): RoundFact {
  const decision = record.selected?.decision ?? Decision.safeParse(record.candidate.parsed?.raw).data;
  const tool = decision?.decision_type === 'tool_call' ? decision.tool_name : undefined;
  const failed = record.outcome === 'failed' || (record.outcome === 'blocked' && record.reason !== 'finish_rejected') || record.execution?.is_error === true;
  const what = decision ? (decision.decision_type === 'tool_call' ? `${decision.tool_name}` : decision.decision_type) : 'no valid decision';
  const detail = record.execution ? (record.execution.is_error ? `error: ${record.execution.content.slice(0, 160)}` : `ok (${record.execution.content.length} chars)`) : (record.message ?? record.reason ?? '');
  return {
    round: record.round,
    outcome: record.outcome,
    reason: record.reason,
    tool,
    call_key: decision?.decision_type === 'tool_call' ? canonicalJson({ t: decision.tool_name, a: decision.arguments }) : undefined,
    failed,
    summary: `${what} → ${record.outcome}${detail ? `: ${detail}` : ''}`.slice(0, 300),
    event_ids: eventIds,
  };
}

/** The intervention's decision as it must run: the raw one (the event carries the masked copy). */
function rawDecisionOf(record: RoundRecord, kind: 'escalation' | 'confirmation'): Decision | undefined {
  if (kind === 'confirmation') return record.selected?.decision;
  const parsed = record.validation?.ok ? Decision.safeParse(record.candidate.parsed?.raw) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/** A trace profile that keeps no tool results: the content is replaced by its size. */
function applyTraceSettings(payload: RunEventPayload, trace: TraceSettings | undefined): RunEventPayload {
  if (trace?.include_tool_results !== false) return payload;
  const strip = <T extends { content: string }>(e: T): T => ({ ...e, content: `(not kept by the trace profile: ${e.content.length} characters)` });
  if (payload.type === 'tool.executed') return { ...payload, execution: strip(payload.execution) };
  if (payload.type === 'round.completed' && payload.record.execution) {
    return { ...payload, record: { ...payload.record, execution: strip(payload.record.execution) } };
  }
  return payload;
}

/** Every round that teaches something becomes a learning example in the trace. */
function recordLearning(
  record: RoundRecord,
  context: ChatMessage[],
  shadow: { reply: ModelReply } | { error: string } | undefined,
  snapshot: ToolSnapshot,
  models: { student: string; teacher: string },
  emit: (payload: Extract<RunEventPayload, { type: 'learning.example' }>) => void,
): void {
  const example = learningFromRound(record, context, models);
  if (example) emit(example);
  if (shadow && 'reply' in shadow) {
    const parsed = parseCandidate(shadow.reply);
    const valid = validateCandidate(parsed, snapshot).result.ok;
    const comparison = learningFromShadow(record, { candidate: parsed.raw, valid }, context, models);
    if (comparison) emit(comparison);
  }
}
