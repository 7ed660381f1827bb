import type { RunEvent, RunEventPayload } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { AgentSpec } from '@shared/contracts/spec';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { InvocationReplay } from '@shared/replay/workflow-replay';
import type { NodeOf, WorkflowGraph } from '@shared/workflow/document';
import { renderTemplate } from '@shared/workflow/template';
import { outputSchemaProblem } from '@shared/workflow/output-schema';
import { substituteVars } from '@shared/util/substitute';
import { setOwn } from '@shared/util/set-own';
import type { CredentialStore } from '../credentials/credential-store';
import type { ConfirmTool } from '../engine/boundary-actors';
import type { RunCheckpoint } from '../engine/checkpoint';
import { checkEditedApproval } from '../engine/intervention';
import { checkServerInputAnswer } from '../engine/server-input';
import { runAgent, type RunAgentOptions } from '../engine/run-agent';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import type { ToolHost } from '../mcp/tool-host';
import type { ModelProvider } from '../providers/provider';
import { errorText, failed, stoppedByPerson, type NodeOutcome, type NodeRun } from './node-outcome';

export interface AgentNodeDeps {
  runId: string;
  /** The workflow's trace records tool results: each call's key names where its result is, to be given again after a stop (boundary-actors.ts). */
  keepToolResults?: boolean;
  /** The id the agents' own run ids (and so their idempotency keys) derive from, when not `runId` (a child started again: run-workflow.ts). */
  keyRunId?: string;
  graph: WorkflowGraph;
  specDir: string;
  workspace?: string;
  ledger: IdempotencyLedger;
  confirm?: ConfirmTool;
  privacy?: PrivacyPolicy;
  ollamaHost?: string;
  credentials?: CredentialStore;
  onProgress?: (line: string) => void;
  /** Injected for tests and benchmarks (every agent node shares them). */
  providers?: { student: ModelProvider; teacher: ModelProvider };
  toolHost?: ToolHost;
  /** A person answers the node's servers' elicitation (the app's runs). */
  onElicit?: RunAgentOptions['onElicit'];
  oauthConsent?: RunAgentOptions['oauthConsent'];
  onReviewSample?: RunAgentOptions['onReviewSample'];
  /** A 2026-07-28 server's question mid-call parks the node like any wait (issue 30): the app's runs, which can wait across a restart. */
  durableServerInput?: boolean;
  /** The keys that seal the node's agent's checkpoint when it waits holding a sensitive argument's value (issue 27). */
  sealKeys?: RunAgentOptions['sealKeys'];
  /** The node's own profile versions (its deployment profile, issue 29): recorded on its agent.started. */
  profiles?: RunAgentOptions['profiles'];
  /** Adds the node's workflow tools to its tool host (workflow-as-tool.ts); absent when it is offered none. */
  wrapToolHost?: RunAgentOptions['wrapToolHost'];
  /**
   * A replay of a recorded run (`replayOf`): the agent answers with this invocation's recorded
   * answers (`recorded`; none: the recorded run never ran it, so it fails), and unless `live` it
   * executes no tool (a dry run).
   */
  replay?: { live: boolean; replayOf: string; recorded?: Extract<InvocationReplay, { kind: 'agent' }> };
}

/** The node's agent as its recorded invocation ran: its supervision and SCS mode, both models the recorded answers. */
function replayedSpec(spec: AgentSpec, invocationId: string, recorded: Extract<InvocationReplay, { kind: 'agent' }> | undefined): { ok: true; spec: AgentSpec } | { ok: false; message: string } {
  if (!recorded) return { ok: false, message: `the recorded run never ran ${invocationId}: the replay has no answers for it` };
  // Its inputs came from the nodes before it: a different task means the replay already went another way.
  if (spec.task !== recorded.task) return { ok: false, message: `${invocationId} got another task than in the recorded run, so its recorded answers do not apply` };
  return {
    ok: true,
    spec: {
      ...spec,
      supervision: recorded.supervision,
      scs: recorded.scs_mode !== undefined ? { ...spec.scs, mode: recorded.scs_mode } : spec.scs,
      models: { student: { provider: 'script' }, teacher: { provider: 'script' } },
      script: recorded.script,
      script_file: undefined,
    },
  };
}

/** The agent's own run id: its idempotency keys, sampler draws and intervention ids stay per invocation. */
export const agentRunId = (runId: string, invocationId: string): string => `${runId}:${invocationId}`;

/** The node as an agent spec: its templated task and instructions, the workflow's servers it names. */
export function agentSpecOf(node: NodeOf<'agent'>, graph: WorkflowGraph, inputs: Record<string, unknown>, vars: Readonly<Record<string, string>>): { ok: true; spec: AgentSpec } | { ok: false; message: string } {
  // The node's own `${workspace}` first, then its inputs: `${…}` inside an input is text, never a variable.
  let own: { task: string; instructions: string };
  try {
    own = substituteVars({ task: node.task, instructions: node.instructions }, vars, `agent node ${node.id}`);
  } catch (err) {
    return { ok: false, message: errorText(err) };
  }
  const task = renderTemplate(own.task, inputs);
  if (!task.ok) return { ok: false, message: `task: ${task.message}` };
  const instructions = renderTemplate(own.instructions, inputs);
  if (!instructions.ok) return { ok: false, message: `instructions: ${instructions.message}` };
  const servers = node.servers === undefined ? graph.servers : graph.servers.filter((s) => node.servers?.includes(s.id));
  const ids = new Set(servers.map((s) => s.id));
  const effects = Object.fromEntries(Object.entries(graph.tool_effects).filter(([key]) => ids.has(key.split('/')[0] ?? '')));
  const parsed = AgentSpec.safeParse({
    format: 'steward/v1',
    kind: 'agent',
    id: node.id,
    name: node.name ?? node.label ?? node.id,
    instructions: String(instructions.value) + schemaInstruction(node),
    task: String(task.value),
    servers,
    models: node.models,
    supervision: node.supervision,
    limits: node.limits,
    scs: node.scs,
    ...(node.routes !== undefined ? { routes: node.routes } : {}),
    ...(node.synthesis !== undefined ? { synthesis: node.synthesis } : {}),
    tool_effects: effects,
    ...(node.script !== undefined ? { script: node.script } : {}),
  });
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, spec: parsed.data };
}

/**
 * An agent's event as a workflow event: its envelope is the workflow's (stamped again by the
 * caller), and its own start and end are agent.started / agent.finished, so run.started and
 * run.finished stay the workflow's.
 */
export function nestedPayload(event: RunEvent): RunEventPayload {
  const { id: _id, run_id: _run, seq: _seq, ts: _ts, ...payload } = event;
  if (payload.type === 'run.started') {
    // A replay's and retention's marks are the workflow's own (workflow.started).
    const { replay_of: _replay, retention: _retention, ...rest } = payload;
    return { ...rest, type: 'agent.started' };
  }
  if (payload.type === 'run.finished') {
    const { outputs: _outputs, event_count: _count, ...rest } = payload;
    return { ...rest, type: 'agent.finished' };
  }
  return payload;
}

/**
 * Approve with edits on a waiting node: the edit passes the validation of its agent's waiting round
 * (the tools kept in the node's own checkpoint), or it is refused and the node keeps waiting. A node
 * without an agent checkpoint cannot take edited arguments.
 */
export function checkEditedNodeApproval(waiting: { checkpoint?: RunCheckpoint; intervention: Intervention }, answer: HumanAnswer): void {
  // A tool's question (issue 30): the answer's entries fit its form; they are no edited arguments.
  if (waiting.intervention.kind === 'server_input') checkServerInputAnswer(waiting.intervention, answer);
  else checkEditedApproval(waiting.intervention, answer, waiting.checkpoint?.tool_snapshot);
}

/**
 * Runs an agent node with the existing agent loop (its boundary, phase, review rules, SCS), sharing
 * the run's ledger, credentials and privacy. `complete` → output `output`; a wait for a person parks
 * the node with the agent's checkpoint; any other end fails the node with the agent's message.
 */
export async function runAgentNode(
  node: NodeOf<'agent'>,
  run: NodeRun,
  deps: AgentNodeDeps,
  resume?: { checkpoint: RunCheckpoint; answer: HumanAnswer },
): Promise<NodeOutcome> {
  let spec: AgentSpec;
  if (resume) {
    spec = resume.checkpoint.spec;
  } else {
    const vars: Record<string, string> = { specDir: deps.specDir, ...(deps.workspace !== undefined ? { workspace: deps.workspace } : {}) };
    const built = agentSpecOf(node, deps.graph, run.invocation.inputs, vars);
    if (!built.ok) return failed('invalid_input', built.message);
    spec = built.spec;
    if (deps.replay) {
      const replayed = replayedSpec(spec, run.invocation.id, deps.replay.recorded);
      if (!replayed.ok) return failed('replay_mismatch', replayed.message);
      spec = replayed.spec;
    }
  }
  try {
    const result = await runAgent({
      spec,
      specDir: deps.specDir,
      workspace: deps.workspace,
      script: spec.script,
      ledger: deps.ledger,
      onEvent: (event) => run.emit(nestedPayload(event)),
      // A supervisor's retry (retry-safe: only reads within reach) is a new run of the agent, with its own idempotency keys.
      runId: `${agentRunId(deps.keyRunId ?? deps.runId, run.invocation.id)}${(run.attempt ?? 1) > 1 ? `#${run.attempt}` : ''}`,
      traceRunId: deps.runId,
      signal: run.signal,
      confirm: deps.confirm,
      ollamaHost: deps.ollamaHost,
      privacy: deps.privacy,
      credentials: deps.credentials,
      onProgress: deps.onProgress,
      onElicit: deps.onElicit,
      oauthConsent: deps.oauthConsent,
      onReviewSample: deps.onReviewSample,
      ...(deps.durableServerInput && !deps.replay ? { durableServerInput: true } : {}),
      ...(deps.sealKeys ? { sealKeys: deps.sealKeys } : {}),
      ...(deps.profiles ? { profiles: deps.profiles } : {}),
      keepToolResults: deps.keepToolResults === true,
      ...(deps.wrapToolHost ? { wrapToolHost: deps.wrapToolHost } : {}),
      // A replay's models are its script: injected providers (tests, benchmarks) are not its answers.
      providers: deps.replay ? undefined : deps.providers,
      // Sampled for review as the recorded invocation was; its tools dry unless live.
      ...(deps.replay ? { replayOf: agentRunId(deps.replay.replayOf, run.invocation.id), dryRun: !deps.replay.live } : {}),
      // A node that names its servers gets its own host; otherwise it shares the workflow's.
      toolHost: node.servers === undefined ? deps.toolHost : undefined,
      textsFinal: true,
      resume,
    });
    if (result.status === 'waiting' && result.checkpoint && result.intervention) {
      return { status: 'waiting', checkpoint: result.checkpoint, intervention: result.intervention };
    }
    if (result.status === 'completed') return checkedOutput(node, result.output ?? '');
    // A declared route taken: only its port sends (the agent's reason); `output` and the other routes send nothing.
    if (result.status === 'rerouted' && result.route !== undefined && node.routes?.some((r) => r.name === result.route?.name) === true) {
      const outputs: Record<string, unknown> = {};
      setOwn(outputs, result.route.name, result.route.reason);
      return { status: 'done', outputs };
    }
    // "Stop the run" stops the workflow's run, not only this node's agent (a run's own cancel aborts the signal instead).
    if ((result.status === 'stopped' || result.status === 'cancelled') && resume?.answer.action === 'stop' && !run.signal.aborted) return stoppedByPerson(node.id, resume.answer.note);
    return failed(result.status === 'cancelled' ? 'cancelled' : `agent_${result.status}`, result.message ?? result.setup_error ?? `the agent ended ${result.status}`);
  } catch (err) {
    return failed('agent_failed', errorText(err));
  }
}

/** The agent's answer is the node's output, once its output schema (if any) accepts it; else it is the candidate a supervisor may repair. */
function checkedOutput(node: NodeOf<'agent'>, output: string): NodeOutcome {
  if (node.output_schema === undefined) return { status: 'done', outputs: { output } };
  const problem = outputSchemaProblem(node.output_schema, output);
  if (problem === undefined) return { status: 'done', outputs: { output } };
  return { ...failed('output_invalid', `the answer does not meet the node's output schema: ${problem}`), candidate: { output } };
}

/** A model is told the shape its answer must have; the check after it is what holds. */
function schemaInstruction(node: NodeOf<'agent'>): string {
  return node.output_schema === undefined ? '' : `\n\nFinish with complete, whose output is JSON that meets this JSON Schema (nothing else): ${JSON.stringify(node.output_schema)}`;
}
