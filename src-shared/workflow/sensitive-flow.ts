import { resolveToolEffect } from '../policy/effect-registry';
import { checkWalkDepth } from '../util/json-depth';
import type { NodeOf, WorkflowGraph, WorkflowNode } from './document';
import { templateRefs, wholeTemplateRef } from './template';

/**
 * Which values of a workflow run are sensitive because they flow into a sensitive tool argument
 * (issue 27). Read off the graph before the run starts, so a PIN typed at run start is masked in the
 * very first event that carries it, not only once the tool call shows it.
 *
 * From each tool node's sensitive arguments (the effect registry, as the tool host resolves it) back
 * along the edges, through templates and the nodes that pass a value on (assert, iterate, collect),
 * to where the value enters: a workflow input, or a node that produces it (a tool's result, an
 * agent's answer). Then forward from there: every port the same value reaches carries it too.
 */

/** What of a port's value is sensitive: all of it, or what sits under these keys at any depth (as maskArguments masks). */
export interface PortMask {
  whole: boolean;
  keys: ReadonlySet<string>;
}

export interface SensitiveFlow {
  /** Workflow input fields (the input nodes' outputs) by name. */
  fields: ReadonlyMap<string, PortMask>;
  /** node → output port → what of it is sensitive. */
  outputs: ReadonlyMap<string, ReadonlyMap<string, PortMask>>;
  /** node → input port → what of it is sensitive (it arrives from a sensitive output). */
  inputs: ReadonlyMap<string, ReadonlyMap<string, PortMask>>;
  /** Nodes a sensitive value reaches (at or below a sensitive port): their texts may embed it. */
  reached: ReadonlySet<string>;
}

type Masks = Map<string, Map<string, { whole: boolean; keys: Set<string> }>>;

/** Merges `mask` into node/port; true when that widened what is sensitive there. */
function merge(masks: Masks, node: string, port: string, mask: PortMask): boolean {
  let ports = masks.get(node);
  if (!ports) masks.set(node, (ports = new Map()));
  const held = ports.get(port);
  if (!held) {
    ports.set(port, { whole: mask.whole, keys: new Set(mask.keys) });
    return true;
  }
  let changed = false;
  if (mask.whole && !held.whole) changed = held.whole = true;
  for (const key of mask.keys) {
    if (!held.keys.has(key)) {
      held.keys.add(key);
      changed = true;
    }
  }
  return changed;
}

const WHOLE: PortMask = { whole: true, keys: new Set() };

/**
 * The ports a (JSON) template uses, and what of each is sensitive when the strings under `keys` are:
 * every `{{port}}` under one of them wholly; a string that is exactly `{{port}}` elsewhere may bring
 * an object whose own `keys` are masked, so those keys of it.
 */
function templatePorts(template: unknown, keys: ReadonlySet<string>, under: boolean, add: (port: string, mask: PortMask) => void, depth = 0): void {
  checkWalkDepth(depth);
  if (typeof template === 'string') {
    if (under) for (const port of templateRefs(template)) add(port, WHOLE);
    else {
      const whole = wholeTemplateRef(template);
      if (whole !== undefined && keys.size > 0) add(whole, { whole: false, keys });
    }
  } else if (Array.isArray(template)) {
    for (const item of template) templatePorts(item, keys, under, add, depth + 1);
  } else if (template !== null && typeof template === 'object') {
    for (const [key, item] of Object.entries(template)) templatePorts(item, keys, under || keys.has(key), add, depth + 1);
  }
}

/** A tool node's sensitive argument names, resolved as the tool host resolves them (the workflow's effects, else Steward's shipped ones). */
export function sensitiveArgumentsOf(node: NodeOf<'tool'>, graph: Pick<WorkflowGraph, 'servers' | 'tool_effects'>): string[] {
  const server = graph.servers.find((s) => s.id === node.server);
  const packageName = server && 'package' in server ? server.package : undefined;
  return resolveToolEffect({ serverId: node.server, ...(packageName !== undefined ? { packageName } : {}), tool: node.tool, overrides: graph.tool_effects }).effect.sensitive_arguments;
}

/** Keys can only be masked in a value that can hold keys: a port declared text, number or boolean never does. */
function holdsKeys(node: WorkflowNode, port: string): boolean {
  const declared = 'inputs' in node ? node.inputs.find((p) => p.name === port)?.type : undefined;
  return declared !== 'text' && declared !== 'number' && declared !== 'boolean';
}

/** A streaming node's `{{item}}` is an element of its `stream.over` list: the list carries it. */
function toolPort(node: NodeOf<'tool'>, port: string): string {
  return node.stream && port === 'item' ? node.stream.over : port;
}

/** The inputs an output of a node comes from unchanged or embedded, and what of them is sensitive for it. */
function upstream(node: WorkflowNode, port: string, mask: PortMask): Array<[string, PortMask]> {
  switch (node.kind) {
    case 'template': {
      const found: Array<[string, PortMask]> = [];
      if (mask.whole) return templateRefs(node.template).map((p) => [p, WHOLE]);
      // A text template's output is a string: no key of it can be masked.
      if (node.format === 'json') templatePorts(node.template, mask.keys, false, (p, m) => (m.whole || holdsKeys(node, p)) && found.push([p, m]));
      return found;
    }
    case 'assert':
      return [['value', mask]];
    case 'iterate':
      return [['list', mask]];
    case 'collect':
      return [['item', mask]];
    default:
      // Input nodes are where a run's value enters; agents, patterns and tools make theirs.
      return [];
  }
}

/** The output a node passes an input on to unchanged, if it is one that does. */
function passedOn(node: WorkflowNode, port: string): string | undefined {
  if (node.kind === 'assert' && port === 'value') return 'value';
  if (node.kind === 'iterate' && port === 'list') return 'item';
  if (node.kind === 'collect' && port === 'item') return 'list';
  return undefined;
}

export function sensitiveFlow(graph: Pick<WorkflowGraph, 'nodes' | 'edges' | 'servers' | 'tool_effects'>): SensitiveFlow {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const inputs: Masks = new Map();
  const outputs: Masks = new Map();

  // Backward: from every sensitive argument to where its value enters.
  const back: Array<[string, string, PortMask]> = [];
  const need = (node: string, port: string, mask: PortMask) => {
    if (merge(inputs, node, port, mask)) back.push([node, port, mask]);
  };
  for (const node of graph.nodes) {
    if (node.kind !== 'tool') continue;
    const names = new Set(sensitiveArgumentsOf(node, graph));
    if (names.size === 0) continue;
    templatePorts(node.arguments, names, false, (port, mask) => {
      const carried = toolPort(node, port);
      if (mask.whole || holdsKeys(node, carried)) need(node.id, carried, mask);
    });
  }
  for (let item = back.pop(); item !== undefined; item = back.pop()) {
    const [to, port, mask] = item;
    for (const edge of graph.edges) {
      if (edge.to.node !== to || edge.to.port !== port) continue;
      const from = nodes.get(edge.from.node);
      if (!from || !merge(outputs, from.id, edge.from.port, mask)) continue;
      for (const [input, m] of upstream(from, edge.from.port, mask)) need(from.id, input, m);
    }
  }

  // Forward: every port a sensitive output's value reaches; nodes below it may embed it in what they make.
  const reached = new Set<string>();
  const ahead: Array<[string, string, PortMask]> = [];
  for (const [node, ports] of outputs) for (const [port, mask] of ports) ahead.push([node, port, mask]);
  for (let item = ahead.pop(); item !== undefined; item = ahead.pop()) {
    const [from, port, mask] = item;
    for (const edge of graph.edges) {
      if (edge.from.node !== from || edge.from.port !== port) continue;
      const to = nodes.get(edge.to.node);
      if (!to) continue;
      merge(inputs, to.id, edge.to.port, mask);
      const out = passedOn(to, edge.to.port);
      if (out !== undefined && merge(outputs, to.id, out, mask)) ahead.push([to.id, out, mask]);
      reach(to.id);
    }
  }
  function reach(start: string): void {
    const stack = [start];
    for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
      if (reached.has(id)) continue;
      reached.add(id);
      for (const edge of graph.edges) if (edge.from.node === id) stack.push(edge.to.node);
    }
  }

  const fields = new Map<string, PortMask>();
  for (const node of graph.nodes) {
    if (node.kind !== 'input') continue;
    for (const [field, mask] of outputs.get(node.id) ?? []) {
      const held = fields.get(field);
      fields.set(field, held ? { whole: held.whole || mask.whole, keys: new Set([...held.keys, ...mask.keys]) } : mask);
    }
  }
  return { fields, outputs, inputs, reached };
}

/** Whether a run of this graph has any value to mask by its flow. */
export function flowsAnySensitive(flow: SensitiveFlow): boolean {
  return flow.inputs.size > 0 || flow.outputs.size > 0;
}
