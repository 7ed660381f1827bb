import { Decision } from '@shared/contracts/decision';
import type { RunEventOf } from '@shared/contracts/events';
import type { HistoryEntry } from '@shared/contracts/history';
import type { ChatMessage } from '@shared/contracts/model';
import { JsonSchemaObject, type OfferedTool, type ToolSnapshot } from '@shared/contracts/tool-snapshot';

/**
 * A recorded review's context rebuilt for a candidate teacher (`steward eval verdicts`): the
 * student's redacted prompt of the round (its learning example) holds the instructions, the tools
 * as offered (descriptions, input schemas), the task and the canonical history; the round's
 * `tools.snapshot` event holds each tool's server, effect and schema hash. Nothing here reads the
 * spec or a server again: only what the history recorded, redacted as it was recorded.
 */

export interface PromptParts {
  instructions: string;
  task: string;
  /** name → what the student's prompt said of the tool. */
  tools: Map<string, { description: string; input_schema: JsonSchemaObject; confirm: boolean }>;
  routes: Map<string, string>;
  history: HistoryEntry[];
}

const HOW_YOU_ANSWER = '\n\n## How you answer';
const TOOL_LINE = /^- (\S+) \[effect: ([^\]]*)\](?:: (.*))?$/;
const SCHEMA_LINE = /^ {2}input schema: (.*)$/;
const ROUTE_LINE = /^- ([^:\s]+)(?:: (.*))?$/;

/** The parts of a student prompt as prompts.ts builds it (system, task, history turns, maybe feedback). */
export function partsOfStudentPrompt(messages: readonly ChatMessage[], roundOfIndex: (index: number) => number): PromptParts {
  const [system, task, ...turns] = messages;
  const systemText = system?.role === 'system' ? system.content : '';
  const cut = systemText.indexOf(HOW_YOU_ANSWER);
  const instructions = cut < 0 ? '' : systemText.slice(0, cut);
  const tools: PromptParts['tools'] = new Map();
  const routes: PromptParts['routes'] = new Map();
  const lines = systemText.split('\n');
  const routesAt = lines.findIndex((line) => line === '## Routes');
  lines.forEach((line, i) => {
    const tool = TOOL_LINE.exec(line);
    if (tool && (routesAt < 0 || i < routesAt)) {
      const schema = SCHEMA_LINE.exec(lines[i + 1] ?? '');
      let input_schema: JsonSchemaObject = {};
      if (schema) {
        try {
          const parsed = JsonSchemaObject.safeParse(JSON.parse(schema[1] ?? '{}'));
          if (parsed.success) input_schema = parsed.data;
        } catch {
          // A schema the prompt cut or garbled: the teacher sees none (the validation result still says what failed).
        }
      }
      tools.set(tool[1] ?? '', { description: tool[3] ?? '', input_schema, confirm: (tool[2] ?? '').includes('needs user confirmation') });
      return;
    }
    const route = routesAt >= 0 && i > routesAt ? ROUTE_LINE.exec(line) : null;
    if (route) routes.set(route[1] ?? '', route[2] ?? '');
  });
  const taskText = task?.role === 'user' && task.content.startsWith('Task: ') ? task.content.slice('Task: '.length) : '';
  const history: HistoryEntry[] = [];
  let last: HistoryEntry | undefined;
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      let decision: Decision | undefined;
      try {
        const parsed = Decision.safeParse(JSON.parse(turn.content));
        if (parsed.success) decision = parsed.data;
      } catch {
        decision = undefined;
      }
      last = undefined;
      if (decision === undefined) continue;
      const index = history.length;
      last = { index, round: roundOfIndex(index), decision };
      history.push(last);
      continue;
    }
    if (last === undefined || last.result !== undefined) continue;
    if (turn.role === 'tool' && last.decision.decision_type === 'tool_call') {
      const error = turn.content.startsWith('Error: ');
      last.result = error ? turn.content.slice('Error: '.length) : turn.content;
      if (error) last.result_is_error = true;
    } else if (turn.role === 'user' && last.decision.decision_type !== 'tool_call') {
      last.result = turn.content;
    }
  }
  return { instructions, task: taskText, tools, routes, history };
}

/** The round's snapshot as the teacher's prompt shows it: the event's tools, with what the prompt said of each. */
export function snapshotOf(event: RunEventOf<'tools.snapshot'> | undefined, round: number, parts: PromptParts | undefined): ToolSnapshot {
  const tools: OfferedTool[] = (event?.tools ?? []).map((tool) => {
    const said = parts?.tools.get(tool.name);
    return {
      name: tool.name,
      server: tool.server,
      description: said?.description ?? '',
      input_schema: said?.input_schema ?? {},
      schema_hash: tool.schema_hash,
      effect: { effect: tool.effect, requires_user_confirmation: said?.confirm ?? false, idempotency_supported: false, sensitive_arguments: [] },
      effect_source: tool.effect_source,
    };
  });
  const routeNames = event?.routes;
  return {
    round,
    tools,
    hash: event?.hash ?? 'unrecorded',
    ...(routeNames !== undefined ? { routes: routeNames.map((name) => ({ name, ...(parts?.routes.get(name) ? { description: parts.routes.get(name) } : {}) })) } : {}),
  };
}
