import { z } from 'zod';
import { CredentialRef } from './credentials';
import { checkModelUrl } from './model-url';

/** Roles a model plays at the decision boundary. */
export const ModelRole = z.enum(['student', 'teacher']);
export type ModelRole = z.infer<typeof ModelRole>;

/** One message of a model prompt. Learning examples keep the (redacted) context as these. */
export const ChatMessage = z
  .object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() })
  .strict();
export type ChatMessage = z.infer<typeof ChatMessage>;

/** What a provider returned for one call, before any parsing: the raw material of a candidate. */
export const ModelToolCall = z.object({ name: z.string(), arguments: z.unknown() }).strict();
export type ModelToolCall = z.infer<typeof ModelToolCall>;

/**
 * The tokens a server said one call used (Ollama's prompt_eval_count/eval_count, OpenAI's
 * prompt_tokens/completion_tokens). Each is absent when the server did not say: never guessed.
 */
export const ModelUsage = z
  .object({ input_tokens: z.number().int().nonnegative().optional(), output_tokens: z.number().int().nonnegative().optional() })
  .strict();
export type ModelUsage = z.infer<typeof ModelUsage>;

export const ModelReply = z
  .object({
    text: z.string(),
    tool_calls: z.array(ModelToolCall),
    /** Which provider/model produced it, e.g. "replay" or "ollama:qwen3:4b". */
    model: z.string(),
    /** Optional, so traces written before calls were measured still read. */
    usage: ModelUsage.optional(),
    /** How long the answering call took (the last attempt, when it was retried); a replay's scripted delay. */
    latency_ms: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ModelReply = z.infer<typeof ModelReply>;

const MIB = 1024 * 1024;
/** What a provider reads of one reply unless the model says otherwise (`max_reply_bytes`). */
export const DEFAULT_MAX_REPLY_BYTES = MIB;
/**
 * Past this many bytes a provider stops reading a reply and fails the call (`reply_too_large`):
 * a runaway model must not fill memory, traces and the app's database. Optional, so a ref without
 * it reads the same as before; the default applies where it is read.
 */
const MaxReplyBytes = z.number().int().min(1024).max(64 * MIB).optional();

/**
 * A model server's address: http(s) only, nothing two URL parsers could read differently, no secret
 * (see model-url.ts). The message says what is wrong, never repeats the address.
 */
export const ModelUrl = z.string().superRefine((url, ctx) => {
  const check = checkModelUrl(url);
  if (!check.ok) ctx.addIssue({ code: 'custom', message: `this model address ${check.problem}` });
});

/** Where a role's model comes from. Script = the replay double for demos and tests. */
export const ScriptModelRef = z.object({ provider: z.literal('script') }).strict();
export const OllamaModelRef = z
  .object({
    provider: z.literal('ollama'),
    model: z.string().min(1),
    host: ModelUrl.optional(),
    /** tool calling (native tools) or structured output (JSON-schema `format`). */
    mode: z.enum(['structured', 'tools']).default('structured'),
    temperature: z.number().min(0).max(2).optional(),
    timeout_ms: z.number().int().positive().max(600_000).default(120_000),
    max_reply_bytes: MaxReplyBytes,
  })
  .strict();
/**
 * Any server speaking the OpenAI chat-completions API: a cloud service or a local one (llama.cpp,
 * LM Studio, vLLM). The key is a keychain reference, never a value.
 */
export const OpenAICompatibleModelRef = z
  .object({
    provider: z.literal('openai_compatible'),
    base_url: ModelUrl,
    model: z.string().min(1),
    api_key: CredentialRef.optional(),
    mode: z.enum(['structured', 'tools']).default('structured'),
    temperature: z.number().min(0).max(2).optional(),
    timeout_ms: z.number().int().positive().max(600_000).default(120_000),
    max_reply_bytes: MaxReplyBytes,
    /**
     * The name this server knows for a request's output bound. Absent: `max_completion_tokens` for
     * OpenAI's own API and Azure OpenAI (their reasoning models refuse `max_tokens`), `max_tokens`
     * for every other server (the name they all know; one that ignored an unknown name would leave
     * the reply unbounded). See openai-output-field.ts.
     */
    max_tokens_field: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  })
  .strict();
export const ModelRef = z.discriminatedUnion('provider', [ScriptModelRef, OllamaModelRef, OpenAICompatibleModelRef]);
export type ModelRef = z.infer<typeof ModelRef>;
export type ModelRefInput = z.input<typeof ModelRef>;
export type ProviderKind = ModelRef['provider'];

export function modelLabel(ref: ModelRef): string {
  switch (ref.provider) {
    case 'script':
      return 'replay';
    case 'ollama':
      return `ollama:${ref.model}`;
    case 'openai_compatible':
      return `${hostOf(ref.base_url)}:${ref.model}`;
  }
}

/** `host[:port]` of a model URL, lowercased, as the host's URL parser reads it; never userinfo or a query. */
export function hostOf(url: string): string {
  const check = checkModelUrl(url);
  return check.ok ? check.parts.host : '(an invalid address)';
}
