import type { ModelRef } from '@shared/contracts/model';

type OpenAICompatibleRef = Extract<ModelRef, { provider: 'openai_compatible' }>;
export type OutputBoundField = NonNullable<OpenAICompatibleRef['max_tokens_field']>;

/**
 * Which field carries the output bound to an OpenAI-compatible server, from what Steward knows of
 * it: the model's own `max_tokens_field` when set, else its address. OpenAI's API (and Azure
 * OpenAI) name it `max_completion_tokens` and refuse `max_tokens` for their reasoning models;
 * every other server speaking the API (llama.cpp, LM Studio, vLLM, Ollama's /v1, Mistral,
 * Together, DeepSeek, OpenRouter, Groq…) knows `max_tokens`, while some do not know the newer
 * name, and a server that ignores a field it does not know would leave the reply unbounded.
 */
export function outputBoundField(ref: Pick<OpenAICompatibleRef, 'max_tokens_field'>, hostname: string): OutputBoundField {
  if (ref.max_tokens_field !== undefined) return ref.max_tokens_field;
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com') ? 'max_completion_tokens' : 'max_tokens';
}

/** A 400 about the bound's field names the other one, so the user can set `max_tokens_field`. */
export function outputFieldHint(said: string, sent: OutputBoundField): string {
  if (!new RegExp(`\\b${sent}\\b`, 'i').test(said)) return '';
  const other: OutputBoundField = sent === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
  return ` — this server may not know "${sent}": set the model's max_tokens_field to "${other}"`;
}
