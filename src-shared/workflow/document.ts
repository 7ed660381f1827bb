import { z } from 'zod';
import { AgentSpec, McpServerSpec, ToolEffectOverrides } from '../contracts/spec';
import { ModelScript } from '../contracts/script';
import { ModelRef } from '../contracts/model';
import { SupervisorSettings } from '../supervisor/contracts';
import { ExhaustionPolicy, JudgmentSettings, PatternMember, PatternSettings, PatternType } from '../pattern/contracts';

/**
 * The workflow document (`steward/v1`, `kind: "workflow"`): typed nodes and the edges between
 * their ports. A node's ports follow from its kind and its config (see ports.ts), so a document
 * cannot declare a port its kind does not have. An agent spec file is a one-node workflow
 * (`agentAsWorkflow`). Graph validation (validate-graph.ts) names the node and port of every
 * problem; the scheduler (scheduler.ts) runs it.
 */

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _');
/** A port or field name: usable in templates as `{{name}}`. */
export const PortName = z.string().regex(/^[a-z_][a-z0-9_]{0,63}$/, 'use lowercase letters, digits and _ (not first)');
export type PortName = z.infer<typeof PortName>;

/** What flows along an edge. `any` connects to everything; `list` is a JSON array. */
export const PORT_TYPES = ['any', 'text', 'number', 'boolean', 'object', 'list'] as const;
export const PortType = z.enum(PORT_TYPES);
export type PortType = z.infer<typeof PortType>;

/** A declared input of a node (or a field of the workflow's input form). */
export const PortDecl = z
  .object({
    name: PortName,
    type: PortType.default('any'),
    /** A required input must be connected (or, on an input node, given at run time). */
    required: z.boolean().default(true),
    description: z.string().max(500).optional(),
  })
  .strict();
export type PortDecl = z.infer<typeof PortDecl>;

export const InputField = PortDecl.extend({
  /** Used when the run gives no value (then the field is not required in practice). */
  default: z.unknown().optional(),
}).strict();
export type InputField = z.infer<typeof InputField>;

/** Where a node sits in the editor; the runtime ignores it. */
const Position = z.object({ x: z.number(), y: z.number() }).strict();

const nodeBase = {
  id: slug,
  label: z.string().max(120).optional(),
  position: Position.optional(),
};

/** Typed run inputs: a form in the app, `--input key=value` / `--inputs FILE.json` in the CLI. */
export const InputNode = z
  .object({ ...nodeBase, kind: z.literal('input'), fields: z.array(InputField).min(1) })
  .strict();

const agent = AgentSpec.shape;
/**
 * Today's agent node: its own decision boundary, lifecycle phase, review rules and SCS. `task` and
 * `instructions` may use the node's inputs as `{{name}}`. It uses the workflow's servers it names
 * (all of them when absent). Output port `output` (text): what its `complete` delivered.
 */
export const AgentNode = z
  .object({
    ...nodeBase,
    kind: z.literal('agent'),
    name: z.string().min(1).max(120).optional(),
    instructions: agent.instructions,
    task: agent.task,
    inputs: z.array(PortDecl).default([]),
    servers: z.array(slug).optional(),
    models: agent.models,
    supervision: agent.supervision,
    limits: agent.limits,
    scs: agent.scs,
    /**
     * Named output ports a `reroute` may take (contracts/routes.ts): only the taken one sends (the
     * agent's reason); `output` and the other routes send nothing, so what needs them is skipped.
     */
    routes: agent.routes,
    /** Speech for this node's delivered responses (contracts/synthesis.ts); absent: off. */
    synthesis: agent.synthesis,
    /**
     * Stored workflows offered to the agent as tools (`workflow_<id>`; workflow-as-tool.ts): the
     * tool's input schema is the workflow's inputs, its effect class its most protected node's.
     */
    workflow_tools: z.array(slug).max(16).optional(),
    /** Replay responses for this node's models (the script provider). */
    script: ModelScript.optional(),
    /**
     * A JSON Schema the answer must meet: `output` stays the answer's text, which must hold JSON
     * (fenced or not) that the schema accepts. An answer that does not fails the node
     * (`output_invalid`) and is the malformed candidate a supervisor may repair (`substitute`).
     */
    output_schema: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * One MCP tool call with templated arguments (`{{name}}` in any string; a string that is exactly
 * `{{name}}` takes the input's value with its type). It crosses the same boundary rules as an
 * agent's call: effect registry, validation against the round's frozen snapshot, authorization; a
 * protected tool never runs without a teacher's review or a person's confirmation.
 * Outputs: `result` (any: the tool's JSON result — a list too — or `{content}`) and `text` (text).
 *
 * With `stream` the node is a streaming producer (seed 004): it calls its tool once per element of
 * the list input `stream.over`, in order (`{{item}}` in the arguments is the element), and sends
 * each result downstream as it arrives: an iterate fed by `result` or `text` takes the results one
 * by one before the node is done. When it ends, `result` is the list of every result and `text`
 * their texts, one per line. A stream that fails part-way can only end (keeping what it sent) or
 * fail: it cannot be retried or skipped, since its first results are already downstream.
 */
export const ToolNode = z
  .object({
    ...nodeBase,
    kind: z.literal('tool'),
    server: slug,
    tool: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
    inputs: z.array(PortDecl).default([]),
    /** Stream: one call per element of this list input, each result sent on as it arrives. */
    stream: z.object({ over: PortName }).strict().optional(),
    /**
     * A teacher that reviews the call (the node's call is a proposal the boundary routes): without
     * one, a protected tool runs only when a person confirms it (the app's dialog, the CLI's --yes).
     */
    review: z.object({ teacher: ModelRef, script: ModelScript.optional() }).strict().optional(),
  })
  .strict();

/**
 * A pattern member: an agent definition (issue 12). Its proposals cross its own decision boundary,
 * with its own models, review rules, limits and replay script, like any agent node's.
 */
export const PatternMemberAgent = PatternMember.extend({
  models: agent.models,
  supervision: agent.supervision,
  limits: agent.limits,
  /** Stored workflows offered to the member as tools (`workflow_<id>`), as an agent node's `workflow_tools`. */
  workflow_tools: z.array(slug).max(16).optional(),
  script: ModelScript.optional(),
}).strict();
export type PatternMemberAgent = z.infer<typeof PatternMemberAgent>;

/**
 * A pattern node (issue 12, seed 002): a SUPERVISOR, DEBATE or PIPELINE of member agents whose
 * output is judged before it leaves (docs/patterns.md). `task` may use the node's inputs as
 * `{{name}}`. A judge caller's `profile` is a key of `judge_models` (its model); a replay judge
 * answers from `judge_script`. Outputs: `output` (text), `approved` (boolean: a judgment
 * approved it), `iterations` (number).
 */
export const PatternNode = z
  .object({
    ...nodeBase,
    kind: z.literal('pattern'),
    type: PatternType,
    name: z.string().min(1).max(120).optional(),
    task: agent.task,
    inputs: z.array(PortDecl).default([]),
    servers: z.array(slug).optional(),
    members: z.array(PatternMemberAgent).min(1).max(12),
    max_iterations: z.number().int().min(1).max(20).default(3),
    on_exhaustion: ExhaustionPolicy.default('fail'),
    judgment: JudgmentSettings,
    judge_models: z.record(z.string().min(1).max(120), ModelRef).default({}),
    /** Replay answers for the judges whose model is the script, in the order they are asked (`teacher`). */
    judge_script: ModelScript.optional(),
  })
  .strict()
  // The pattern's own rules (unique members, citations of members that exist, …), by the same paths.
  .superRefine((node, ctx) => {
    const checked = PatternSettings.safeParse(patternSettingsOf(node));
    if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });
export type PatternNode = z.infer<typeof PatternNode>;

/** The pattern's settings as the shared loop machine takes them (members by id, role and instructions). */
export function patternSettingsOf(node: Pick<PatternNode, 'type' | 'members' | 'max_iterations' | 'on_exhaustion' | 'judgment'>): PatternSettings {
  return {
    type: node.type,
    members: node.members.map((m) => ({ id: m.id, role: m.role, instructions: m.instructions })),
    max_iterations: node.max_iterations,
    on_exhaustion: node.on_exhaustion,
    judgment: node.judgment,
  };
}

/** A deterministic template over its inputs: text, or JSON whose strings are templated. Output `output`. */
export const TemplateNode = z
  .object({
    ...nodeBase,
    kind: z.literal('template'),
    format: z.enum(['text', 'json']).default('text'),
    template: z.unknown(),
    inputs: z.array(PortDecl).default([]),
  })
  .strict();

/** One deterministic check on the `value` input; a failed check fails the node with its reason. */
export const AssertCheck = z.discriminatedUnion('check', [
  z.object({ check: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ check: z.literal('contains'), text: z.string().min(1) }).strict(),
  z.object({ check: z.literal('regex'), pattern: z.string().min(1).max(500), flags: z.string().regex(/^[imsu]*$/).optional() }).strict(),
  z.object({ check: z.literal('range'), min: z.number().optional(), max: z.number().optional() }).strict(),
  z.object({ check: z.literal('non_empty') }).strict(),
]);
export type AssertCheck = z.infer<typeof AssertCheck>;

/** Input `value` (any), output `value`: passes it on unchanged when every check holds. */
export const AssertNode = z
  .object({ ...nodeBase, kind: z.literal('assert'), checks: z.array(AssertCheck).min(1) })
  .strict();

/**
 * Fan-out: input `list` (list), output `item` (any) once per element, each invocation downstream
 * carrying the item's lineage; at most `concurrency` items in flight below it.
 */
export const IterateNode = z
  .object({ ...nodeBase, kind: z.literal('iterate'), concurrency: z.number().int().min(1).max(64).default(4) })
  .strict();

/**
 * Gathers the `item` input of every lineage its iterate opened into output `list`, in item order;
 * closes when every item is done, failed or skipped (failed/skipped items are left out and counted).
 */
export const CollectNode = z.object({ ...nodeBase, kind: z.literal('collect') }).strict();

/**
 * Runs a stored workflow (issue 29, seed 004 "workflows as agents"): its input ports are the stored
 * workflow's run inputs, its output ports its outputs (copied from it when it is picked, checked
 * against it by validation: subworkflow.ts). The child runs as its own, linked run with its own
 * supervision inside; its interventions are listed under this node in the parent's report.
 * `version`: the stored workflow as saved then (its updated_at); a later save refuses the run.
 */
export const SubworkflowNode = z
  .object({
    ...nodeBase,
    kind: z.literal('workflow'),
    workflow: slug,
    version: z.string().min(1).max(64).optional(),
    inputs: z.array(PortDecl).default([]),
    outputs: z.array(PortDecl).default([]),
  })
  .strict();

/** What the run returns: one field per declared input. */
export const OutputNode = z
  .object({ ...nodeBase, kind: z.literal('output'), fields: z.array(PortDecl).min(1) })
  .strict();

export const WorkflowNode = z.discriminatedUnion('kind', [InputNode, AgentNode, PatternNode, ToolNode, TemplateNode, AssertNode, IterateNode, CollectNode, SubworkflowNode, OutputNode]);
export type WorkflowNode = z.infer<typeof WorkflowNode>;
export type WorkflowNodeInput = z.input<typeof WorkflowNode>;
export type NodeKind = WorkflowNode['kind'];
export type NodeOf<K extends NodeKind> = Extract<WorkflowNode, { kind: K }>;
export const NODE_KINDS = ['input', 'agent', 'pattern', 'tool', 'template', 'assert', 'iterate', 'collect', 'workflow', 'output'] as const satisfies readonly NodeKind[];

export const PortRef = z.object({ node: slug, port: PortName }).strict();
export type PortRef = z.infer<typeof PortRef>;

export const Edge = z.object({ from: PortRef, to: PortRef }).strict();
export type Edge = z.infer<typeof Edge>;

/** The fields every workflow document has, whatever names its servers (see hosted-graph.ts). */
export const GRAPH_FIELDS = {
  format: z.literal('steward/v1'),
  kind: z.literal('workflow'),
  id: slug,
  name: z.string().min(1).max(120),
  description: z.string().default(''),
  nodes: z.array(WorkflowNode).min(1),
  edges: z.array(Edge).default([]),
  /**
   * The workflow supervisor (issue 11, seed 004): who decides what happens to a node that still
   * fails after its own retries, and its bounds. Absent or `enabled: false` = unsupervised.
   */
  supervisor: SupervisorSettings.optional(),
};

/** Within a document, every graph step has its own id, and every server too. */
export function refineUniqueIds(w: { nodes: readonly { id: string }[]; servers: readonly { id: string }[] }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  w.nodes.forEach((n, i) => {
    if (seen.has(n.id)) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'id'], message: `duplicate node id ${n.id}` });
    seen.add(n.id);
  });
  const servers = new Set<string>();
  w.servers.forEach((s, i) => {
    if (servers.has(s.id)) ctx.addIssue({ code: 'custom', path: ['servers', i, 'id'], message: `duplicate server id ${s.id}` });
    servers.add(s.id);
  });
}

export const WorkflowGraph = z
  .object({
    ...GRAPH_FIELDS,
    /** Folder the workflow works in, relative to the file; `${workspace}` in server args. */
    workspace: z.string().min(1).optional(),
    /** The MCP servers its agent and tool nodes use (in the app: registered servers by id). */
    servers: z.array(McpServerSpec).default([]),
    tool_effects: ToolEffectOverrides.default({}),
  })
  .strict()
  .superRefine(refineUniqueIds);
export type WorkflowGraph = z.infer<typeof WorkflowGraph>;
export type WorkflowGraphInput = z.input<typeof WorkflowGraph>;

/**
 * An agent spec file is a one-node workflow: an agent node `agent` with the spec's task, no
 * inputs, its output the run's `output`.
 */
export function agentAsWorkflow(spec: AgentSpec): WorkflowGraph {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: spec.id,
    name: spec.name,
    description: spec.description,
    ...(spec.workspace !== undefined ? { workspace: spec.workspace } : {}),
    servers: spec.servers,
    tool_effects: spec.tool_effects,
    nodes: [
      {
        id: 'agent',
        kind: 'agent',
        name: spec.name,
        instructions: spec.instructions,
        task: spec.task,
        inputs: [],
        models: spec.models,
        supervision: spec.supervision,
        limits: spec.limits,
        scs: spec.scs,
        ...(spec.routes !== undefined ? { routes: spec.routes } : {}),
        ...(spec.synthesis !== undefined ? { synthesis: spec.synthesis } : {}),
        ...(spec.script !== undefined ? { script: spec.script } : {}),
      },
      { id: 'output', kind: 'output', fields: [{ name: 'output', type: 'text', required: true }] },
    ],
    edges: [{ from: { node: 'agent', port: 'output' }, to: { node: 'output', port: 'output' } }],
  };
}
