import type { ModelRole } from '@shared/contracts/model';
import { ProviderError, UNHEALABLE_CODES, type ModelProvider } from '../providers/provider';
import { withRetries, type RetryNotice, type RetryPolicy } from '../providers/retry';

/**
 * The run's models as the engine calls them: transient failures retried with backoff (each retry
 * announced), and the first failure no later call can fix (nobody listening, no such model, a
 * refused or absent key) remembered. From then on every call fails at once with it, without
 * reaching the server, and the run ends `failed` with that one message instead of asking again
 * every round until the failure limit.
 */
export class ModelGuard {
  private fatal: string | undefined;

  constructor(
    private readonly options: {
      policy: RetryPolicy;
      onRetry: (notice: RetryNotice) => void;
      /** Called once, with the run's message, when a failure that cannot heal first happens. */
      onFatal: (message: string, role: ModelRole) => void;
    },
  ) {}

  /** The run's message once a model failed for good. */
  get fatalMessage(): string | undefined {
    return this.fatal;
  }

  wrap(provider: ModelProvider): ModelProvider {
    const retrying = withRetries(provider, this.options.policy, this.options.onRetry);
    return {
      ...retrying,
      complete: async (request) => {
        if (this.fatal !== undefined) throw new ProviderError('cancelled', this.fatal);
        try {
          return await retrying.complete(request);
        } catch (err) {
          if (err instanceof ProviderError && UNHEALABLE_CODES.has(err.code) && this.fatal === undefined) {
            this.fatal = fatalMessage(request.role, err);
            this.options.onFatal(this.fatal, request.role);
          }
          throw err;
        }
      },
    };
  }
}

function fatalMessage(role: ModelRole, err: ProviderError): string {
  return `the ${role} model failed: ${err.message}`;
}
