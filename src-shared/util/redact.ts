import type { ToolSnapshot } from '../contracts/tool-snapshot';
import { maskArguments } from './mask';

/**
 * Masks sensitive tool arguments wherever a tool call appears in a value: decisions
 * (`tool_name` + `arguments`), native tool calls (`name` + `arguments`), and JSON text replies
 * that contain either. Applied to every event before it leaves the run, so traces never carry them.
 */
export function redactToolArguments<T>(value: T, snapshot: Pick<ToolSnapshot, 'tools'>): T {
  const sensitive = new Map<string, readonly string[]>();
  for (const tool of snapshot.tools) {
    if (tool.effect.sensitive_arguments.length > 0) sensitive.set(tool.name, tool.effect.sensitive_arguments);
  }
  if (sensitive.size === 0) return value;
  return walk(value, sensitive) as T;
}

function walk(value: unknown, sensitive: Map<string, readonly string[]>, key?: string): unknown {
  // Model replies (`text`) and prompt messages (`content`) carry decisions as JSON text.
  if (typeof value === 'string') return key === 'text' || key === 'content' ? redactJsonText(value, sensitive) : value;
  if (Array.isArray(value)) return value.map((v) => walk(v, sensitive));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const toolName = typeof obj.tool_name === 'string' ? obj.tool_name : typeof obj.name === 'string' ? obj.name : undefined;
  const names = toolName !== undefined ? sensitive.get(toolName) : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'arguments' && names && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = maskArguments(v as Record<string, unknown>, names);
    } else {
      out[k] = walk(v, sensitive, k);
    }
  }
  return out;
}

function redactJsonText(text: string, sensitive: Map<string, readonly string[]>): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && !trimmed.startsWith('```')) return text;
  const body = trimmed.replace(/^```(?:json)?\s*\n?/, '').replace(/\n?```$/, '');
  try {
    const parsed: unknown = JSON.parse(body);
    const redacted = walk(parsed, sensitive);
    return JSON.stringify(redacted) === JSON.stringify(parsed) ? text : JSON.stringify(redacted);
  } catch {
    return text;
  }
}
