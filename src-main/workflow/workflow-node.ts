import type { RunEvent, RunEventPayload, SubworkflowParent } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { NodeOf, WorkflowGraph } from '@shared/workflow/document';
import { childInterventions } from '@shared/workflow/child-runs';
import { MAX_WORKFLOW_DEPTH } from '@shared/workflow/subworkflow';
import { setOwn } from '@shared/util/set-own';
import { createEventStamper } from '../engine/event-stamper';
import { resolveSupervision, supervisionAsked, type SupervisionHost } from './supervision/resolve-supervision';
import type { WorkflowSupervisionOptions } from './supervision/workflow-supervision';
import { errorText, failed, type NodeOutcome, type NodeRun } from './node-outcome';
import type { WorkflowCheckpoint } from './workflow-checkpoint';
import type { LibraryWorkflow, WorkflowLibrary } from './workflow-library';

/**
 * Workflows as agents (issue 29, seed 004): a workflow node runs a stored workflow as its own run,
 * linked both ways (the child's workflow.started names the parent run and invocation; the parent's
 * subworkflow.* events name the child run), with its own supervision inside — its agent nodes
 * supervised per their own settings, its workflow supervisor per its own. Its interventions are listed
 * on subworkflow.finished, so the parent's report shows them under the node. A child that waits for a
 * person makes the node wait with the child's question; the answer resumes the child from its
 * checkpoint (kept inside the parent's), so the wait is as durable as the parent's.
 */

/** What the parent learns of a child run (the part of WorkflowRun it reads). */
export interface ChildRun {
  run_id: string;
  status: string;
  outputs: Record<string, unknown>;
  message?: string;
  setup_error?: string;
  interventions?: Array<{ invocation_id: string; intervention: Intervention }>;
  checkpoint?: WorkflowCheckpoint;
}

/** A child run as the parent asks for it: the rest of its options are the parent's (runChild adds them). */
export interface ChildRunOptions {
  graph: WorkflowGraph;
  specDir: string;
  workspace?: string;
  inputs: Record<string, unknown>;
  runId: string;
  /** The id its keys derive from, when not `runId` (a child started again). */
  keyRunId?: string;
  parent: SubworkflowParent;
  /** Stored workflow ids from the outermost run down to this child. */
  chain: string[];
  onEvent: (event: RunEvent) => void;
  signal: AbortSignal;
  supervision?: WorkflowSupervisionOptions;
  resume?: { checkpoint: WorkflowCheckpoint; answer: HumanAnswer; invocation?: string };
}

export type RunChild = (options: ChildRunOptions) => Promise<ChildRun>;

/**
 * The child runner a parent run hands its workflow nodes: `run` is runWorkflow with the parent's shared
 * options (passed in: this module is below run-workflow.ts). A child whose document asks for its
 * workflow supervisor gets it, resolved as a top-level run's is.
 */
export function childRunner(run: (options: ChildRunOptions) => Promise<ChildRun>, host: SupervisionHost): RunChild {
  return async (options) => {
    const source = { graph: options.graph, ...(options.resume ? { checkpoint: options.resume.checkpoint } : {}) };
    const supervision = supervisionAsked(source) ? await resolveSupervision(source, host) : undefined;
    return run({ ...options, ...(supervision ? { supervision } : {}) });
  };
}

export interface SubworkflowDeps {
  /** The stored workflows (absent: a run with no data folder, so a workflow node cannot run). */
  library?: WorkflowLibrary;
  /** The parent run and its workflow. */
  runId: string;
  /** The id the parent's keys derive from, when not `runId` (it is itself a child started again). */
  keyRunId?: string;
  /**
   * The invocation was started again after host stops, this many times: its child records under a
   * run id of its own (`~2`, `~3`…; the first start's run is closed in the history) and keeps the
   * first start's keys, so a tool call that start made is not made again.
   */
  restarted?: number;
  workflowId: string;
  /** Stored workflow ids from the outermost run down to the parent. */
  chain: readonly string[];
  /** The journal: the child is a run of its own in it. */
  onEvent?: (event: RunEvent) => void;
  runChild: RunChild;
}

/** The child's run id: the parent's and the invocation's (a supervisor's retry: `#2`…), so a resumed or replayed call keeps its idempotency keys. */
export const childRunId = (runId: string, invocationId: string, attempt = 1, tool?: string): string => `${runId}:${tool !== undefined ? `${invocationId}>${tool}` : invocationId}${attempt > 1 ? `#${attempt}` : ''}`;

/** How a child ended, for its caller: outputs, or a failure in words, or a question for a person. */
export type ChildOutcome =
  | { kind: 'done'; outputs: Record<string, unknown>; run_id: string }
  | { kind: 'failed'; code: string; message: string; run_id?: string; outputs?: Record<string, unknown> }
  | { kind: 'waiting'; run_id: string; intervention: Intervention; checkpoint: WorkflowCheckpoint };

export interface ChildRequest {
  workflow: string;
  version?: string;
  inputs: Record<string, unknown>;
  invocationId: string;
  attempt?: number;
  /** An agent's workflow tool call (its name): the child is the tool's run, not the node's. */
  tool?: string;
  signal: AbortSignal;
  /** Records on the parent's journal, under the invocation. */
  emit: (payload: RunEventPayload) => void;
  /**
   * The caller cannot wait (an agent's tool call): a child that waits for a person has its run ended
   * instead, with these words after why it waited, and fails.
   */
  cannotWait?: string;
  /** The child's checkpoint, the person's answer, and the question it answers (the child's intervention id). */
  resume?: { checkpoint: WorkflowCheckpoint; answer: HumanAnswer; interventionId?: string };
}

const STATUS_WORDS: Record<string, string> = {
  failed: 'failed',
  cancelled: 'was cancelled',
  declined: 'ended without a call a person declined',
  stopped: 'was stopped by a person',
  completed_with_failures: 'got its outputs, but some of its work failed',
};

/** Runs (or resumes) a stored workflow as a child of the parent run, and says how it ended. */
export async function runChildWorkflow(request: ChildRequest, deps: SubworkflowDeps): Promise<ChildOutcome> {
  const { workflow } = request;
  const chain = [...deps.chain];
  if (chain.includes(workflow)) return { kind: 'failed', code: 'workflow_cycle', message: `the workflow "${workflow}" is already running above this one (${[...chain, workflow].join(' → ')}): a workflow cannot contain itself` };
  if (chain.length >= MAX_WORKFLOW_DEPTH) return { kind: 'failed', code: 'workflow_too_deep', message: `workflows run workflows more than ${MAX_WORKFLOW_DEPTH} deep here (${chain.join(' → ')})` };
  if (!deps.library) return { kind: 'failed', code: 'workflow_unavailable', message: `this run has no stored workflows to run "${workflow}" from (run it from the app or with a data folder)` };
  let child: LibraryWorkflow;
  try {
    child = deps.library.load(workflow);
  } catch (err) {
    // A waiting child resumes from its own checkpoint (its graph as it started), stored since or not.
    const kept = request.resume?.checkpoint;
    if (!kept) return { kind: 'failed', code: 'unknown_workflow', message: errorText(err) };
    child = { loaded: { graph: kept.graph, specDir: kept.spec_dir, ...(kept.workspace !== undefined ? { workspace: kept.workspace } : {}) }, name: kept.graph.name, version: '' };
  }
  if (!request.resume && request.version !== undefined && request.version !== child.version) {
    return { kind: 'failed', code: 'workflow_changed', message: `"${child.name}" was saved again (${child.version}) since this node pinned it (${request.version}): pick it again in the node to run the new version` };
  }
  // A resumed child reads its key id from its own checkpoint (run-workflow.ts).
  const keyRunId = request.resume ? undefined : childRunId(deps.keyRunId ?? deps.runId, request.invocationId, request.attempt, request.tool);
  const firstId = childRunId(deps.runId, request.invocationId, request.attempt, request.tool);
  const runId = request.resume?.checkpoint.run_id ?? (deps.restarted !== undefined ? `${firstId}~${deps.restarted + 1}` : firstId);
  const tool = request.tool !== undefined ? { tool: request.tool } : {};
  const seen: RunEvent[] = [];
  const onEvent = (event: RunEvent) => {
    if (event.run_id === runId) seen.push(event);
    deps.onEvent?.(event);
  };
  request.emit({ type: 'subworkflow.started', workflow_id: workflow, workflow_name: child.name, child_run_id: runId, ...tool });
  let result: ChildRun;
  try {
    const waitingFor = request.resume ? waitingInvocation(request.resume.checkpoint, request.resume.interventionId) : undefined;
    result = await deps.runChild({
      graph: child.loaded.graph,
      specDir: child.loaded.specDir,
      ...(child.loaded.workspace !== undefined ? { workspace: child.loaded.workspace } : {}),
      inputs: request.inputs,
      runId,
      ...(keyRunId !== undefined && keyRunId !== runId ? { keyRunId } : {}),
      parent: { run_id: deps.runId, invocation_id: request.invocationId, workflow_id: deps.workflowId },
      chain: [...chain, workflow],
      onEvent,
      signal: request.signal,
      ...(request.resume ? { resume: { checkpoint: request.resume.checkpoint, answer: request.resume.answer, ...(waitingFor !== undefined ? { invocation: waitingFor } : {}) } } : {}),
    });
  } catch (err) {
    const message = `"${child.name}" could not run: ${errorText(err)}`;
    request.emit({ type: 'subworkflow.finished', workflow_id: workflow, child_run_id: runId, status: 'failed', message: message.slice(0, 4000), interventions: childInterventions(seen), ...tool });
    return { kind: 'failed', code: 'workflow_failed', message, run_id: runId };
  }
  const asked = result.interventions?.[0];
  if (result.status === 'waiting' && request.cannotWait !== undefined) {
    const message = `"${child.name}" waits for a person (${asked?.intervention.reason.slice(0, 300) ?? 'a question'}), and ${request.cannotWait}`;
    // Its run ends in words, never left waiting with nothing to resume it.
    if (result.checkpoint) {
      const stamper = createEventStamper(runId, onEvent, result.checkpoint.next_seq);
      stamper.emit({ type: 'run.finished', status: 'failed', outputs: {}, message, rounds: result.checkpoint.rounds, event_count: stamper.count + 1 });
    }
    request.emit({ type: 'subworkflow.finished', workflow_id: workflow, child_run_id: runId, status: 'failed', message, interventions: childInterventions(seen), ...tool });
    return { kind: 'failed', code: 'workflow_waiting', message, run_id: runId };
  }
  const status = result.status === 'waiting' || result.status === 'completed' || Object.hasOwn(STATUS_WORDS, result.status) ? result.status : 'failed';
  const words = result.setup_error ?? result.message;
  request.emit({
    type: 'subworkflow.finished',
    workflow_id: workflow,
    child_run_id: runId,
    status: status as 'completed' | 'failed' | 'waiting' | 'cancelled' | 'declined' | 'stopped' | 'completed_with_failures',
    ...(words !== undefined ? { message: words.slice(0, 4000) } : {}),
    interventions: childInterventions(seen),
    ...tool,
  });
  if (result.status === 'completed') return { kind: 'done', outputs: result.outputs, run_id: runId };
  if (result.status === 'waiting' && asked && result.checkpoint) return { kind: 'waiting', run_id: runId, intervention: asked.intervention, checkpoint: result.checkpoint };
  if (result.status === 'waiting') return { kind: 'failed', code: 'workflow_waiting', message: `"${child.name}" waits for a person, and its wait could not be kept here: ${words ?? 'no checkpoint'}`, run_id: runId };
  const said = STATUS_WORDS[result.status] ?? result.status;
  return { kind: 'failed', code: `workflow_${status}`, message: `the workflow "${child.name}" (run ${runId}) ${said}${words ? `: ${words}` : ''}`, run_id: runId, ...(result.status === 'completed_with_failures' ? { outputs: result.outputs } : {}) };
}

/** The child's invocation the answer is for: the one whose question it answers, else its only waiting one. */
function waitingInvocation(checkpoint: WorkflowCheckpoint, interventionId: string | undefined): string | undefined {
  const entries = Object.entries(checkpoint.waiting);
  return entries.find(([, w]) => w.intervention.id === interventionId)?.[0] ?? entries[0]?.[0];
}

/**
 * A workflow node: its inputs are the child's run inputs, its outputs the child's (those it declares).
 * A child that got its outputs while losing work fails the node (its outputs the candidate a supervisor
 * may pass on with substitute): never shown as a plain success.
 */
export async function runSubworkflowNode(node: NodeOf<'workflow'>, run: NodeRun, deps: SubworkflowDeps, resume?: ChildRequest['resume']): Promise<NodeOutcome> {
  const inputs: Record<string, unknown> = {};
  for (const port of node.inputs) if (Object.hasOwn(run.invocation.inputs, port.name)) setOwn(inputs, port.name, run.invocation.inputs[port.name]);
  const outcome = await runChildWorkflow(
    {
      workflow: node.workflow,
      ...(node.version !== undefined ? { version: node.version } : {}),
      inputs,
      invocationId: run.invocation.id,
      ...(run.attempt !== undefined ? { attempt: run.attempt } : {}),
      signal: run.signal,
      emit: run.emit,
      ...(resume ? { resume } : {}),
    },
    deps,
  );
  switch (outcome.kind) {
    case 'done':
      return { status: 'done', outputs: declaredOutputs(node, outcome.outputs) };
    case 'waiting':
      return { status: 'waiting', intervention: outcome.intervention, child: outcome.checkpoint };
    case 'failed':
      return { ...failed(outcome.code.slice(0, 64), outcome.message), ...(outcome.outputs ? { candidate: declaredOutputs(node, outcome.outputs) } : {}) };
  }
}

function declaredOutputs(node: NodeOf<'workflow'>, outputs: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const port of node.outputs) if (Object.hasOwn(outputs, port.name)) setOwn(picked, port.name, outputs[port.name]);
  return picked;
}

/**
 * The child runs waiting inside a parked run's checkpoint (and theirs, all the way down): they wait
 * with it, so a host that starts never closes them as interrupted.
 */
export function waitingChildRunIds(checkpoint: WorkflowCheckpoint): string[] {
  // A sealed checkpoint keeps its children in the box and their ids in the clear (sealed-checkpoint.ts).
  const ids = Object.values(checkpoint.waiting).flatMap((w) => [...(w.child ? [w.child.run_id, ...waitingChildRunIds(w.child)] : []), ...(w.child_run_ids ?? [])]);
  return [...new Set(ids)];
}
