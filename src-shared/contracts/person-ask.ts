import { z } from 'zod';
import type { ElicitEntry, ElicitField } from '../policy/elicitation-form';

/**
 * What an MCP server asks the person during an app run (elicitation: a form or a link), held by the
 * host until answered and pushed to every connected page (the `asks` frame). Messages are masked by
 * the run before they get here; the person's answer is never recorded in the trace.
 */
const FieldBase = { name: z.string().max(200), title: z.string().max(500), description: z.string().max(2_000).optional(), required: z.boolean() };
const ChoiceOption = z.object({ value: z.string(), label: z.string() }).strict();
const count = z.number().int().nonnegative().optional();
export const ElicitFieldSchema = z.discriminatedUnion('kind', [
  z.object({ ...FieldBase, kind: z.literal('text'), format: z.enum(['email', 'uri', 'date', 'date-time']).optional(), min_length: count, max_length: count, default: z.string().optional() }).strict(),
  z.object({ ...FieldBase, kind: z.literal('number'), integer: z.boolean(), minimum: z.number().optional(), maximum: z.number().optional(), default: z.number().optional() }).strict(),
  z.object({ ...FieldBase, kind: z.literal('boolean'), default: z.boolean().optional() }).strict(),
  z.object({ ...FieldBase, kind: z.literal('choice'), options: z.array(ChoiceOption), default: z.string().optional() }).strict(),
  z.object({ ...FieldBase, kind: z.literal('choices'), options: z.array(ChoiceOption), min_items: count, max_items: count, default: z.array(z.string()).optional() }).strict(),
]);
// The schema and the form policy's type describe the same fields.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const FIELDS_MATCH: Same<z.infer<typeof ElicitFieldSchema>, ElicitField> = true;

export const AskId = z.string().min(1).max(100);
const AskBase = {
  id: AskId,
  run_id: z.string(),
  /** The MCP server (its id in the run's spec) that asks. */
  server: z.string(),
  asked_at: z.string(),
  /** Not answered by then: cancelled. */
  expires_at: z.string(),
  message: z.string().max(5_000),
};
export const PendingAsk = z.discriminatedUnion('kind', [
  z.object({ ...AskBase, kind: z.literal('form'), fields: z.array(ElicitFieldSchema).max(100) }).strict(),
  z.object({ ...AskBase, kind: z.literal('url'), url: z.string().max(4_000) }).strict(),
  /**
   * A remote server asks for a wider OAuth scope mid-run (step-up): accept lets the host open its
   * authorization page in the system browser (the page never sees the link's code or any token);
   * anything else refuses the call. `scopes`: all the sign-in asks for (the granted ones and the new).
   */
  z.object({ ...AskBase, kind: z.literal('consent'), scopes: z.array(z.string().max(200)).max(50) }).strict(),
  /** A server with `sampling: "ask"` wants the run's model to answer this conversation: accept allows it, anything else denies it. */
  z
    .object({
      ...AskBase,
      kind: z.literal('sampling'),
      messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string().max(20_000) }).strict()).max(100),
      max_tokens: z.number().int().nonnegative(),
      /** The model that would answer. */
      model: z.string().max(200),
      /** The second question: the model's answer, which goes back to the server only if the person accepts. */
      reply: z.string().max(20_000).optional(),
    })
    .strict(),
]);
export type PendingAsk = z.infer<typeof PendingAsk>;

export const ElicitEntrySchema: z.ZodType<ElicitEntry> = z.union([z.string().max(10_000), z.boolean(), z.array(z.string().max(1_000)).max(100)]);
/** accept: the form's entries (checked on the host against the asked fields) or, for a link, that the person agreed to open it. */
export const AskAnswer = z.object({ ask_id: AskId, action: z.enum(['accept', 'decline', 'cancel']), entries: z.record(z.string().max(200), ElicitEntrySchema).optional() }).strict();
export type AskAnswer = z.infer<typeof AskAnswer>;
