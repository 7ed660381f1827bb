import type { ModelReply, ModelRole } from '@shared/contracts/model';
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
  /** Aborts the call (run cancelled, timeout). */
  signal?: AbortSignal;
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
] as const;
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

/** A provider failure with a message a person can act on. */
export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
