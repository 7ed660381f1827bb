import { validateJsonSchema } from '../boundary/json-schema';
import { Decision } from '../contracts/decision';
import type { ModelScript } from '../contracts/script';
import type { WorkflowNode } from './document';
import { UnknownVariableError, substituteVars } from '../util/substitute';
import { issueWordsIn } from './schema-problems';
import type { GraphProblem } from './validate-graph';

/**
 * The checks of a workflow document beyond its graph, that a run would otherwise hit only at the
 * node: a tool node's arguments against its tool's input schema (when the server's tools are
 * known), a literal path that leaves the workspace, and a replay script's student replies against
 * the decision schema. `steward validate`, the host's workflows.validate and so the editor's
 * Problems list run these same checks.
 */
export interface KnownTool {
  name: string;
  input_schema: Record<string, unknown>;
}

export interface DocumentContext {
  /** Tools with their input schemas, by the workflow's server id (the name its nodes use). */
  tools?: Readonly<Record<string, readonly KnownTool[]>>;
  /** Workflow server ids whose server works in the workspace: their path arguments are relative to it. */
  workspaceServers?: ReadonlySet<string>;
  /** The workspace folder (absolute), when known: an absolute path inside it is allowed. */
  workspace?: string;
  /** The `${name}` variables agent and pattern nodes may use (a run's: specDir, workspace when set). */
  variables?: readonly string[];
}

export function documentProblems(nodes: readonly WorkflowNode[], context: DocumentContext = {}): GraphProblem[] {
  const problems: GraphProblem[] = [];
  for (const node of nodes) {
    if (context.variables) problems.push(...variableProblems(node, context.variables));
    if (node.kind === 'tool') problems.push(...toolArgumentProblems(node, context));
    if (node.kind === 'agent' && node.script) problems.push(...scriptProblems(node.id, node.script, 'script'));
    if (node.kind === 'pattern') for (const m of node.members) if (m.script) problems.push(...scriptProblems(node.id, m.script, `member ${m.id}'s script`));
  }
  return problems;
}

/** A `${name}` in an agent's or pattern's text that the run would refuse (the same substitution a run makes). */
function variableProblems(node: WorkflowNode, names: readonly string[]): GraphProblem[] {
  const texts = node.kind === 'agent' ? [node.instructions, node.task] : node.kind === 'pattern' ? node.task : undefined;
  if (texts === undefined) return [];
  try {
    substituteVars(texts, Object.fromEntries(names.map((n) => [n, ''])), `node ${node.id}`);
    return [];
  } catch (err) {
    if (!(err instanceof UnknownVariableError)) throw err;
    return [{ node: node.id, code: 'unknown_variable', message: err.message.replace(/ in node \S+/, '') }];
  }
}

type ToolNode = Extract<WorkflowNode, { kind: 'tool' }>;

function toolArgumentProblems(node: ToolNode, context: DocumentContext): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const templated = templatedPaths(node.arguments);
  const tool = context.tools?.[node.server]?.find((t) => t.name === node.tool);
  if (tool) {
    // A templated value is only known at run time: what the schema says of it is checked then.
    const issues = validateJsonSchema(tool.input_schema, `document-check:${JSON.stringify(tool.input_schema)}`, node.arguments, `the input schema of ${node.tool}`);
    // A schema that lists its properties and says nothing of others: an argument it does not list is a slip (a server would drop it).
    const listed = isObject(tool.input_schema.properties) ? tool.input_schema.properties : undefined;
    if (listed && tool.input_schema.additionalProperties === undefined) {
      for (const key of Object.keys(node.arguments)) if (!Object.hasOwn(listed, key)) issues.push({ message: `unexpected property "${key}"`, path: key });
    }
    for (const issue of issues) {
      if (issue.path !== undefined && templated.some((t) => issue.path === t || issue.path?.startsWith(`${t}.`))) continue;
      const known = Object.keys(isObject(tool.input_schema.properties) ? tool.input_schema.properties : {});
      const message = issue.message.startsWith('unexpected property')
        ? `${node.tool} takes no argument "${issue.path ?? ''}"${known.length > 0 ? ` (it takes ${known.map((k) => `"${k}"`).join(', ')})` : ''}`
        : issue.message.startsWith('must have required property')
          ? `${node.tool} needs the argument "${issue.path ?? ''}"`
          : `argument ${issue.path !== undefined ? `"${issue.path}"` : ''} ${issue.message}`.replace(/\s+/g, ' ');
      problems.push({ node: node.id, code: 'invalid_arguments', message });
    }
  }
  if (context.workspaceServers?.has(node.server)) {
    for (const [path, value] of literalPaths(node.arguments)) {
      if (leavesWorkspace(value, context.workspace)) problems.push({ node: node.id, code: 'path_outside_workspace', message: `argument "${path}" is ${JSON.stringify(value.slice(0, 120))}, outside the workspace: use a path inside it (relative to the workspace folder)` });
    }
  }
  return problems;
}

/** The dotted paths (as the schema's issues name them) of the argument strings that hold a template. */
function templatedPaths(value: unknown, at = ''): string[] {
  if (typeof value === 'string') return value.includes('{{') ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => templatedPaths(v, at === '' ? String(i) : `${at}.${i}`));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => templatedPaths(v, at === '' ? k : `${at}.${k}`));
  return [];
}

/** Arguments a filesystem tool reads as paths, by the names MCP's filesystem server gives them. */
const PATH_KEYS = new Set(['path', 'paths', 'source', 'destination']);

function literalPaths(args: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(args)) {
    if (!PATH_KEYS.has(key)) continue;
    const list = Array.isArray(value) ? value.map((v, i) => [`${key}.${i}`, v] as const) : [[key, value] as const];
    for (const [path, v] of list) if (typeof v === 'string' && !v.includes('{{') && !v.includes('${')) out.push([path, v]);
  }
  return out;
}

/** Whether a literal path names somewhere outside the workspace (pure: no file system). */
export function leavesWorkspace(path: string, workspace?: string): boolean {
  const absolute = path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('~');
  if (absolute) {
    if (workspace === undefined) return true;
    const root = workspace.replace(/[\\/]+$/, '');
    return !(path === root || path.startsWith(`${root}/`) || path.startsWith(`${root}\\`)) || escapes(path.slice(root.length));
  }
  return escapes(path);
}

/** A relative path whose `..` climb above where it starts. */
function escapes(relative: string): boolean {
  let depth = 0;
  for (const part of relative.split(/[\\/]+/)) {
    if (part === '..') depth -= 1;
    else if (part !== '' && part !== '.') depth += 1;
    if (depth < 0) return true;
  }
  return false;
}

/** A student reply given as JSON is a decision: one the boundary would refuse is a mistake in the script. */
function scriptProblems(nodeId: string, script: ModelScript, where: string): GraphProblem[] {
  return script.student.flatMap((entry, i) => {
    if (entry.json === undefined) return [];
    const parsed = Decision.safeParse(entry.json);
    if (parsed.success) return [];
    const first = parsed.error.issues[0];
    const words = first ? issueWordsIn(entry.json, first) : 'not a decision';
    const type = isObject(entry.json) && typeof entry.json.decision_type === 'string' ? ` (${entry.json.decision_type.slice(0, 40)})` : '';
    return [{ node: nodeId, code: 'invalid_script_decision', message: `${where}: student reply ${i + 1}${type} is not a decision the boundary accepts: ${words}` }];
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
