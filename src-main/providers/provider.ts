import type { ModelReply, ModelRole, ModelUsage } from '@shared/contracts/model';
import type { ModelCallInfo } from '@shared/contracts/model-call';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';

export type { ChatMessage } from '@shared/contracts/model';
import type { ChatMessage } from '@shared/contracts/model';

export interface ModelRequest {
  role: ModelRole;
  messages: ChatMessage[];
  /** Tools mode: the round's offered tools as native tool definitions. */
  tools?: OfferedTool[];
  /** Structured mode: the JSON Schema the reply must follow (Ollama `format`, OpenAI `response_format`). */
  format?: Record<string, unknown>;
  /**
   * The most tokens the reply may have, sent in the provider's dialect (OpenAI-compatible:
   * `max_completion_tokens` or `max_tokens`; Ollama: `options.num_predict`). A reply the server cut
   * there fails with `output_limit`. Every review-side call sets it (output-bound.ts): without it a
   * priced model's cost has no ceiling. The replay ignores it.
   */
  max_output_tokens?: number;
  /** Aborts the call (run cancelled, timeout). */
  signal?: AbortSignal;
  /** Who calls and what the prompt holds, for the privacy log (record-calls.ts); never sent. */
  call?: ModelCallInfo;
}

/** One model behind one role. Implementations: the script (replay) provider, Ollama, OpenAI-compatible servers. */
export interface ModelProvider {
  /** Shown in traces and the app, e.g. "replay" or "ollama:qwen3:4b". */
  readonly label: string;
  complete(request: ModelRequest): Promise<ModelReply>;
  /** Replay only: how many scripted responses are used, so a resumed run continues the script. */
  position?: () => number;
}

export const PROVIDER_ERROR_CODES = [
  'unreachable',
  'model_missing',
  'timeout',
  'cancelled',
  'bad_response',
  /** The server refused the API key, or wants one (HTTP 401/403). */
  'unauthorized',
  /** The server asks to slow down or the account's quota is used up (HTTP 429). */
  'rate_limited',
  /** The model names a `keychain:NAME` credential the host could not supply. */
  'credential_missing',
  'script_exhausted',
  'scripted_error',
  /** The server answered 5xx: it may be loading or overloaded (retried). */
  'server_error',
  /** The connection was reset or dropped mid-call (retried). */
  'connection_lost',
  /** The reply passed the model's `max_reply_bytes`: reading stopped there. */
  'reply_too_large',
  /** The server stopped the reply at the request's `max_output_tokens` (finish/done reason "length"): an unfinished answer, never used. */
  'output_limit',
] as const;
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

/**
 * Failures no later call can fix within the run (the server is not there, the model is not
 * installed, the key is refused or absent): the run fails at once with this one message.
 */
export const UNHEALABLE_CODES: ReadonlySet<ProviderErrorCode> = new Set(['unreachable', 'model_missing', 'unauthorized', 'credential_missing']);
/** Transient failures the same call is retried for, with backoff (see retry.ts). */
export const RETRYABLE_CODES: ReadonlySet<ProviderErrorCode> = new Set(['rate_limited', 'server_error', 'connection_lost']);

/** A provider failure with a message a person can act on. */
export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    /** How long the server asked us to wait before calling again (Retry-After), when it said. */
    readonly retryAfterMs?: number,
    /** What the failed call was billed, when the server said (an `output_limit` reply reports its tokens). */
    readonly usage?: ModelUsage,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
