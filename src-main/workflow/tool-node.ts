import { toPromise } from 'xstate';
import type { BoundaryInput, BoundarySupervision } from '@shared/boundary/machine';
import type { ToolCallDecision } from '@shared/contracts/decision';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { ModelReply } from '@shared/contracts/model';
import type { RoundRecord, ToolExecution } from '@shared/contracts/round';
import { ModelScript } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { EFFECT_LABELS, isProtectedEffect } from '@shared/contracts/tool-effect';
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
import { createBoundaryActor } from '../engine/boundary-actor';
import { boundaryEffects, type ConfirmTool, type PausedCall } from '../engine/boundary-actors';
import { inputResponsesFor, serverInputIntervention, serverInputWait, type PausedInput } from '../engine/server-input';
import type { ServerInputWait } from '@shared/contracts/server-input';
import { CanonicalHistory } from '../engine/canonical-history';
import { prepareRun } from '../engine/run-setup';
import { declined, errorText, failed, stoppedByPerson, streamOutputs, type NodeOutcome, type NodeRun } from './node-outcome';
import type { WorkflowTools } from './workflow-tools';

export interface ToolNodeDeps {
  runId: string;
  /** The workflow's trace records tool results: the call's key names where its result is, to be given again after a stop (boundary-actors.ts). */
  keepToolResults?: boolean;
  /** The id the call's idempotency key derives from, when not `runId` (a child started again: run-workflow.ts). */
  keyRunId?: string;
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

/** A call's outputs: `result`, the tool's JSON result when its text is JSON (else `{ content }`), and `text`. */
export function toolOutputs(content: string): Record<string, unknown> {
  return { result: resultOf(content), text: content };
}

function resultOf(text: string): unknown {
  // Only an object or an array is taken as JSON: other text is not parsed (a failed parse throws, and
  // an exception per call was a tenth of a millisecond a tool node: bench/workflow).
  if (!/^\s*[[{]/.test(text)) return { content: text };
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
 * A streaming node (`stream`) makes one such call per element: see runToolStream.
 */
export async function runToolNode(node: NodeOf<'tool'>, run: NodeRun, deps: ToolNodeDeps, resume?: Resume): Promise<NodeOutcome> {
  if (node.stream) return runToolStream(node, node.stream.over, run, deps, resume);
  const decision = resume ? confirmedDecision(node, run, resume, 0) : renderedDecision(node, deps, run.invocation.inputs);
  if ('status' in decision) return decision;
  const prepared = await prepareCalls(node, run, deps);
  if ('status' in prepared) return prepared;
  const call = await callOnce(prepared, { round: 0, decision, resume, execution: deps.replay?.recorded?.execution });
  return call.status === 'executed' ? { status: 'done', outputs: call.outputs } : call;
}

/** A person's answer to the node's question; for a server's question (issue 30), what continues the paused call. */
type Resume = { intervention: Intervention; answer: HumanAnswer; serverInput?: ServerInputWait };

/**
 * A streaming producer (seed 004): one call per element of the list `stream.over`, in order, round
 * N for element N (so each has its own idempotency key and its own place in the trace). Each result
 * goes downstream as it arrives (`run.send`); what was sent before (a host stop, a person's
 * confirmation) is not called or sent again: the run goes on at the next element. A failed call
 * fails the node with what it sent so far already downstream, which is why a supervisor may only
 * end the stream there or fail it.
 */
async function runToolStream(node: NodeOf<'tool'>, over: string, run: NodeRun, deps: ToolNodeDeps, resume?: Resume): Promise<NodeOutcome> {
  const list = run.invocation.inputs[over];
  if (!Array.isArray(list)) return failed('invalid_input', `${node.id} streams over ${over}, which is ${list === null ? 'null' : typeof list}, not a list`);
  const sent = run.sent ?? [];
  const all = [...sent];
  const prepared = await prepareCalls(node, run, deps);
  if ('status' in prepared) return prepared;
  for (let round = sent.length; round < list.length; round += 1) {
    if (run.signal.aborted) return failed('cancelled', 'the run was cancelled');
    // Whatever fails at this element says how much of the stream is already downstream.
    const partWay = (outcome: Extract<NodeOutcome, { status: 'failed' }>) => failed(outcome.failure.code, `${outcome.failure.message} (${round} of ${list.length} results were already sent on)`);
    const answered = round === sent.length ? resume : undefined;
    const decision = answered ? confirmedDecision(node, run, answered, round) : renderedDecision(node, deps, { ...run.invocation.inputs, item: list[round] });
    if ('status' in decision) return decision.status === 'failed' ? partWay(decision) : decision;
    const call = await callOnce(prepared, { round, decision, resume: answered, execution: deps.replay?.recorded?.executions?.[round] ?? (round === 0 ? deps.replay?.recorded?.execution : undefined) });
    if (call.status === 'failed') return partWay(call);
    if (call.status !== 'executed') return call;
    run.send?.(call.outputs);
    all.push(call.outputs);
  }
  return { status: 'done', outputs: streamOutputs(all) };
}

/**
 * The person's answer to the node's call: approve runs it; "Stop the run" ends the whole run; "Don't
 * run it" (or `reject`, which a node parked before `decline` existed offered) ends the node declined:
 * no agent proposed the call, so nobody can try again.
 */
function confirmedDecision(node: NodeOf<'tool'>, run: NodeRun, resume: Resume, round: number): ToolCallDecision | NodeOutcome {
  const serverQuestion = resume.intervention.kind === 'server_input';
  // A server's question: what the person typed goes to the server only, never into the trace.
  const recorded = serverQuestion ? { action: resume.answer.action, ...(resume.answer.note !== undefined ? { note: resume.answer.note } : {}) } : resume.answer;
  run.emit({ type: 'intervention.answered', round, intervention_id: resume.intervention.id, answer: recorded });
  const asked = resume.intervention.decision;
  const what = `${node.server}/${node.tool}`;
  if (resume.answer.action === 'stop') return stoppedByPerson(`${node.id} (${what})`, resume.answer.note);
  // Answered, declined or dismissed: the paused call goes on, carrying that answer to the server.
  if (serverQuestion && asked?.decision_type === 'tool_call') return asked;
  if (resume.answer.action !== 'approve' || asked?.decision_type !== 'tool_call') return declined(what, resume.answer.note);
  return asked;
}

function renderedDecision(node: NodeOf<'tool'>, deps: ToolNodeDeps, inputs: Record<string, unknown>): ToolCallDecision | NodeOutcome {
  // The document's own `${workspace}` first, then the inputs: a value that holds `${…}` stays as it is.
  let own: Record<string, unknown>;
  try {
    own = substituteVars(node.arguments, deps.vars, `the arguments of ${node.id}`);
  } catch (err) {
    return failed('template_error', errorText(err));
  }
  const rendered = renderJsonTemplate(own, inputs);
  if (!rendered.ok) return failed('template_error', rendered.message);
  const args = rendered.value;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return failed('invalid_input', 'the tool arguments must be a JSON object');
  return { decision_type: 'tool_call', tool_name: node.tool, arguments: args as Record<string, unknown> };
}

/** What every call of one node run shares: the tool host, the node's tool, its teacher. */
interface PreparedCalls {
  node: NodeOf<'tool'>;
  run: NodeRun;
  deps: ToolNodeDeps;
  host: ToolHost;
  snapshot: ToolSnapshot;
  tool: ToolSnapshot['tools'][number];
  runLabel: string;
  teacher: ModelProvider;
}

async function prepareCalls(node: NodeOf<'tool'>, run: NodeRun, deps: ToolNodeDeps): Promise<PreparedCalls | NodeOutcome> {
  let host: ToolHost;
  let full: ToolSnapshot;
  try {
    ({ host, snapshot: full } = await deps.tools.get());
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
  // every other call keeps one key per invocation and round, so it runs at most once whatever happens.
  const retriedRead = (run.attempt ?? 1) > 1 && tool.effect.effect === 'read';
  const runLabel = `${deps.keyRunId ?? deps.runId}:${run.invocation.id}${retriedRead ? `#${run.attempt}` : ''}`;
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
  // The privacy log: the node's reviews are model calls like an agent's (the workflow's own call is not one).
  const reviewModel = deps.replay ? { provider: 'script' as const } : (node.review?.teacher ?? { provider: 'script' as const });
  if (node.review) teacher = recordCalls(teacher, modelPlace(reviewModel, deps.ollamaHost), (call) => run.emit({ type: 'model.called', ...call }), (answer) => run.emit({ type: 'model.answered', ...answer }));
  return { node, run, deps, host, snapshot, tool, runLabel, teacher };
}

type CallResult = { status: 'executed'; outputs: Record<string, unknown> } | Exclude<NodeOutcome, { status: 'done' }>;

/** One call, round `round` of the node: through the boundary, or parked for a person. */
async function callOnce(p: PreparedCalls, call: { round: number; decision: ToolCallDecision; resume?: Resume; execution?: ToolExecution }): Promise<CallResult> {
  const { node, run, deps, tool, runLabel } = p;
  const { round, decision, resume } = call;
  const host = deps.replay && !deps.replay.live ? recordedResults(p.host, call.execution) : p.host;
  const confirm = deps.confirm ?? (async () => 'unavailable' as const);
  // A stream's person questions are one per element.
  const askId = node.stream ? `#${round}` : '';
  let preselected: BoundaryInput['preselected'];
  const isProtected = isProtectedEffect(tool.effect.effect);
  if (resume) {
    // The person approved this exact call (validated again against the snapshot, like any other).
    preselected = { decision, intervention_id: resume.intervention.id, confirmed: true };
  } else if (isProtected && !node.review) {
    // No teacher: only a person's confirmation of this exact call lets a protected tool run.
    const answer = await confirm({ run_id: runLabel, round, server: node.server, tool: node.tool, arguments: decision.arguments });
    // The app asks in the run view: the node waits for the answer (and survives a restart).
    if (answer === 'pending') return waitForPerson(run, deps, decision, 'confirmation', `${node.server}/${node.tool} has a protected effect (${EFFECT_LABELS[tool.effect.effect].toLowerCase()}) and no teacher reviews it: it runs only if you confirm it.`, round, askId);
    // Declined (--no-confirm, or "no" where the shell asks itself): the person's decision, as "Don't run it" is.
    if (answer === 'denied') return declined(`${node.server}/${node.tool}`, undefined);
    if (answer !== 'granted') {
      return failed('not_confirmed', `${node.server}/${node.tool} has a protected effect (${EFFECT_LABELS[tool.effect.effect].toLowerCase()}) and no teacher reviews it; it needs your confirmation, and none could be obtained (in the CLI, --yes confirms)`);
    }
    preselected = { decision, intervention_id: `confirm:${run.invocation.id}${askId}`, confirmed: true };
  }

  // A server's question mid-call (issue 30): where a person answers later, the call pauses and the node parks.
  let paused: PausedInput | undefined;
  let continuation: PausedCall | undefined;
  const wait = resume?.intervention.kind === 'server_input' ? resume.serverInput : undefined;
  if (resume && wait) {
    continuation = { idempotency_key: wait.idempotency_key, continueWith: { inputResponses: inputResponsesFor(wait, resume.answer), ...(wait.request_state !== undefined ? { requestState: wait.request_state } : {}) } };
  }
  const history = new CanonicalHistory();
  const effects = boundaryEffects({
    runId: runLabel,
    traceRunId: deps.runId,
    instructions: () => `Workflow ${deps.graph.name}, step ${node.id}.`,
    task: `call ${node.server}/${node.tool}`,
    student: authorProvider(decision),
    studentReadsNoPrompt: true,
    teacher: p.teacher,
    studentMode: 'structured',
    toolHost: host,
    ledger: deps.ledger,
    history,
    confirm,
    feedback: () => undefined,
    maskText: (text) => deps.secrets.maskText(text),
    maskVersion: () => deps.secrets.version,
    sensitiveFound: (value) => void deps.secrets.registerSensitive(value),
    onExecution: () => undefined,
    keepResults: deps.keepToolResults === true,
    onToolProgress: (r, key, report) => run.emit(toolProgressEvent(r, key, report, (text) => deps.secrets.maskText(text))),
    runSignal: run.signal,
    ...(deps.parkEscalations && !deps.replay ? { pauseForInput: true } : {}),
    onInputPause: (pause, at) => {
      paused = { pause, ...at };
    },
    continuation: (server, name) => {
      const next = continuation;
      if (!next || server !== node.server || name !== node.tool) return undefined;
      continuation = undefined;
      return next;
    },
  });
  const actor = createBoundaryActor(effects, { round, proposer: 'student', snapshot: p.snapshot, supervision: node.review ? REVIEWED : UNREVIEWED, sampled: false, preselected });
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
    return waitForPerson(run, deps, record.selected.decision, 'confirmation', `${node.server}/${node.tool} needs your confirmation before it runs.`, round, askId);
  }
  if (record.authorization?.ok === false && record.authorization.reason === 'confirmation_denied') return declined(`${node.server}/${node.tool}`, undefined);
  if (record.outcome === 'escalated' && record.reason === 'input_required') {
    if (!paused) return failed('tool_error', `${node.server}/${node.tool}: its server asked for input, but the call it paused was not kept`);
    // The same question an agent's round asks; the node's own id, as its other questions have.
    const asked = serverInputIntervention(record, paused, deps.runId);
    const intervention: Intervention = { ...asked, id: `${deps.runId}:${run.invocation.id}:server_input${askId}`, decision };
    run.emit({ type: 'intervention.requested', round, intervention });
    return { status: 'waiting', intervention, server_input: serverInputWait(paused) };
  }
  if (record.outcome === 'escalated') {
    const why = deps.secrets.maskText(record.message ?? 'the teacher asked for a person to decide');
    // What the teacher escalated is the node's own call: that is what the person approves or rejects.
    if (deps.parkEscalations) return waitForPerson(run, deps, decision, 'escalation', why, round, askId);
    return failed('tool_escalated', `the teacher escalated ${node.server}/${node.tool} to a person: ${why} (a person decides in the app)`);
  }
  if (record.outcome !== 'executed' || !execution) {
    const code = record.reason === 'cancelled' ? 'cancelled' : record.outcome === 'blocked' ? 'tool_blocked' : 'tool_error';
    return failed(code, deps.secrets.maskText(record.message ?? record.reason ?? `the call ended ${record.outcome}`));
  }
  const element = node.stream ? ` (element ${round + 1} of its stream)` : '';
  if (execution.is_error || !execution.ok) return failed('tool_error', `${node.tool} reported an error${element}: ${execution.error ?? execution.content}`.slice(0, 4000));
  return { status: 'executed', outputs: toolOutputs(execution.content) };
}

/**
 * The node parks for a person to decide on this exact call (an intervention in the journal): run it,
 * don't run it (the node ends declined: no agent proposed it, so nobody tries again), or stop the run.
 */
function waitForPerson(run: NodeRun, deps: ToolNodeDeps, decision: ToolCallDecision, kind: Intervention['kind'], reason: string, round: number, askId: string): Extract<NodeOutcome, { status: 'waiting' }> {
  const intervention: Intervention = {
    id: `${deps.runId}:${run.invocation.id}:${kind}${askId}`,
    run_id: deps.runId,
    round,
    kind,
    decision,
    reason,
    reason_codes: [],
    options: ['approve', 'decline', 'stop'],
    requested_at: new Date().toISOString(),
  };
  run.emit({ type: 'intervention.requested', round, intervention });
  return { status: 'waiting', intervention };
}
