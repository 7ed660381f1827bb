import type { ModelRole } from '@shared/contracts/model';
import { abortableDelay } from './abortable-delay';
import { ProviderError, RETRYABLE_CODES, type ModelProvider } from './provider';

/**
 * Transient model failures (429, 5xx, a dropped connection) are asked again, a bounded number of
 * times, with exponential backoff and full jitter — or after the wait the server asked for
 * (Retry-After, capped). Anything else (a 400, a refused key, a missing model) is never retried.
 */

export interface RetryPolicy {
  /** Retries after the first call; 0 turns retrying off. */
  max_retries: number;
  base_delay_ms: number;
  max_delay_ms: number;
  /** A server's Retry-After is honoured up to this; longer waits are cut to it. */
  max_retry_after_ms: number;
  /** Waits `ms` or rejects when `signal` aborts (tests pass an instant one). */
  sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** In [0, 1): the jitter (tests pass a fixed one). */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  max_retries: 3,
  base_delay_ms: 1_000,
  max_delay_ms: 15_000,
  max_retry_after_ms: 60_000,
  sleep: (ms, signal) => abortableDelay(ms, signal, () => new ProviderError('cancelled', 'the model call was cancelled while waiting to retry')),
  random: Math.random,
};

export interface RetryNotice {
  role: ModelRole;
  model: string;
  /** The retry about to be made: 1 for the second call. */
  attempt: number;
  delay_ms: number;
  /** What failed, as the provider said it. */
  reason: string;
}

/**
 * Retry-After in milliseconds: delta-seconds or an HTTP date (relative to `now`); undefined when
 * absent or unreadable. A date in the past means "now".
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before retry `attempt` (1-based): the server's word (capped), else full-jitter backoff. */
export function retryDelay(attempt: number, policy: RetryPolicy, serverAsked?: number): number {
  if (serverAsked !== undefined) return Math.min(serverAsked, policy.max_retry_after_ms);
  const ceiling = Math.min(policy.max_delay_ms, policy.base_delay_ms * 2 ** (attempt - 1));
  return Math.round(ceiling * policy.random());
}

/** The provider with transient failures retried; every retry is announced before its wait. */
export function withRetries(provider: ModelProvider, policy: RetryPolicy, onRetry: (notice: RetryNotice) => void): ModelProvider {
  return {
    ...provider,
    async complete(request) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await provider.complete(request);
        } catch (err) {
          const retryable = err instanceof ProviderError && RETRYABLE_CODES.has(err.code);
          if (!retryable || attempt > policy.max_retries || request.signal?.aborted) throw err;
          const delay = retryDelay(attempt, policy, err.retryAfterMs);
          onRetry({ role: request.role, model: provider.label, attempt, delay_ms: delay, reason: err.message });
          await policy.sleep(delay, request.signal);
        }
      }
    },
  };
}
