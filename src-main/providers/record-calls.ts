import type { ModelCalled } from '@shared/contracts/model-call';
import { modelLabel, type ModelRef } from '@shared/contracts/model';
import { localityOf } from '@shared/policy/privacy';
import type { ModelProvider, ModelRequest } from './provider';

/** Where a model's prompts go, as the privacy log names it. */
export type ModelPlace = Pick<ModelCalled, 'model' | 'provider' | 'local' | 'host'>;

/**
 * The model's label and where it sends: this machine, or `name[:port]` of another one (read by the
 * strict shared check, the same host the provider's endpoint has: no user info, path or query).
 */
export function modelPlace(ref: ModelRef, ollamaDefault?: string): ModelPlace {
  const where = localityOf(ref, ollamaDefault);
  return { model: modelLabel(ref), provider: ref.provider, local: where.local, ...(where.local ? {} : { host: where.host }) };
}

/** What a request puts on the wire, provider-neutral: its messages, tool definitions and output schema as JSON. */
export function requestBytes(request: ModelRequest): number {
  return Buffer.byteLength(JSON.stringify({ messages: request.messages, tools: request.tools, format: request.format }), 'utf8');
}

/**
 * Records every call that reaches the provider (each retry too: it sits under the retries) as a
 * `model.called` record: who called, the categories the prompt builder put in, bytes, where it
 * went. A call already cancelled before it starts sends nothing and is not recorded.
 */
export function recordCalls(provider: ModelProvider, place: ModelPlace, onCall: (call: ModelCalled) => void): ModelProvider {
  const attempts = new WeakMap<ModelRequest, number>();
  return {
    ...provider,
    complete: (request) => {
      if (!request.signal?.aborted) {
        const attempt = (attempts.get(request) ?? 0) + 1;
        attempts.set(request, attempt);
        const call = request.call ?? { caller: request.role, purpose: 'other' as const, data: ['prompt' as const] };
        onCall({ ...call, ...place, bytes: requestBytes(request), attempt });
      }
      return provider.complete(request);
    },
  };
}
