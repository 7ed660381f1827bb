import { z } from 'zod';
import type { ModelReply } from '../contracts/model';

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
    const [first] = reply.tool_calls;
    return {
      raw: { decision_type: 'tool_call', tool_name: first?.name, arguments: first?.arguments },
      tool_call_count: reply.tool_calls.length,
    };
  }
  const json = parseJsonText(reply.text);
  if (!json.ok) return { raw: reply.text, tool_call_count: 0, parse_error: json.error };
  if (Array.isArray(json.value)) {
    return { raw: json.value[0], tool_call_count: json.value.length, parse_error: json.value.length === 0 ? 'empty list of decisions' : undefined };
  }
  return { raw: json.value, tool_call_count: isToolCallLike(json.value) ? 1 : 0 };
}

export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = stripFence(text.trim());
  if (trimmed === '') return { ok: false, error: 'the model returned an empty reply' };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (err) {
    const preview = trimmed.length > 80 ? `${trimmed.slice(0, 80)}…` : trimmed;
    return { ok: false, error: `not valid JSON (${(err as Error).message}): ${preview}` };
  }
}

function stripFence(text: string): string {
  const m = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return m?.[1]?.trim() ?? text;
}

function isToolCallLike(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as { decision_type?: unknown }).decision_type === 'tool_call';
}

/** A decision given as a value (a teacher replacement) in the same shape a reply parses into. */
export function candidateFromValue(value: unknown): ParsedCandidate {
  if (Array.isArray(value)) {
    return { raw: value[0], tool_call_count: value.length, parse_error: value.length === 0 ? 'empty list of decisions' : undefined };
  }
  return { raw: value, tool_call_count: isToolCallLike(value) ? 1 : 0 };
}
