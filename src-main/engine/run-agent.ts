import { randomUUID } from 'node:crypto';
import { createActor, toPromise } from 'xstate';
import { boundaryMachine } from '@shared/boundary/machine';
import { describeIssues } from '@shared/boundary/validation';
import type { RunEvent, RunEventPayload, FinalRunStatus } from '@shared/contracts/events';
import { modelLabel } from '@shared/contracts/model';
import type { RoundRecord, ToolExecution } from '@shared/contracts/round';
import type { RunResult } from '@shared/contracts/run-result';
import type { ModelScript } from '@shared/contracts/script';
import type { AgentSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { redactToolArguments } from '@shared/util/redact';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import { startToolHost } from '../mcp/mcp-tool-host';
import type { ToolHost } from '../mcp/tool-host';
import type { ModelProvider } from '../providers/provider';
import { resolveProvider } from '../providers/resolve-provider';
import { substituteVars } from '@shared/util/substitute';
import { createBoundaryActors, type ConfirmTool } from './boundary-actors';
import { CanonicalHistory } from './canonical-history';
import { createEventStamper } from './event-stamper';

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
  /** Injected for tests and benchmarks; resolved from the spec otherwise. */
  providers?: { student: ModelProvider; teacher: ModelProvider };
  toolHost?: ToolHost;
}

export interface AgentRun extends RunResult {
  /** The run could not start (servers, providers, variables): bad input rather than a bad run. */
  setup_error?: string;
}

const noConfirmation: ConfirmTool = async () => 'unavailable';

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The agent loop: every model round goes through the decision boundary machine; the loop only
 * decides what a round's outcome means for the run (continue, finish, stop safely).
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
  const models = { student: modelLabel(spec.models.student), teacher: modelLabel(spec.models.teacher) };
  // The latest round's snapshot: its effect metadata says which arguments are sensitive.
  let snapshot: ToolSnapshot = { round: 0, tools: [], hash: 'no-tools-yet' };
  const emit = (payload: RunEventPayload) => stamper.emit(redactToolArguments(payload, snapshot));

  let status: FinalRunStatus = 'failed';
  let output: string | undefined;
  let message: string | undefined;
  let setupError: string | undefined;
  let toolHost: ToolHost | undefined;

  let instructions = spec.instructions;
  let task = spec.task;
  let script = options.script;
  let providers: { student: ModelProvider; teacher: ModelProvider } | undefined;
  try {
    instructions = substituteVars(spec.instructions, vars, 'instructions');
    task = substituteVars(spec.task, vars, 'task');
    script = options.script ? substituteVars(options.script, vars, 'script') : undefined;
    providers = options.providers ?? {
      student: resolveProvider(spec.models.student, 'student', { script, ollamaHost: options.ollamaHost }),
      teacher: resolveProvider(spec.models.teacher, 'teacher', { script, ollamaHost: options.ollamaHost }),
    };
  } catch (err) {
    setupError = errorText(err);
  }
  emit({ type: 'run.started', spec_id: spec.id, spec_name: spec.name, task, supervision: spec.supervision, models, workspace: options.workspace });

  try {
    if (setupError !== undefined || !providers) throw new Error(setupError ?? 'no model providers');
    try {
      toolHost = options.toolHost ?? (await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: options.specDir }));
    } catch (err) {
      setupError = errorText(err);
      throw err;
    }

    let feedback: string | undefined;
    let consecutiveFailures = 0;
    const delivered: string[] = [];
    const actors = createBoundaryActors({
      runId,
      instructions,
      task,
      student: providers.student,
      teacher: providers.teacher,
      studentMode: spec.models.student.provider === 'ollama' ? spec.models.student.mode : 'structured',
      toolHost,
      ledger: options.ledger,
      history,
      confirm: options.confirm ?? noConfirmation,
      feedback: () => feedback,
      onExecution: (e) => executions.push(e),
      onDelivered: ({ decision }) => {
        if (decision.decision_type === 'present_result') delivered.push(decision.content);
      },
    });
    const machine = boundaryMachine.provide({ actors });

    let finished = false;
    for (let round = 0; round < spec.limits.max_rounds && !finished; round += 1) {
      if (options.signal?.aborted) {
        status = 'cancelled';
        message = 'the run was cancelled';
        finished = true;
        break;
      }
      try {
        snapshot = await toolHost.snapshot(round);
      } catch (err) {
        status = 'failed';
        message = `could not list tools for round ${round}: ${errorText(err)}`;
        if (round === 0) setupError = message;
        finished = true;
        break;
      }
      emit({
        type: 'tools.snapshot',
        round,
        hash: snapshot.hash,
        tools: snapshot.tools.map((t) => ({ name: t.name, server: t.server, schema_hash: t.schema_hash, effect: t.effect.effect, effect_source: t.effect_source })),
      });

      const actor = createActor(machine, {
        input: { round, proposer: 'student', snapshot, supervision: spec.supervision },
      });
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
      recordLearning(record, models, emit);

      switch (record.outcome) {
        case 'executed': {
          const failedTool = record.execution?.is_error === true;
          consecutiveFailures = failedTool ? consecutiveFailures + 1 : 0;
          feedback = undefined;
          break;
        }
        case 'delivered': {
          consecutiveFailures = 0;
          feedback = undefined;
          const decision = record.selected?.decision;
          if (decision?.decision_type === 'complete') {
            status = 'completed';
            output = decision.output;
            finished = true;
          } else if (decision?.decision_type === 'ask_user' || decision?.decision_type === 'request_confirmation') {
            status = 'needs_input';
            message = decision.decision_type === 'ask_user' ? decision.question : decision.message;
            output = delivered.join('\n\n') || undefined;
            finished = true;
          } else if (decision?.decision_type === 'reroute') {
            status = 'rerouted';
            message = `rerouted to ${decision.target}: ${decision.reason}`;
            finished = true;
          }
          break;
        }
        case 'blocked': {
          finished = true;
          message = record.message ?? 'the decision was blocked';
          switch (spec.supervision.on_block) {
            case 'fail':
              status = 'blocked';
              break;
            case 'safe_message':
              status = 'blocked';
              output = spec.supervision.safe_message;
              break;
            case 'ask_user':
              status = 'needs_input';
              message = `a decision was blocked (${message}); how should the agent continue?`;
              break;
          }
          break;
        }
        case 'escalated':
          status = 'escalated';
          message = record.message ?? 'the teacher escalated this round';
          finished = true;
          break;
        case 'failed': {
          if (record.reason === 'cancelled') {
            status = 'cancelled';
            message = 'the run was cancelled';
            finished = true;
            break;
          }
          consecutiveFailures += 1;
          feedback = describeFailure(record);
          if (consecutiveFailures >= spec.limits.max_consecutive_failures) {
            status = 'failed';
            message = `${consecutiveFailures} failed rounds in a row; last: ${record.message ?? record.reason ?? 'unknown'}`;
            finished = true;
          }
          break;
        }
      }
      if (!finished && round === spec.limits.max_rounds - 1) {
        status = 'max_rounds';
        message = `stopped after ${spec.limits.max_rounds} rounds without completing`;
        output = delivered.join('\n\n') || undefined;
      }
    }
  } catch (err) {
    status = 'failed';
    message = errorText(err);
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
    history: redactToolArguments(history.entries(), snapshot),
    rounds,
    executions,
    models,
    event_count,
    setup_error: setupError,
  };
}

function describeFailure(record: RoundRecord): string {
  if (record.validation && !record.validation.ok) {
    return `Your previous decision was rejected: ${describeIssues(record.validation.issues)}. Return exactly one valid decision.`;
  }
  return `The previous round failed: ${record.message ?? record.reason ?? 'unknown error'}.`;
}

/** A reviewed round is learning data: what the student proposed, what the teacher ruled, what ran. */
function recordLearning(
  record: RoundRecord,
  models: { student: string; teacher: string },
  emit: (payload: RunEventPayload) => void,
): void {
  const verdict = record.verdict;
  if (!verdict) return;
  emit({
    type: 'learning.example',
    round: record.round,
    student_candidate: record.candidate.parsed?.raw ?? record.candidate.reply?.text,
    verdict,
    final_decision: record.selected?.decision,
    reason_codes: verdict.reason_codes,
    agreement: verdict.verdict === 'accept',
    models,
  });
}
