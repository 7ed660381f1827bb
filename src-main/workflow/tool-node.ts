import { createActor, toPromise } from 'xstate';
import { boundaryMachine, type BoundaryInput, type BoundarySupervision } from '@shared/boundary/machine';
import type { ToolCallDecision } from '@shared/contracts/decision';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { ModelReply } from '@shared/contracts/model';
import type { RoundRecord, ToolExecution } from '@shared/contracts/round';
import { ModelScript } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { isProtectedEffect } from '@shared/contracts/tool-effect';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { ReviewRules } from '@shared/contracts/spec';
import type { InvocationReplay } from '@shared/replay/workflow-replay';
import type { NodeOf, WorkflowGraph } from '@shared/workflow/document';
import { renderJsonTemplate } from '@shared/workflow/template';
import { substituteVars } from '@shared/util/substitute';
import type { CredentialStore } from '../credentials/credential-store';
import type { SecretRegistry } from '../credentials/secret-registry';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider } from '../providers/provider';
import { createScriptProvider } from '../providers/script-provider';
import type { ToolHost } from '../mcp/tool-host';
import { toolProgressEvent } from '../mcp/progress-event';
import { modelPlace, recordCalls } from '../providers/record-calls';
import { createBoundaryActors, type ConfirmTool } from '../engine/boundary-actors';
import { CanonicalHistory } from '../engine/canonical-history';
import { prepareRun } from '../engine/run-setup';
import { errorText, failed, type NodeOutcome, type NodeRun } from './node-outcome';
import type { WorkflowTools } from './workflow-tools';

export interface ToolNodeDeps {
  runId: string;
  graph: WorkflowGraph;
  tools: WorkflowTools;
  ledger: IdempotencyLedger;
  secrets: SecretRegistry;
  vars: Record<string, string>;
  confirm?: ConfirmTool;
  privacy?: PrivacyPolicy;
  ollamaHost?: string;
  credentials?: CredentialStore;
  /** Injected teacher for tests and benchmarks; resolved from the node's `review` otherwise. */
  teacher?: ModelProvider;
  /**
   * Where a person answers later (the app), a teacher's escalation parks the node for them; where
   * nobody can (the CLI), the node fails with the teacher's reason.
   */
  parkEscalations?: boolean;
  /** The snapshot tool nodes validate against, for masking sensitive arguments in events. */
  onSnapshot?: (snapshot: ToolSnapshot) => void;
  /**
   * A replay of a recorded run: the reviewer gives the recorded verdicts of this invocation, and
   * unless `live` the call is not executed: its recorded result is given back (workflow-replay.ts).
   */
  replay?: { live: boolean; recorded?: Extract<InvocationReplay, { kind: 'tool' }> };
}

/**
 * A dry replay's tool host: lists the real tools (the call is validated and authorized as any), and
 * gives back the recorded result instead of executing, so the nodes after it get what they got.
 */
function recordedResults(host: ToolHost, recorded: ToolExecution | undefined): ToolHost {
  return {
    snapshot: (round) => host.snapshot(round),
    close: () => host.close(),
    execute: async ({ decision, tool, idempotency_key }) =>
      recorded
        ? { ...recorded, idempotency_key, duration_ms: 0 }
        : { server: tool.server, tool: tool.name, arguments: decision.arguments, idempotency_key, ok: true, is_error: false, content: `(dry run: ${tool.server}/${tool.name} was not executed; the recorded run never executed it)`, duration_ms: 0 },
  };
}

/** Reviewed: phase 3 routes protected effects (and only them) to the teacher. Unreviewed: supervision off. */
const REVIEWED: BoundarySupervision = { enabled: true, phase: 3, rules: ReviewRules.parse({}), max_repair_rounds: 0, max_verdict_attempts: 2 };
const UNREVIEWED: BoundarySupervision = { ...REVIEWED, enabled: false };

/** The workflow author's call, proposed to the boundary as a candidate (a model reply that says exactly it). */
function authorProvider(decision: ToolCallDecision): ModelProvider {
  return { label: 'workflow', complete: async (): Promise<ModelReply> => ({ text: JSON.stringify(decision), tool_calls: [], model: 'workflow' }) };
}

const noTeacher: ModelProvider = {
  label: 'none',
  complete: async () => {
    throw new Error('this tool node has no teacher (add `review` to the node)');
  },
};

/** The tool's JSON result when its text is JSON, else `{ content }`. */
function resultOf(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') return parsed;
  } catch {
    // not JSON: the text itself
  }
  return { content: text };
}

/**
 * One MCP tool call crossing the decision boundary like an agent's: the templated call is a
 * candidate validated against the run's frozen snapshot, routed by the review policy (a protected
 * effect goes to the node's teacher), authorized (effect registry, idempotency key per run,
 * invocation, tool and arguments, confirmation), committed, executed. Without a teacher a
 * protected tool runs only as a decision a person confirmed (a preselected round).
 */
export async function runToolNode(node: NodeOf<'tool'>, run: NodeRun, deps: ToolNodeDeps, resume?: { intervention: Intervention; answer: HumanAnswer }): Promise<NodeOutcome> {
  let decision: ToolCallDecision;
  if (resume) {
    run.emit({ type: 'intervention.answered', round: 0, intervention_id: resume.intervention.id, answer: resume.answer });
    const asked = resume.intervention.decision;
    if (resume.answer.action !== 'approve' || asked?.decision_type !== 'tool_call') {
      return failed('not_confirmed', `you did not confirm ${node.server}/${node.tool}${resume.answer.note ? `: ${resume.answer.note}` : ''}`);
    }
    decision = asked;
  } else {
    // The document's own `${workspace}` first, then the inputs: a value that holds `${…}` stays as it is.
    let own: Record<string, unknown>;
    try {
      own = substituteVars(node.arguments, deps.vars, `the arguments of ${node.id}`);
    } catch (err) {
      return failed('template_error', errorText(err));
    }
    const rendered = renderJsonTemplate(own, run.invocation.inputs);
    if (!rendered.ok) return failed('template_error', rendered.message);
    const args = rendered.value;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return failed('invalid_input', 'the tool arguments must be a JSON object');
    decision = { decision_type: 'tool_call', tool_name: node.tool, arguments: args as Record<string, unknown> };
  }

  let host: ToolHost;
  let full: ToolSnapshot;
  try {
    ({ host, snapshot: full } = await deps.tools.get());
    if (deps.replay && !deps.replay.live) host = recordedResults(host, deps.replay.recorded?.execution);
  } catch (err) {
    return failed('tool_unavailable', `the workflow's servers could not start: ${deps.secrets.maskText(errorText(err))}`);
  }
  // This node's server only: a tool name another server also offers cannot be picked by mistake.
  const snapshot: ToolSnapshot = { ...full, tools: full.tools.filter((t) => t.server === node.server) };
  deps.onSnapshot?.(full);
  const tool = snapshot.tools.find((t) => t.name === node.tool);
  if (!tool) return failed('unknown_tool', `server ${node.server} offers no tool ${node.tool} (it offers: ${snapshot.tools.map((t) => t.name).join(', ') || 'none'})`);

  // I5 holds: a key never executes twice. Only a read is ever retried by a supervisor (retry-safe,
  // workflow-supervision.ts), and each retry of it is a new call with its own key (the attempt in it);
  // every other call keeps one key per invocation, so it runs at most once whatever happens.
  const retriedRead = (run.attempt ?? 1) > 1 && tool.effect.effect === 'read';
  const runLabel = `${deps.runId}:${run.invocation.id}${retriedRead ? `#${run.attempt}` : ''}`;
  const confirm = deps.confirm ?? (async () => 'unavailable' as const);
  let teacher: ModelProvider = deps.teacher ?? noTeacher;
  // A replay's reviewer says what the recorded one said, for this invocation only.
  if (deps.replay) teacher = createScriptProvider(ModelScript.parse({ teacher: deps.replay.recorded?.review ?? [] }), 'teacher');
  else if (node.review && !deps.teacher) {
    try {
      teacher = await deps.tools.teacherFor(node.id, async () => {
        const review = node.review;
        const spec = AgentSpec.parse({
          format: 'steward/v1',
          kind: 'agent',
          id: deps.graph.id,
          name: deps.graph.name,
          instructions: `You review one step of the workflow "${deps.graph.name}": a call the workflow makes to ${node.server}/${node.tool}.`,
          task: `Workflow step ${node.id}: call ${node.tool} on ${node.server}.`,
          models: { student: { provider: 'script' }, teacher: review?.teacher ?? { provider: 'script' } },
        });
        const prepared = await prepareRun({ spec, vars: deps.vars, script: review?.script, privacy: deps.privacy ?? LOCAL_ONLY, ollamaHost: deps.ollamaHost, credentialStore: deps.credentials, secrets: deps.secrets });
        return prepared.providers.teacher;
      });
    } catch (err) {
      return failed('review_unavailable', `the node's teacher could not be prepared: ${deps.secrets.maskText(errorText(err))}`);
    }
  }

  let preselected: BoundaryInput['preselected'];
  const isProtected = isProtectedEffect(tool.effect.effect);
  if (resume) {
    // The person approved this exact call (validated again against the snapshot, like any other).
    preselected = { decision, intervention_id: resume.intervention.id, confirmed: true };
  } else if (isProtected && !node.review) {
    // No teacher: only a person's confirmation of this exact call lets a protected tool run.
    const answer = await confirm({ run_id: runLabel, round: 0, server: node.server, tool: node.tool, arguments: decision.arguments });
    // The app asks in the run view: the node waits for the answer (and survives a restart).
    if (answer === 'pending') return waitForPerson(run, deps, decision, 'confirmation', `${node.server}/${node.tool} has a protected effect (${tool.effect.effect}) and no teacher reviews it: it runs only if you confirm it.`);
    if (answer !== 'granted') {
      const why = answer === 'denied' ? 'you declined it' : 'no confirmation could be obtained (in the CLI, --yes confirms)';
      return failed('not_confirmed', `${node.server}/${node.tool} has a protected effect (${tool.effect.effect}) and no teacher reviews it; it needs your confirmation, and ${why}`);
    }
    preselected = { decision, intervention_id: `confirm:${run.invocation.id}`, confirmed: true };
  }

  // The privacy log: the node's reviews are model calls like an agent's (the workflow's own call is not one).
  const reviewModel = deps.replay ? { provider: 'script' as const } : (node.review?.teacher ?? { provider: 'script' as const });
  const reviewer = node.review ? recordCalls(teacher, modelPlace(reviewModel, deps.ollamaHost), (call) => run.emit({ type: 'model.called', ...call })) : teacher;
  const history = new CanonicalHistory();
  const actors = createBoundaryActors({
    runId: runLabel,
    instructions: () => `Workflow ${deps.graph.name}, step ${node.id}.`,
    task: `call ${node.server}/${node.tool}`,
    student: authorProvider(decision),
    teacher: reviewer,
    studentMode: 'structured',
    toolHost: host,
    ledger: deps.ledger,
    history,
    confirm,
    feedback: () => undefined,
    maskText: (text) => deps.secrets.maskText(text),
    sensitiveFound: (value) => void deps.secrets.registerSensitive(value),
    onExecution: () => undefined,
    onToolProgress: (round, key, report) => run.emit(toolProgressEvent(round, key, report, (text) => deps.secrets.maskText(text))),
    runSignal: run.signal,
  });
  const actor = createActor(boundaryMachine.provide({ actors }), {
    input: { round: 0, proposer: 'student', snapshot, supervision: node.review ? REVIEWED : UNREVIEWED, sampled: false, preselected },
  });
  actor.on('*', (payload) => run.emit(payload));
  const onAbort = () => actor.send({ type: 'CANCEL' });
  run.signal.addEventListener('abort', onAbort, { once: true });
  let record: RoundRecord;
  try {
    actor.start();
    record = await toPromise(actor);
  } catch (err) {
    return failed('tool_error', deps.secrets.maskText(errorText(err)));
  } finally {
    run.signal.removeEventListener('abort', onAbort);
  }
  const execution = record.execution;
  if (record.authorization?.ok === false && record.authorization.reason === 'confirmation_pending' && record.selected?.decision.decision_type === 'tool_call') {
    return waitForPerson(run, deps, record.selected.decision, 'confirmation', `${node.server}/${node.tool} needs your confirmation before it runs.`);
  }
  if (record.outcome === 'escalated') {
    const why = deps.secrets.maskText(record.message ?? 'the teacher asked for a person to decide');
    // What the teacher escalated is the node's own call: that is what the person approves or rejects.
    if (deps.parkEscalations) return waitForPerson(run, deps, decision, 'escalation', why);
    return failed('tool_escalated', `the teacher escalated ${node.server}/${node.tool} to a person: ${why} (a person decides in the app)`);
  }
  if (record.outcome !== 'executed' || !execution) {
    const code = record.reason === 'cancelled' ? 'cancelled' : record.outcome === 'blocked' ? 'tool_blocked' : 'tool_error';
    return failed(code, deps.secrets.maskText(record.message ?? record.reason ?? `the call ended ${record.outcome}`));
  }
  if (execution.is_error || !execution.ok) return failed('tool_error', `${node.tool} reported an error: ${execution.error ?? execution.content}`.slice(0, 4000));
  return { status: 'done', outputs: { result: resultOf(execution.content), text: execution.content } };
}

/** The node parks for a person to approve or reject this exact call (an intervention in the journal). */
function waitForPerson(run: NodeRun, deps: ToolNodeDeps, decision: ToolCallDecision, kind: Intervention['kind'], reason: string): NodeOutcome {
  const intervention: Intervention = {
    id: `${deps.runId}:${run.invocation.id}:${kind}`,
    run_id: deps.runId,
    round: 0,
    kind,
    decision,
    reason,
    reason_codes: [],
    options: ['approve', 'reject'],
    requested_at: new Date().toISOString(),
  };
  run.emit({ type: 'intervention.requested', round: 0, intervention });
  return { status: 'waiting', intervention };
}
