import { ToolExecution } from '@shared/contracts/round';
import { EFFECT_LABELS } from '@shared/contracts/tool-effect';
import type { JsonSchemaObject, OfferedTool, ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { PortType } from '@shared/workflow/document';
import { workflowInterface, workflowToolName, type WorkflowInterface } from '@shared/workflow/subworkflow';
import { workflowEffect } from '@shared/workflow/workflow-effect';
import type { ExecuteRequest, ToolHost } from '../mcp/tool-host';
import { hashJson } from '../util/hash';
import { errorText } from './node-outcome';
import { runChildWorkflow, type ChildRequest, type SubworkflowDeps } from './workflow-node';

/**
 * An agent offered a stored workflow as a tool (issue 29, seed 004 "workflows as agents"): the tool
 * `workflow_<id>` takes the workflow's run inputs as its arguments (its input schema) and returns its
 * outputs as JSON. Its effect class is the workflow's most protected node's (workflow-effect.ts), so
 * the decision boundary reviews and authorizes a call as it does any tool of that class. A call runs
 * the workflow as a child run, as a workflow node does (workflow-node.ts), its interventions listed
 * under the agent's node in the parent's report.
 */

/** The server name workflow tools are offered under (the trace's `server` of their calls). */
export const WORKFLOW_TOOL_SERVER = 'workflow';

const JSON_TYPES = { any: {}, text: { type: 'string' }, number: { type: 'number' }, boolean: { type: 'boolean' }, object: { type: 'object' }, list: { type: 'array' } } satisfies Record<PortType, JsonSchemaObject>;

/** The tool's arguments: the workflow's run inputs (required unless they have a default). */
export function workflowInputSchema(child: WorkflowInterface): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {};
  for (const input of child.inputs) properties[input.name] = { ...JSON_TYPES[input.type], ...(input.description !== undefined ? { description: input.description } : {}) };
  return { type: 'object', properties, required: child.inputs.filter((i) => i.required).map((i) => i.name), additionalProperties: false };
}

/** The offered tool for one stored workflow, or why it cannot be offered (in words). */
export function offerWorkflowTool(id: string, deps: Pick<SubworkflowDeps, 'library'>): OfferedTool {
  const library = deps.library;
  if (!library) throw new Error(`this run has no stored workflows, so the workflow "${id}" cannot be offered as a tool (run it from the app or with a data folder)`);
  const child = library.load(id);
  const face = workflowInterface(child.loaded.graph, child.version);
  const childOf = (other: string) => {
    try {
      return library.load(other).loaded.graph;
    } catch {
      return undefined;
    }
  };
  const { effect, because } = workflowEffect(child.loaded.graph, childOf);
  const input_schema = workflowInputSchema(face);
  const outputs = face.outputs.map((o) => o.name).join(', ') || 'nothing';
  return {
    name: workflowToolName(id),
    server: WORKFLOW_TOOL_SERVER,
    description: `Runs the stored workflow "${child.name}" and returns its outputs (${outputs}) as JSON. ${EFFECT_LABELS[effect.effect]}: ${because}.`.slice(0, 2000),
    input_schema,
    schema_hash: hashJson(input_schema),
    effect,
    // Derived from the registry's classification of the workflow's tools; nobody described an unknown one.
    effect_source: effect.effect === 'unknown' ? 'missing' : 'shipped',
  };
}

/**
 * The agent's tool host with its workflow tools added: each round's snapshot offers them after the
 * servers' tools (a name a server already uses is refused), and an authorized call of one runs the
 * workflow; every other call goes to the servers.
 */
export class WorkflowToolHost implements ToolHost {
  private readonly names: Set<string>;

  constructor(
    private readonly inner: ToolHost,
    private readonly tools: readonly OfferedTool[],
    private readonly call: (tool: OfferedTool, request: ExecuteRequest) => Promise<ToolExecution>,
  ) {
    this.names = new Set(tools.map((t) => t.name));
  }

  async snapshot(round: number): Promise<ToolSnapshot> {
    const base = await this.inner.snapshot(round);
    const clash = base.tools.find((t) => this.names.has(t.name));
    if (clash) throw new Error(`server "${clash.server}" offers a tool "${clash.name}", the name of a workflow tool this agent is offered: rename one of them`);
    const tools = [...base.tools, ...this.tools];
    return { ...base, tools, hash: hashJson(tools.map((t) => ({ name: t.name, server: t.server, schema_hash: t.schema_hash }))) };
  }

  execute(request: ExecuteRequest): Promise<ToolExecution> {
    if (request.tool.server === WORKFLOW_TOOL_SERVER && this.names.has(request.tool.name)) return this.call(request.tool, request);
    return this.inner.execute(request);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Runs a workflow tool's call: the child gets the call's arguments as its inputs; completed, its
 * outputs are the result; otherwise the result is an error in words (a child that waits for a person
 * cannot wait inside a tool call: its run is ended saying so, and the agent is told to run it as a
 * workflow node instead).
 */
export function workflowToolCall(deps: SubworkflowDeps, invocationId: string, emit: ChildRequest['emit']) {
  return async (tool: OfferedTool, request: ExecuteRequest): Promise<ToolExecution> => {
    const started = performance.now();
    const id = tool.name.slice('workflow_'.length);
    const base = { server: tool.server, tool: tool.name, arguments: structuredClone(request.decision.arguments), idempotency_key: request.idempotency_key };
    const outcome = await runChildWorkflow(
      {
        workflow: id,
        inputs: request.decision.arguments,
        invocationId,
        tool: `${tool.name}@${request.idempotency_key.slice(0, 12)}`,
        signal: request.signal ?? new AbortController().signal,
        emit,
        cannotWait: 'a workflow called as a tool cannot wait: its run was ended; run it as a workflow node to answer it',
      },
      deps,
    ).catch((err: unknown) => ({ kind: 'failed' as const, code: 'workflow_failed', message: errorText(err) }));
    const duration_ms = Math.max(0, performance.now() - started);
    if (outcome.kind === 'done') return ToolExecution.parse({ ...base, ok: true, is_error: false, content: JSON.stringify(outcome.outputs), duration_ms });
    if (outcome.kind === 'waiting') return ToolExecution.parse({ ...base, ok: true, is_error: true, content: `the workflow "${id}" waits for a person, and a tool call cannot wait`, duration_ms });
    return ToolExecution.parse({ ...base, ok: true, is_error: true, content: outcome.message, duration_ms });
  };
}

/**
 * An agent node's workflow tools, ready to wrap its tool host: offered once for the invocation (each
 * read from the store as it is now), or why one cannot be offered, in words.
 */
export function workflowToolsFor(ids: readonly string[], deps: SubworkflowDeps, invocationId: string, emit: ChildRequest['emit']): { ok: true; wrap: (host: ToolHost) => ToolHost } | { ok: false; message: string } {
  const offered: OfferedTool[] = [];
  for (const id of ids) {
    if (deps.chain.includes(id)) return { ok: false, message: `the workflow "${id}" is offered as a tool inside itself (${[...deps.chain, id].join(' → ')}): a workflow cannot contain itself` };
    try {
      offered.push(offerWorkflowTool(id, deps));
    } catch (err) {
      return { ok: false, message: `the workflow tool "${workflowToolName(id)}" cannot be offered: ${errorText(err)}` };
    }
  }
  const call = workflowToolCall(deps, invocationId, emit);
  return { ok: true, wrap: (host) => new WorkflowToolHost(host, offered, call) };
}
