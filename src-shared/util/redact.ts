import type { ToolSnapshot } from '../contracts/tool-snapshot';
import { checkWalkDepth } from './json-depth';
import { MASK, maskArguments } from './mask';
import { maskSensitiveText, sensitiveValuesInText } from './sensitive-text';
import { setOwn } from './set-own';

/** Receives every sensitive value redaction finds, so the caller can mask it wherever else it shows up. */
export type SensitiveSink = (value: string) => void;

/**
 * Strings that may carry a candidate the parser could not read, or a message quoting one: model
 * replies (`text`), prompt messages (`content`), an unparsed candidate (`raw`), parse errors and
 * the messages and feedback built from them. Sensitive fields are located in them by name.
 */
const CANDIDATE_TEXT_KEYS = new Set(['text', 'content', 'raw', 'parse_error', 'message', 'error', 'feedback', 'reason', 'arguments']);

interface Context {
  sensitive: Map<string, readonly string[]>;
  names: ReadonlySet<string>;
  found: Set<string>;
}

/**
 * Masks sensitive tool arguments wherever a tool call appears in a value: decisions
 * (`tool_name` + `arguments`), native tool calls (`name` + `arguments`, also when the arguments are
 * a JSON string), JSON text replies that contain either, and — for candidates that are not JSON at
 * all (prose around a decision, a cut-off decision, a parse error's preview) — the sensitive fields
 * located by name. Every value found is then masked wherever else it occurs in the value, and
 * handed to `found` so the run masks it in everything it shows later.
 */
export function redactToolArguments<T>(value: T, snapshot: Pick<ToolSnapshot, 'tools'>, found?: SensitiveSink): T {
  const sensitive = sensitiveArguments(snapshot.tools);
  if (sensitive === undefined) return value;
  const ctx: Context = { sensitive, names: new Set([...sensitive.values()].flat()), found: new Set() };
  const redacted = walk(value, ctx, undefined, 0);
  if (ctx.found.size === 0) return redacted as T;
  const values = [...ctx.found];
  for (const v of values) found?.(v);
  return maskValues(redacted, values, 0) as T;
}

/**
 * The tools' sensitive argument names by tool, or nothing when none has any. A frozen tool list (a
 * round's snapshot, deep-frozen by the tool host) is worked out once: every event of a round is
 * redacted against the same list (issue 26).
 */
const sensitiveOfFrozen = new WeakMap<object, Map<string, readonly string[]> | null>();
function sensitiveArguments(tools: ToolSnapshot['tools']): Map<string, readonly string[]> | undefined {
  const frozen = Object.isFrozen(tools);
  const known = frozen ? sensitiveOfFrozen.get(tools) : undefined;
  if (known !== undefined) return known ?? undefined;
  let sensitive: Map<string, readonly string[]> | undefined;
  for (const tool of tools) {
    if (tool.effect.sensitive_arguments.length > 0) (sensitive ??= new Map()).set(tool.name, tool.effect.sensitive_arguments);
  }
  if (frozen) sensitiveOfFrozen.set(tools, sensitive ?? null);
  return sensitive;
}

function walk(value: unknown, ctx: Context, key: string | undefined, depth: number): unknown {
  checkWalkDepth(depth);
  if (typeof value === 'string') return key === undefined || CANDIDATE_TEXT_KEYS.has(key) ? redactText(value, ctx) : value;
  if (Array.isArray(value)) return value.map((v) => walk(v, ctx, undefined, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const toolName = typeof obj.tool_name === 'string' ? obj.tool_name : typeof obj.name === 'string' ? obj.name : undefined;
  const names = toolName !== undefined ? ctx.sensitive.get(toolName) : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'arguments' && names && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = maskArguments(v as Record<string, unknown>, names, (s) => ctx.found.add(s));
    } else if (k === 'arguments' && names && typeof v === 'string') {
      out[k] = redactArgumentsText(v, names, ctx);
    } else {
      setOwn(out, k, walk(v, ctx, k, depth + 1));
    }
  }
  return out;
}

/** JSON text is redacted structurally; whatever is left (or is not JSON) has its sensitive fields located. */
function redactText(text: string, ctx: Context): string {
  const structured = redactJsonText(text, ctx);
  for (const v of sensitiveValuesInText(structured, ctx.names)) if (v !== MASK) ctx.found.add(v);
  return maskSensitiveText(structured, ctx.names, []);
}

/** Tool-call arguments sent as a JSON string: masked like an object, kept a string. */
function redactArgumentsText(text: string, names: readonly string[], ctx: Context): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return JSON.stringify(maskArguments(parsed as Record<string, unknown>, names, (s) => ctx.found.add(s)));
    }
  } catch {
    // Not JSON: its sensitive fields are located by name below.
  }
  return redactText(text, ctx);
}

function redactJsonText(text: string, ctx: Context): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && !trimmed.startsWith('```')) return text;
  const body = trimmed.replace(/^```(?:json)?\s*\n?/, '').replace(/\n?```$/, '');
  try {
    const parsed: unknown = JSON.parse(body);
    const redacted = walk(parsed, ctx, undefined, 0);
    return JSON.stringify(redacted) === JSON.stringify(parsed) ? text : JSON.stringify(redacted);
  } catch {
    return text;
  }
}

function maskValues(value: unknown, values: readonly string[], depth: number): unknown {
  checkWalkDepth(depth);
  if (typeof value === 'string') return maskSensitiveText(value, new Set(), values);
  if (Array.isArray(value)) return value.map((v) => maskValues(v, values, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, maskValues(v, values, depth + 1));
  return out;
}
