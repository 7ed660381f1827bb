import type { DecisionType } from '../contracts/decision';
import type { InspectedTool } from '../contracts/host-api';
import { ModelScript, type ModelScriptInput } from '../contracts/script';

/** A tool the agent node may call: its name and what its server's inspection said of it. */
export type OfferedTool = Pick<InspectedTool, 'name' | 'input_schema'> & Partial<Pick<InspectedTool, 'effect' | 'hints' | 'description'>>;

const isReadOnly = (t: OfferedTool) => t.hints?.readOnlyHint === true || t.effect?.effect === 'read';
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const required = (t: OfferedTool) => (Array.isArray(t.input_schema.required) ? t.input_schema.required.filter((r): r is string => typeof r === 'string') : []);

/**
 * The tool a starter script reads with: a read-only one (its annotations or its effect say so),
 * the one needing the fewest arguments, the first listed on a tie; any tool when none reads only.
 */
export function starterTool(tools: readonly OfferedTool[]): OfferedTool | undefined {
  const pool = tools.some(isReadOnly) ? tools.filter(isReadOnly) : tools;
  return pool.reduce<OfferedTool | undefined>((best, t) => (best === undefined || required(t).length < required(best).length ? t : best), undefined);
}

/** A value of a JSON Schema's shape, for a person to edit: its default, example or first choice, else a stand-in of its type. */
function sample(schema: unknown, name: string, folder: string | undefined): unknown {
  if (!isRecord(schema)) return '';
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [sample(schema.items, name, folder)];
    case 'object':
      return argumentsFor({ input_schema: schema, name }, folder);
    default:
      // A path-like argument points into the workflow's folder, where the agent may read.
      if (/path|dir|folder|file/i.test(name)) return folder ?? '.';
      return `the ${name}`;
  }
}

/** Arguments for a tool call that its input schema accepts: every required property, each with a sample value. */
export function argumentsFor(tool: Pick<OfferedTool, 'input_schema' | 'name'>, folder?: string): Record<string, unknown> {
  const props = isRecord(tool.input_schema.properties) ? tool.input_schema.properties : {};
  return Object.fromEntries(required(tool as OfferedTool).map((key) => [key, sample(props[key], key, folder)]));
}

/**
 * A first replay script for an agent with no model server (the script provider answers in its
 * place): the student reads once with a tool it is offered, then completes; with no tool, it just
 * completes. The teacher (when replayed too) accepts each decision it is asked about.
 */
export function starterScript(tools: readonly OfferedTool[], options: { folder?: string; teacher: boolean; latency_ms?: number }): ModelScript {
  const tool = starterTool(tools);
  const student: ModelScriptInput['student'] = [
    ...(tool
      ? [{ note: `Round 1: read with ${tool.name}. Edit the arguments to what this agent should read.`, json: { decision_type: 'tool_call', tool_name: tool.name, arguments: argumentsFor(tool, options.folder) } }]
      : []),
    { note: tool ? 'Round 2: finish with the answer (the node\'s output).' : 'Finish with the answer (the node\'s output).', json: { decision_type: 'complete', output: tool ? 'Read it: replace this with the answer.' : 'Replace this with the answer.' } },
  ];
  const accept = { verdict: 'accept', reason_codes: [], explanation: 'Fine: the decision fits the task.' };
  // The teacher is asked about a decision its review policy picks: at most one per student round.
  const teacher = options.teacher ? student.map(() => ({ json: accept })) : [];
  return ModelScript.parse({ latency_ms: options.latency_ms ?? 0, student, teacher });
}

/** What each decision type does, said where a replay script is written (one line each). */
export const DECISION_HELP = {
  tool_call: 'Calls one of the tools the node may use: tool_name, and arguments its input schema accepts. The result comes back next round.',
  ask_user: 'Asks the person a question (question); the run waits for their answer, which the next round sees.',
  present_result: 'Shows the person an intermediate result (content) and goes on.',
  request_confirmation: 'Asks the person to confirm before going on (message); the run waits for a yes or no.',
  reroute: 'Sends the task on one of this node\'s routes (target: the route\'s name) and says why (reason): only that route\'s port sends. A node without routes ends rerouted.',
  complete: 'Finishes the task: output is the node\'s output, what its edges pass on.',
} satisfies Record<DecisionType, string>;
