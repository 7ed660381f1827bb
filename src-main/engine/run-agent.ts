import { randomUUID } from 'node:crypto';
import { createActor, toPromise } from 'xstate';
import { boundaryMachine } from '@shared/boundary/machine';
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
  /** Injected for tests and benchmarks; resolved from the spec otherwise. */
  providers?: { student: ModelProvider; teacher: ModelProvider };
  toolHost?: ToolHost;
}

export interface AgentRun extends RunResult {
  /** The run could not start (servers, providers, variables, privacy): bad input rather than a bad run. */
  setup_error?: string;
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
  const runId = options.runId ?? randomUUID();
  const vars: Record<string, string> = { specDir: options.specDir };
  if (options.workspace !== undefined) vars.workspace = options.workspace;

  const stamper = createEventStamper(runId, options.onEvent);
  const history = new CanonicalHistory();
  const rounds: RoundRecord[] = [];
  const executions: ToolExecution[] = [];
  const spec = options.spec;
  const { supervision } = spec;
  const models = { student: modelLabel(spec.models.student), teacher: modelLabel(spec.models.teacher) };
  // The latest round's snapshot: its effect metadata says which arguments are sensitive.
  let snapshot: ToolSnapshot = { round: 0, tools: [], hash: 'no-tools-yet' };
  // Every credential value this run resolves is masked wherever it could surface: events, results, prompts.
  const secrets = new SecretRegistry();
  const emit = (payload: RunEventPayload) => stamper.emit(secrets.mask(redactToolArguments(payload, snapshot)));

  let status: FinalRunStatus = 'failed';
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
    const deps = { script, ollamaHost: options.ollamaHost, apiKeys: resolved };
    providers = options.providers ?? {
      student: resolveProvider(spec.models.student, 'student', deps),
      teacher: resolveProvider(spec.models.teacher, 'teacher', deps),
    };
  } catch (err) {
    setupError = secrets.maskText(errorText(err));
  }
  emit({
    type: 'run.started',
    spec_id: spec.id,
    spec_name: spec.name,
    task,
    supervision,
    models,
    workspace: options.workspace,
    exposure: describeExposure(spec.models, options.ollamaHost),
  });

  try {
    if (setupError !== undefined || !providers) throw new Error(setupError ?? 'no model providers');
    try {
      toolHost = options.toolHost ?? (await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: options.specDir, credentials: resolved }));
    } catch (err) {
      setupError = secrets.maskText(errorText(err));
      throw err;
    }

    let feedback: string | undefined;
    let consecutiveFailures = 0;
    const delivered: string[] = [];
    const prompts = new Map<number, ChatMessage[]>();
    const shadows = new Map<number, { reply: ModelReply } | { error: string }>();
    const handover = new Handover(supervision);
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
      onDelivered: () => undefined,
      onPrompt: (round, messages) => prompts.set(round, messages),
      shadow: supervision.enabled && supervision.phase === 1 ? (round, outcome) => shadows.set(round, outcome) : undefined,
    });
    const machine = boundaryMachine.provide({ actors });

    let finished = false;
    for (let round = 0; round < spec.limits.max_rounds && !finished; round += 1) {
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
      const actor = createActor(machine, { input: { round, proposer, snapshot, supervision, sampled } });
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
      recordLearning(record, prompts.get(round) ?? [], shadows.get(round), snapshot, models, emit);

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

  const event_count = stamper.count + 1;
  emit({ type: 'run.finished', status, output, message, rounds: rounds.length, event_count });
  return {
    run_id: runId,
    status,
    output,
    message,
    // Results are reports like traces: sensitive arguments stay masked (the tools got the real values).
    history: secrets.mask(redactToolArguments(history.entries(), snapshot)),
    rounds: secrets.mask(rounds),
    executions,
    models,
    event_count,
    setup_error: setupError,
  };
}

/** Every round that teaches something becomes a learning example in the trace. */
function recordLearning(
  record: RoundRecord,
  context: ChatMessage[],
  shadow: { reply: ModelReply } | { error: string } | undefined,
  snapshot: ToolSnapshot,
  models: { student: string; teacher: string },
  emit: (payload: RunEventPayload) => void,
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
