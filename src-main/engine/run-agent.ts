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
import type { ModelScript } from '@shared/contracts/script';
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
import type { RunCheckpoint } from './checkpoint';
import { interventionFor } from './intervention';

export interface RunAgentOptions {
  spec: AgentSpec;
  specDir: string;
  /** Absolute workspace folder (`${workspace}`), when the spec has one. */
  workspace?: string;
  script?: ModelScript;
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
    const script = options.script ? substituteVars(options.script, vars, 'script') : undefined;
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
    const actors = createBoundaryActors({
      runId,
      instructions,
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

    for (let round = firstRound; round < spec.limits.max_rounds && !finished; round += 1) {
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

      const proposer = handover.proposer();
      const sampled = isSampled(supervision.rules.sample_rate, supervision.rules.sample_seed, runId, round);
      const actor = createActor(machine, { input: { round, proposer, snapshot, supervision, sampled, preselected } });
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
      const verdict = interpretRound(record, supervision);
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
            script: options.script,
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
      if (!finished && round === spec.limits.max_rounds - 1) {
        status = 'max_rounds';
        message = `stopped after ${spec.limits.max_rounds} rounds without completing`;
        output = delivered.join('\n\n') || undefined;
      }
    }
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
    // Results are reports like traces: sensitive arguments stay masked (the tools got the real values).
    history: secrets.mask(redactToolArguments(history.entries(), snapshot)),
    rounds: secrets.mask(rounds),
    executions,
    models,
    event_count,
    setup_error: setupError,
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
