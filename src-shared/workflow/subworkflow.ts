import type { NodeOf, PortDecl, WorkflowNode } from './document';

/** A problem as validate-graph.ts names it (kept structural here: validate-graph imports this file). */
interface GraphProblem {
  node?: string;
  port?: string;
  code: string;
  message: string;
}

/**
 * Workflows as agents (issue 29, seed 004): what a stored workflow looks like from outside — its run
 * inputs, its outputs, and the stored workflows it runs or offers itself — and the problems of a
 * node that runs one (or an agent offered one as a tool): a workflow that does not exist, a pinned
 * version saved over since, ports that no longer match, and a workflow that contains itself.
 */
export interface WorkflowInterface {
  id: string;
  name: string;
  /** The stored version (its updated_at), when known. */
  version?: string;
  /** Its input nodes' fields: a field with a default is not required from outside. */
  inputs: PortDecl[];
  /** Its output nodes' fields. */
  outputs: PortDecl[];
  /** Stored workflows it runs (workflow nodes) or offers its agents as tools, directly. */
  uses: string[];
}

/** How deep workflows may run workflows (a chain longer than this is refused at run time too). */
export const MAX_WORKFLOW_DEPTH = 8;

/** The tool name an agent calls a stored workflow by: `workflow_<id>` (a model's tool names allow no `/`). */
export const workflowToolName = (id: string): string => `workflow_${id}`;

export function workflowInterface(doc: { id: string; name: string; nodes: readonly WorkflowNode[] }, version?: string): WorkflowInterface {
  const inputs: PortDecl[] = [];
  const outputs: PortDecl[] = [];
  for (const node of doc.nodes) {
    if (node.kind === 'input') {
      for (const f of node.fields) inputs.push({ name: f.name, type: f.type, required: f.required && f.default === undefined, ...(f.description !== undefined ? { description: f.description } : {}) });
    }
    if (node.kind === 'output') for (const f of node.fields) outputs.push({ name: f.name, type: f.type, required: true, ...(f.description !== undefined ? { description: f.description } : {}) });
  }
  return { id: doc.id, name: doc.name, ...(version !== undefined ? { version } : {}), inputs, outputs, uses: workflowsUsed(doc.nodes) };
}

/** The stored workflows these nodes run or offer as tools, each once. */
export function workflowsUsed(nodes: readonly WorkflowNode[]): string[] {
  const used = new Set<string>();
  for (const node of nodes) {
    if (node.kind === 'workflow') used.add(node.workflow);
    if (node.kind === 'agent') for (const id of node.workflow_tools ?? []) used.add(id);
    if (node.kind === 'pattern') for (const member of node.members) for (const id of member.workflow_tools ?? []) used.add(id);
  }
  return [...used];
}

/** The ports a workflow node gets when the workflow is picked (the editor copies them; the CLI's author writes them). */
export function subworkflowPorts(child: WorkflowInterface): { inputs: PortDecl[]; outputs: PortDecl[] } {
  return { inputs: child.inputs.map((p) => ({ ...p })), outputs: child.outputs.map((p) => ({ ...p })) };
}

/**
 * A chain of stored workflows from `start` that comes back to `target` (or to a workflow already on
 * the chain): the chain, ids in order; undefined when there is none.
 */
export function workflowCycle(start: string, target: string, known: ReadonlyMap<string, WorkflowInterface>): string[] | undefined {
  const seen = new Set<string>();
  const walk = (id: string, path: string[]): string[] | undefined => {
    if (id === target || path.includes(id)) return [...path, id];
    if (seen.has(id)) return undefined;
    seen.add(id);
    for (const next of known.get(id)?.uses ?? []) {
      const found = walk(next, [...path, id]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, []);
}

/** A chain said in words: `"a" runs "b", which runs "a" again`. */
function chainWords(chain: readonly string[]): string {
  const [first, ...rest] = chain;
  return `${JSON.stringify(first)}${rest.map((id, i) => `${i === 0 ? ' runs' : ', which runs'} ${JSON.stringify(id)}`).join('')}`;
}

/**
 * The problems of the workflow nodes and workflow tools of a graph (`id`: the graph's own stored id),
 * against the stored workflows this host has (`known`).
 */
export function subworkflowProblems(graph: { id: string; nodes: readonly WorkflowNode[]; edges: ReadonlyArray<{ to: { node: string; port: string } }> }, known: ReadonlyMap<string, WorkflowInterface>): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const cycleOf = (node: string, child: string, how: string): GraphProblem | undefined => {
    if (child === graph.id) return { node, code: 'workflow_cycle', message: `${how} this workflow itself: a workflow cannot contain itself` };
    const chain = workflowCycle(child, graph.id, known);
    if (!chain) return undefined;
    const back = chain[chain.length - 1] === graph.id ? 'this workflow again' : `${JSON.stringify(chain[chain.length - 1])} again`;
    return { node, code: 'workflow_cycle', message: `${how} ${chainWords(chain.slice(0, -1))}, which runs ${back}: a workflow cannot contain itself, directly or through others` };
  };
  const offered = (node: string, ids: readonly string[], who: string) => {
    for (const id of ids) {
      if (!known.has(id)) problems.push({ node, code: 'unknown_workflow', message: `${who}is offered the workflow ${JSON.stringify(id)} as a tool, but no stored workflow has that id` });
      else {
        const cycle = cycleOf(node, id, `${who}is offered as a tool`);
        if (cycle) problems.push(cycle);
      }
    }
  };
  for (const node of graph.nodes) {
    if (node.kind === 'agent') offered(node.id, node.workflow_tools ?? [], '');
    // A pattern's members are agents: offered stored workflows the same way (issue 29).
    if (node.kind === 'pattern') for (const member of node.members) offered(node.id, member.workflow_tools ?? [], `its member ${JSON.stringify(member.id)} `);
    if (node.kind !== 'workflow') continue;
    const child = known.get(node.workflow);
    if (!child) {
      problems.push({ node: node.id, code: 'unknown_workflow', message: `runs the workflow ${JSON.stringify(node.workflow)}, but no stored workflow has that id: pick one of the stored workflows` });
      continue;
    }
    const cycle = cycleOf(node.id, node.workflow, 'runs');
    if (cycle) problems.push(cycle);
    if (node.version !== undefined && child.version !== undefined && node.version !== child.version) {
      problems.push({ node: node.id, code: 'workflow_changed', message: `runs ${JSON.stringify(child.name)} as saved ${node.version}, but it was saved again since (${child.version}): pick it again to run the new version` });
    }
    problems.push(...portProblems(node, child, graph.edges));
  }
  return problems;
}

/** The node's ports against the child's inputs and outputs, as it is stored now. */
function portProblems(node: NodeOf<'workflow'>, child: WorkflowInterface, edges: ReadonlyArray<{ to: { node: string; port: string } }>): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const name = JSON.stringify(child.name);
  const connected = (port: string) => edges.some((e) => e.to.node === node.id && e.to.port === port);
  for (const input of child.inputs) {
    const declared = node.inputs.find((p) => p.name === input.name);
    if (!declared) {
      if (input.required) problems.push({ node: node.id, port: input.name, code: 'missing_input', message: `${name} needs the input ${JSON.stringify(input.name)}, which this node does not have: pick the workflow again to copy its inputs, then connect it` });
    } else if (input.required && !declared.required && !connected(input.name)) {
      problems.push({ node: node.id, port: input.name, code: 'missing_input', message: `${name} needs the input ${JSON.stringify(input.name)}: connect it` });
    } else if (declared.type !== input.type && declared.type !== 'any') {
      problems.push({ node: node.id, port: input.name, code: 'type_mismatch', message: `${name} takes ${JSON.stringify(input.name)} as ${input.type}, not ${declared.type}: pick the workflow again` });
    }
  }
  for (const port of node.inputs) {
    if (!child.inputs.some((p) => p.name === port.name)) problems.push({ node: node.id, port: port.name, code: 'unknown_port', message: `${name} has no input ${JSON.stringify(port.name)}: pick the workflow again to copy its inputs` });
  }
  for (const port of node.outputs) {
    const out = child.outputs.find((p) => p.name === port.name);
    if (!out) problems.push({ node: node.id, port: port.name, code: 'unknown_port', message: `${name} has no output ${JSON.stringify(port.name)}: pick the workflow again to copy its outputs` });
    else if (out.type !== port.type && port.type !== 'any') problems.push({ node: node.id, port: port.name, code: 'type_mismatch', message: `${name} returns ${JSON.stringify(port.name)} as ${out.type}, not ${port.type}: pick the workflow again` });
  }
  return problems;
}
