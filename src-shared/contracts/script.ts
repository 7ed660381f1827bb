import { z } from 'zod';
import { ModelToolCall } from './model';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '../util/json-depth';

/**
 * One scripted model response (the replay double at the model boundary). Exactly one of
 * `json` (sent as text, serialised), `text` (raw, may be malformed on purpose), `tool_calls`
 * (native tool calls, several to test the parallel-call rejection) or `error` (provider failure).
 */
export const ScriptEntry = z
  .object({
    json: z.unknown().optional(),
    text: z.string().optional(),
    tool_calls: z.array(ModelToolCall).min(1).optional(),
    error: z.string().min(1).optional(),
    delay_ms: z.number().int().nonnegative().max(60_000).optional(),
    note: z.string().optional(),
  })
  .strict()
  .refine((e) => [e.json, e.text, e.tool_calls, e.error].filter((v) => v !== undefined).length === 1, {
    message: 'a script entry needs exactly one of json, text, tool_calls or error',
  })
  // Replies are cloned and serialised (both recursive): a value too deep for that is refused here.
  .refine((e) => !jsonDepthExceeds(e.json) && !(e.tool_calls ?? []).some((c) => jsonDepthExceeds(c.arguments)), {
    message: new JsonTooDeepError(MAX_JSON_DEPTH).message,
  });
export type ScriptEntry = z.infer<typeof ScriptEntry>;

export const ModelScript = z
  .object({
    /** Added before every scripted response, so demos unfold at a watchable pace. */
    latency_ms: z.number().int().nonnegative().max(60_000).default(0),
    student: z.array(ScriptEntry).default([]),
    teacher: z.array(ScriptEntry).default([]),
    /** SCS roles: the committee's phase plans and the monitor's decisions, in order. */
    committee: z.array(ScriptEntry).default([]),
    monitor: z.array(ScriptEntry).default([]),
  })
  .strict();
export type ModelScript = z.infer<typeof ModelScript>;
export type ModelScriptInput = z.input<typeof ModelScript>;
