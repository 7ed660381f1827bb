import { checkProblem } from './assert-checks';
import type { NodeOf, PortDecl, WorkflowGraph, WorkflowNode } from './document';
import { edgesInto, indexGraph, sentScope, type GraphIndex } from './graph-index';
import { MAX_LINEAGE_DEPTH } from './invocation';
import { typesConnect } from './ports';
import { templateRefs } from './template';
import { subworkflowProblems, type WorkflowInterface } from './subworkflow';

/**
 * Graph validation: every problem a run would hit because of the graph's shape, named by node and
 * port (or edge, by its position in the document) so the CLI prints it and the editor shows it on
 * the node. The workflow's Zod schema is checked first; this takes a parsed graph.
 */
export interface GraphProblem {
  node?: string;
  port?: string;
  /** Position of the edge in `edges` (0-based; messages count from 1). */
  edge?: number;
  code: string;
  message: string;
}

export interface GraphContext {
  /** Tool names by server id, for servers whose tools are known (registered or inspected). */
  tools?: Record<string, string[]>;
  /** The stored workflows this host has, by id: a workflow node's or workflow tool's is checked against it (subworkflow.ts). */
  workflows?: ReadonlyMap<string, WorkflowInterface>;
}


export function validateGraph(graph: WorkflowGraph, context: GraphContext = {}): GraphProblem[] {
  const index = indexGraph(graph);
  const servers = new Set([...graph.servers.map((s) => s.id), ...Object.keys(context.tools ?? {})]);
  const problems: GraphProblem[] = [];
  for (const key of Object.keys(graph.tool_effects)) {
    const server = key.split('/')[0] ?? '';
    if (!servers.has(server)) problems.push({ code: 'unknown_server', message: `tool_effects names a server ${quoted(server)} the workflow does not have` });
  }
  problems.push(...edgeProblems(index));
  for (const node of graph.nodes) problems.push(...nodeProblems(index, node, servers, context));
  if (index.cycle) {
    const [first] = index.cycle;
    problems.push({ node: first, code: 'cycle', message: `a cycle: ${[...index.cycle, first].join(' → ')}` });
  }
  problems.push(...scopeProblems(index));
  problems.push(...outputProblems(index));
  if (context.workflows) problems.push(...subworkflowProblems(graph, context.workflows));
  return problems;
}

/** `node <id> port <port>: message` (or `edge <n>:`, or `workflow:` for the whole document). */
export function formatGraphProblem(problem: GraphProblem): string {
  const where = [
    ...(problem.node !== undefined ? [`node ${problem.node}`] : []),
    ...(problem.port !== undefined ? [`port ${problem.port}`] : []),
  ];
  if (where.length === 0 && problem.edge !== undefined) where.push(`edge ${problem.edge + 1}`);
  return `${where.length > 0 ? where.join(' ') : 'workflow'}: ${problem.message}`;
}

function edgeProblems(index: GraphIndex): GraphProblem[] {
  const problems: GraphProblem[] = [];
  index.graph.edges.forEach((e, i) => {
    const n = i + 1;
    const from = index.nodes.get(e.from.node);
    const to = index.nodes.get(e.to.node);
    if (!from) problems.push({ edge: i, node: e.from.node, code: 'unknown_node', message: `edge ${n} leaves from a node ${quoted(e.from.node)} that does not exist` });
    if (!to) problems.push({ edge: i, node: e.to.node, code: 'unknown_node', message: `edge ${n} goes to a node ${quoted(e.to.node)} that does not exist` });
    const out = from && index.ports.get(from.id)?.outputs.find((p) => p.name === e.from.port);
    const into = to && index.ports.get(to.id)?.inputs.find((p) => p.name === e.to.port);
    if (from && !out) problems.push({ edge: i, node: from.id, port: e.from.port, code: 'unknown_port', message: `edge ${n} leaves from an output ${quoted(e.from.port)} this ${from.kind} node does not have` });
    if (to && !into) problems.push({ edge: i, node: to.id, port: e.to.port, code: 'unknown_port', message: `edge ${n} goes to an input ${quoted(e.to.port)} this ${to.kind} node does not have` });
    if (out && into && !typesConnect(out.type, into.type)) {
      problems.push({ edge: i, node: e.to.node, port: e.to.port, code: 'type_mismatch', message: `a ${out.type} value from ${e.from.node}.${e.from.port} cannot flow into this ${into.type} input` });
    }
  });
  return problems;
}

function nodeProblems(index: GraphIndex, node: WorkflowNode, servers: Set<string>, context: GraphContext): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const inputs = index.ports.get(node.id)?.inputs ?? [];
  const declared = new Set<string>();
  for (const port of inputs) {
    if (declared.has(port.name)) problems.push({ node: node.id, port: port.name, code: 'duplicate_port', message: `declares ${quoted(port.name)} twice` });
    declared.add(port.name);
    const edges = edgesInto(index, node.id, port.name);
    if (edges.length > 1) {
      problems.push({ node: node.id, port: port.name, code: 'connected_twice', message: `the input ${quoted(port.name)} is connected ${edges.length} times (edges ${edges.map((e) => e.index + 1).join(', ')}); a port takes one edge` });
    }
    if (edges.length === 0 && port.required) {
      problems.push({ node: node.id, port: port.name, code: 'not_connected', message: `the required input ${quoted(port.name)} is not connected` });
    }
  }
  const serverProblem = (server: string): GraphProblem => ({ node: node.id, code: 'unknown_server', message: `uses a server ${quoted(server)} the workflow does not have` });
  if (node.kind === 'agent' || node.kind === 'pattern') problems.push(...(node.servers ?? []).filter((s) => !servers.has(s)).map(serverProblem));
  if (node.kind === 'pattern') problems.push(...judgeProblems(node));
  if (node.kind === 'tool') {
    const known = context.tools?.[node.server];
    if (!servers.has(node.server)) problems.push(serverProblem(node.server));
    else if (known && !known.includes(node.tool)) problems.push({ node: node.id, code: 'unknown_tool', message: `server ${quoted(node.server)} offers no tool ${quoted(node.tool)} to this workflow` });
    problems.push(...streamProblems(node, inputs));
  }
  // A stream's arguments name the element as {{item}}.
  const item = node.kind === 'tool' && node.stream !== undefined ? 'item' : undefined;
  for (const name of templateRefs(templatedParts(node))) {
    if (!declared.has(name) && name !== item) problems.push({ node: node.id, port: name, code: 'undeclared_input', message: `uses {{${name}}} but declares no input ${quoted(name)}` });
  }
  if (node.kind === 'agent' && node.output_schema !== undefined) {
    const problem = checkProblem({ check: 'json_schema', schema: node.output_schema });
    if (problem !== undefined) problems.push({ node: node.id, code: 'invalid_output_schema', message: `its output schema: ${problem}` });
  }
  if (node.kind === 'assert') {
    node.checks.forEach((check, i) => {
      const problem = checkProblem(check);
      if (problem !== undefined) problems.push({ node: node.id, code: 'invalid_check', message: `check ${i + 1} (${check.check}): ${problem}` });
    });
  }
  if (node.kind === 'collect' && index.scope.has(node.id) && !index.closes.has(node.id)) {
    problems.push({ node: node.id, code: 'collect_without_iterate', message: 'collects items, but no iterate is upstream of it' });
  }
  return problems;
}

/** A stream goes over one required list input, and `item` (the element) is not also an input. */
function streamProblems(node: NodeOf<'tool'>, inputs: readonly PortDecl[]): GraphProblem[] {
  if (!node.stream) return [];
  const over = inputs.find((p) => p.name === node.stream?.over);
  const problems: GraphProblem[] = [];
  if (!over) problems.push({ node: node.id, port: node.stream.over, code: 'undeclared_input', message: `streams over ${quoted(node.stream.over)} but declares no input by that name` });
  else if (over.type !== 'list' && over.type !== 'any') problems.push({ node: node.id, port: over.name, code: 'type_mismatch', message: `streams over ${quoted(over.name)}, a ${over.type} input: it must be a list` });
  else if (!over.required) problems.push({ node: node.id, port: over.name, code: 'stream_input_optional', message: `streams over ${quoted(over.name)}, which is optional: a stream needs its list` });
  if (inputs.some((p) => p.name === 'item')) problems.push({ node: node.id, port: 'item', code: 'duplicate_port', message: 'a streaming node names its element {{item}}: rename its input "item"' });
  return problems;
}

/** The parts of a node that are templates over its inputs. */
function templatedParts(node: WorkflowNode): unknown {
  switch (node.kind) {
    case 'agent':
      return [node.instructions, node.task];
    case 'pattern':
      return [node.task, ...node.members.map((m) => m.instructions)];
    case 'tool':
      return node.arguments;
    case 'template':
      return node.template;
    default:
      return [];
  }
}

/** Every model judge of a pattern names its model: its profile is a key of `judge_models`; a JSON Schema judge's schema compiles. */
function judgeProblems(node: NodeOf<'pattern'>): GraphProblem[] {
  const profiles = node.judgment.callers.flatMap((c) => (c.kind === 'llm' ? [c.profile] : c.kind === 'human' && c.fallback.kind === 'llm' ? [c.fallback.profile] : []));
  const schemas = node.judgment.callers.flatMap((c, i) => {
    const problem = c.kind === 'json_schema' ? checkProblem({ check: 'json_schema', schema: c.schema }) : undefined;
    return problem !== undefined ? [{ node: node.id, code: 'invalid_judge_schema', message: `judge ${i + 1} (json_schema): ${problem}` }] : [];
  });
  return [
    ...[...new Set(profiles)]
      .filter((p) => !Object.hasOwn(node.judge_models, p))
      .map((p) => ({ node: node.id, code: 'unknown_judge_model', message: `a judge uses the profile ${quoted(p)}, which names no model in judge_models` })),
    ...schemas,
  ];
}

function scopeProblems(index: GraphIndex): GraphProblem[] {
  const problems: GraphProblem[] = index.scopeConflicts.map(({ node, scopes }) => ({
    node,
    code: 'unrelated_scopes',
    message: `${scopes.map((s) => (s.length > 0 ? `items of iterate ${s.join('/')}` : 'values outside any iterate')).join(' and ')} meet here; a node can only join an item with values of its own or an enclosing iterate`,
  }));
  for (const id of index.order) {
    const node = index.nodes.get(id);
    const depth = index.scope.get(id)?.length ?? 0;
    if (node?.kind === 'iterate' && depth >= MAX_LINEAGE_DEPTH) {
      problems.push({ node: id, code: 'too_deep', message: `iterates nest deeper than ${MAX_LINEAGE_DEPTH} levels here` });
    }
    if (node?.kind !== 'output') continue;
    for (const port of index.ports.get(id)?.inputs ?? []) {
      const item = edgesInto(index, id, port.name).map((e) => sentScope(index, e.from.node)).find((s) => s.length > 0);
      if (item) problems.push({ node: id, port: port.name, code: 'item_reaches_output', message: `gets one value per item of iterate ${item.join('/')}; put a collect before the output` });
    }
  }
  return problems;
}

/**
 * An output is reachable when values can arrive at it: an edge from a node that can run, where a
 * node can run when each required input has an edge from a node that can run (sources always can).
 */
function outputProblems(index: GraphIndex): GraphProblem[] {
  const outputs = index.graph.nodes.filter((n) => n.kind === 'output');
  if (outputs.length === 0) return [{ code: 'no_output', message: 'the workflow has no output node' }];
  const runs = new Set<string>();
  const fed = (id: string, port: string) =>
    edgesInto(index, id, port).some((e) => runs.has(e.from.node) && index.ports.get(e.from.node)?.outputs.some((p) => p.name === e.from.port));
  for (const id of index.order) {
    const inputs = index.ports.get(id)?.inputs ?? [];
    if (inputs.every((p) => !p.required || fed(id, p.name))) runs.add(id);
  }
  return outputs
    // A missing required field is its own problem (not_connected); unreachable means nothing arrives.
    .filter((n) => !(index.ports.get(n.id)?.inputs ?? []).some((p) => fed(n.id, p.name)))
    .map((n) => ({ node: n.id, code: 'unreachable_output', message: 'no path from an input or source node reaches this output' }));
}

/** Names from the document, quoted and cut short for a message. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
