import { z } from 'zod';
import { ElicitFieldSchema } from './person-ask';

/**
 * An MCP server on 2026-07-28 asked for input in the middle of a tool call (an `input_required`
 * result, issue 30): each embedded elicitation, as the person is shown it. `key` is the server's
 * name for the request (its answer goes back under it in `inputResponses`).
 */
export const ServerInputAsk = z.discriminatedUnion('mode', [
  z.object({ key: z.string().min(1).max(200), mode: z.literal('form'), message: z.string().max(5_000), fields: z.array(ElicitFieldSchema).max(100) }).strict(),
  z.object({ key: z.string().min(1).max(200), mode: z.literal('url'), message: z.string().max(5_000), url: z.string().max(4_000) }).strict(),
]);
export type ServerInputAsk = z.infer<typeof ServerInputAsk>;

/** What an intervention of kind `server_input` shows: which server's call asks, and its questions. Never the server's `requestState`. */
export const ServerInputShown = z
  .object({
    server: z.string().min(1),
    tool: z.string().min(1),
    asks: z.array(ServerInputAsk).min(1).max(20),
  })
  .strict();
export type ServerInputShown = z.infer<typeof ServerInputShown>;

/**
 * What a run waiting on a server's input request keeps to continue the call (its checkpoint): the
 * call's identity (round, idempotency key: the retried request is the same call continuing, never a
 * second write), the answers the host already gave (sampling, roots: nobody needed to be asked) and
 * the server's opaque `requestState`, echoed back untouched. No header, token or credential: those
 * are resolved again when the run resumes.
 */
export const ServerInputWait = ServerInputShown.extend({
  round: z.number().int().nonnegative(),
  idempotency_key: z.string().min(1),
  responses: z.record(z.string(), z.unknown()).default({}),
  request_state: z.string().max(256_000).optional(),
}).strict();
export type ServerInputWait = z.infer<typeof ServerInputWait>;

/** How many times one call may come back asking before Steward stops answering it (the SDK's default cap). */
export const MAX_INPUT_ROUNDS = 10;
