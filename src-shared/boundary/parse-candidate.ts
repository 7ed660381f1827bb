import { z } from 'zod';
import type { ModelReply } from '../contracts/model';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '../util/json-depth';
import { findJsonSyntaxError } from '../util/json-syntax';

/** A model reply normalised into one raw decision object, before any validation. */
export const ParsedCandidate = z
  .object({
    raw: z.unknown(),
    tool_call_count: z.number().int().nonnegative(),
    parse_error: z.string().optional(),
  })
  .strict();
export type ParsedCandidate = z.infer<typeof ParsedCandidate>;

/**
 * Native tool calls become a `tool_call` decision (counting them, so parallel calls are caught);
 * otherwise the text must be one JSON decision. Code fences are tolerated, prose is not: a reply
 * we have to guess at is unparseable, and that is reported, not repaired silently.
 */
export function parseCandidate(reply: ModelReply): ParsedCandidate {
  if (reply.tool_calls.length > 0) {
    // Validation, hashing and tracing all recurse: a value too deep for them is refused here, by name.
    if (reply.tool_calls.some((call) => jsonDepthExceeds(call.arguments))) return { raw: undefined, tool_call_count: reply.tool_calls.length, parse_error: tooDeep() };
    const [first] = reply.tool_calls;
    return {
      raw: { decision_type: 'tool_call', tool_name: first?.name, arguments: first?.arguments },
      tool_call_count: reply.tool_calls.length,
    };
  }
  const json = parseJsonText(reply.text);
  // A reply too deep to handle is not kept as the raw candidate: its text is all there is to show.
  if (!json.ok) return { raw: json.tooDeep ? undefined : reply.text, tool_call_count: 0, parse_error: json.error };
  if (Array.isArray(json.value)) {
    return { raw: json.value[0], tool_call_count: json.value.length, parse_error: json.value.length === 0 ? 'empty list of decisions' : undefined };
  }
  return { raw: json.value, tool_call_count: isToolCallLike(json.value) ? 1 : 0 };
}

export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: string; tooDeep?: true } {
  const trimmed = stripFence(text.trim());
  if (trimmed === '') return { ok: false, error: 'the model returned an empty reply' };
  try {
    const value: unknown = JSON.parse(trimmed);
    if (jsonDepthExceeds(value)) return { ok: false, error: tooDeep(), tooDeep: true };
    return { ok: true, value };
  } catch {
    return { ok: false, error: unparsedReplyWords(trimmed) };
  }
}

/**
 * Why a reply is not a decision, in words a person (and the model, told to repair it) reads: prose
 * where JSON was asked, or JSON that breaks off or is malformed at a line and column. Never the
 * parser's own message (it quotes the text in its own dialect); the reply itself is in the trace.
 */
export function unparsedReplyWords(trimmed: string): string {
  const preview = trimmed.length > 80 ? `${trimmed.slice(0, 80)}…` : trimmed;
  if (!/^[[{"]/.test(trimmed)) return `the model answered in prose, not a JSON decision (its reply begins “${preview}”)`;
  const where = findJsonSyntaxError(trimmed);
  const at = where ? ` at line ${where.line}, column ${where.column}: ${where.problem}` : '';
  return `the model's JSON is malformed or cut off${at} (its reply begins “${preview}”)`;
}

function tooDeep(): string {
  return `not usable: ${new JsonTooDeepError(MAX_JSON_DEPTH).message}`;
}

function stripFence(text: string): string {
  const m = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return m?.[1]?.trim() ?? text;
}

function isToolCallLike(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as { decision_type?: unknown }).decision_type === 'tool_call';
}

/**
 * A reply is traced, validated and hashed, all recursively: one whose tool-call arguments nest
 * deeper than that can take is refused as it arrives (JsonTooDeepError), so it never reaches them.
 */
export function assertReplyDepth(reply: ModelReply): ModelReply {
  if (reply.tool_calls.some((call) => jsonDepthExceeds(call.arguments))) {
    throw new JsonTooDeepError(MAX_JSON_DEPTH, "the reply's tool-call arguments are JSON");
  }
  return reply;
}

/** A decision given as a value (a teacher replacement) in the same shape a reply parses into. */
export function candidateFromValue(value: unknown): ParsedCandidate {
  if (jsonDepthExceeds(value)) return { raw: undefined, tool_call_count: 0, parse_error: tooDeep() };
  if (Array.isArray(value)) {
    return { raw: value[0], tool_call_count: value.length, parse_error: value.length === 0 ? 'empty list of decisions' : undefined };
  }
  return { raw: value, tool_call_count: isToolCallLike(value) ? 1 : 0 };
}
