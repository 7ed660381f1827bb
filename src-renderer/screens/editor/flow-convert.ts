import type { Edge as FlowEdge, Node as FlowNode } from '@xyflow/react';
import type { Edge, WorkflowNode } from '@shared/workflow/document';
import { INVOCATION_STATUS_LABELS, type InvocationStatus } from '@shared/workflow/invocation';
import { NODE_KIND_LABELS, portsOf, typesConnect } from '@shared/workflow/ports';
import { autoPlace } from './auto-place';
import type { Draft } from './graph-edit';
import type { ProblemIndex } from './problems';
import type { NodeSupervision } from '../../workflow-supervisor/derive-supervision';

/** A node's state in a run, as the graph shows it (from the run's node.invocation events). */
export interface NodeRunState {
  status: InvocationStatus;
  counts: Partial<Record<InvocationStatus, number>>;
  total: number;
}

export interface StepData extends Record<string, unknown> {
  node: WorkflowNode;
  /** Problems on the node itself, and those naming a port it does not show. */
  problems: string[];
  /** By port name (inputs and outputs share the names' space for problems). */
  portProblems: Record<string, string[]>;
  run?: NodeRunState;
  /** The run view on this node (its invocations and rounds), while a run is shown. */
  runHref?: string;
  /** The workflow supervisor's verdicts on this node in the run shown, and whether it is deciding. */
  supervision?: NodeSupervision;
}
export type StepNode = FlowNode<StepData, 'step'>;

/** React Flow's view of the draft: one `step` node per node, handles named by port. */
export function toFlowNodes(draft: Draft, problems: ProblemIndex, runStates: Readonly<Record<string, NodeRunState>> = {}): StepNode[] {
  const placed = draft.nodes.every((n) => n.position) ? undefined : autoPlace(draft.nodes.map((n) => n.id), draft.edges);
  return draft.nodes.map((node) => {
    const ports = portsOf(node);
    const shown = new Set([...ports.inputs.map((p) => p.name), ...ports.outputs.map((p) => p.name)]);
    const portProblems: Record<string, string[]> = {};
    const loose: string[] = [];
    for (const [key, messages] of problems.port) {
      const [nodeId, port] = key.split('\u0000');
      if (nodeId !== node.id || port === undefined) continue;
      if (shown.has(port)) portProblems[port] = messages;
      else loose.push(...messages);
    }
    const nodeProblems = [...(problems.node.get(node.id) ?? []), ...loose];
    const run = runStates[node.id];
    return {
      id: node.id,
      type: 'step',
      // A node written without a position gets one from the graph's shape rather than 0,0.
      position: node.position ?? placed?.get(node.id) ?? { x: 0, y: 0 },
      ariaLabel: nodeName(node, nodeProblems.length + Object.values(portProblems).flat().length, run),
      data: { node, problems: nodeProblems, portProblems, ...(run ? { run } : {}) },
    };
  });
}

/**
 * What a screen reader says for a node on the canvas (React Flow's node is a focusable group): its
 * kind and title, its ports, how many problems it has and, while a run is shown, its state.
 */
export function nodeName(node: WorkflowNode, problemCount: number, run?: NodeRunState): string {
  const ports = portsOf(node);
  const parts = [`${NODE_KIND_LABELS[node.kind]} node “${node.label ?? node.id}”`];
  if (ports.inputs.length > 0) parts.push(`inputs: ${ports.inputs.map((p) => p.name).join(', ')}`);
  if (ports.outputs.length > 0) parts.push(`outputs: ${ports.outputs.map((p) => p.name).join(', ')}`);
  if (problemCount > 0) parts.push(problemCount === 1 ? '1 problem' : `${problemCount} problems`);
  if (run) parts.push(runStateText(run));
  return parts.join('; ');
}

export type StepEdge = FlowEdge<{ index: number }>;

/**
 * Edges named by what they connect, so a selection survives an edit elsewhere in the list; `data.index`
 * is the edge's position in the document (problems and deletion name it).
 */
export function toFlowEdges(draft: Draft, problems: ProblemIndex): StepEdge[] {
  const seen = new Map<string, number>();
  return draft.edges.map((e, i) => {
    const messages = problems.edge.get(i);
    const base = `${e.from.node}.${e.from.port}->${e.to.node}.${e.to.port}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      id: n === 1 ? base : `${base}#${n}`,
      data: { index: i },
      source: e.from.node,
      sourceHandle: e.from.port,
      target: e.to.node,
      targetHandle: e.to.port,
      ...(messages ? { label: `⚠ ${short(messages[0] ?? '')}`, className: 'wf-edge wf-edge--problem', ariaLabel: `edge ${i + 1}: ${messages.join('; ')}` } : { className: 'wf-edge' }),
    };
  });
}

/** An edge's label stays short on the canvas; the whole message is in its aria-label and the problems list. */
function short(message: string): string {
  return message.length > 60 ? `${message.slice(0, 59)}…` : message;
}

/** A connection React Flow reports, as the document's edge (null while a handle is missing). */
export function edgeOfConnection(c: { source: string; target: string; sourceHandle?: string | null; targetHandle?: string | null }): Edge | null {
  if (!c.sourceHandle || !c.targetHandle) return null;
  return { from: { node: c.source, port: c.sourceHandle }, to: { node: c.target, port: c.targetHandle } };
}

/** Whether the editor lets a drag connect these ports: not a node to itself, and types that flow. */
export function canConnect(draft: Draft, edge: Edge): boolean {
  if (edge.from.node === edge.to.node) return false;
  const from = draft.nodes.find((n) => n.id === edge.from.node);
  const to = draft.nodes.find((n) => n.id === edge.to.node);
  const out = from && portsOf(from).outputs.find((p) => p.name === edge.from.port);
  const into = to && portsOf(to).inputs.find((p) => p.name === edge.to.port);
  return !!out && !!into && typesConnect(out.type, into.type);
}


/** "3/5 done" for an iterated node, the status alone for a node that ran once. */
export function runStateText(run: NodeRunState): string {
  const label = INVOCATION_STATUS_LABELS[run.status];
  if (run.total <= 1) return label;
  const done = run.counts.done ?? 0;
  const rest = (['running', 'waiting', 'failed', 'skipped'] as const).filter((s) => (run.counts[s] ?? 0) > 0).map((s) => `${run.counts[s]} ${INVOCATION_STATUS_LABELS[s].toLowerCase()}`);
  return [`${done}/${run.total} done`, ...rest].join(' · ');
}
