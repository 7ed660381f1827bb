import type { ModelAnswered, ModelCalled } from '@shared/contracts/model-call';
import type { ModelUsage } from '@shared/contracts/model';
import { modelLabel, type ModelRef } from '@shared/contracts/model';
import { localityOf } from '@shared/policy/privacy';
import { ProviderError, type ModelProvider, type ModelRequest } from './provider';
import { startStopwatch } from './call-usage';

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

/**
 * What a request puts on the wire, provider-neutral: its messages, tool definitions and output
 * schema as JSON — the byte length of `JSON.stringify({ messages, tools, format })`, summed from its
 * parts. A frozen part (every message of a student prompt, student-prompt.ts; the cached schemas)
 * is measured once: a round's prompt repeats the whole history, and measuring it again every round
 * made a round's cost grow with the run's length (issue 26).
 */
export function requestBytes(request: ModelRequest): number {
  return measureRequest(request, arrayBytes);
}

/**
 * `requestBytes` for one caller's requests in turn (a role's provider): a round's prompt is the
 * previous round's with a few messages more, so the frozen messages it starts with, the very same
 * objects as last time, are summed from what was counted then, without looking at each again
 * (issue 26: a round of a 200-round run no longer visits every message of its history to size it).
 */
export function requestSizer(): (request: ModelRequest) => number {
  // The frozen messages the last request began with, and the running sum of their bytes.
  const leading: unknown[] = [];
  const sums: number[] = [];
  const messagesBytes = (items: readonly unknown[]): number => {
    if (Object.isFrozen(items)) return jsonBytes(items);
    const limit = Math.min(items.length, leading.length);
    let same = 0;
    while (same < limit && items[same] === leading[same]) same += 1;
    leading.length = same;
    sums.length = same;
    let bytes = same > 0 ? sums[same - 1]! : 0;
    let extending = true;
    for (let i = same; i < items.length; i += 1) {
      const item = items[i];
      bytes += jsonBytes(item);
      // Only a frozen message keeps its size: a prefix is remembered up to the first that is not.
      if (extending && typeof item === 'object' && item !== null && Object.isFrozen(item)) {
        leading.push(item);
        sums.push(bytes);
      } else extending = false;
    }
    return bytes + 2 + Math.max(0, items.length - 1); // [] and the commas
  };
  return (request) => measureRequest(request, messagesBytes);
}

function measureRequest(request: ModelRequest, messagesBytes: (items: readonly unknown[]) => number): number {
  let bytes = 2; // {}
  let first = true;
  const field = (name: string, value: unknown, array: (items: readonly unknown[]) => number) => {
    if (value === undefined) return;
    bytes += (first ? 0 : 1) + name.length + 3; // ,"name":
    bytes += Array.isArray(value) ? array(value) : jsonBytes(value);
    first = false;
  };
  field('messages', request.messages, messagesBytes);
  field('tools', request.tools, arrayBytes);
  field('format', request.format, arrayBytes);
  return bytes;
}

/** Measured once per frozen object (it cannot change); anything else every time. */
const measured = new WeakMap<object, number>();

function jsonBytes(value: unknown): number {
  const frozen = typeof value === 'object' && value !== null && Object.isFrozen(value);
  const known = frozen ? measured.get(value) : undefined;
  if (known !== undefined) return known;
  // JSON.stringify writes undefined (and functions) in an array as null.
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
  if (frozen) measured.set(value, bytes);
  return bytes;
}

function arrayBytes(items: readonly unknown[]): number {
  if (Object.isFrozen(items)) return jsonBytes(items);
  let bytes = 2 + Math.max(0, items.length - 1); // [] and the commas
  for (const item of items) bytes += jsonBytes(item);
  return bytes;
}

/**
 * Records every call that reaches the provider (each retry too: it sits under the retries) as a
 * `model.called` record: who called, the categories the prompt builder put in, bytes, where it
 * went. A call already cancelled before it starts sends nothing and is not recorded.
 *
 * With `onAnswer`, the call's end is recorded too (`model.answered`, issue 31): the tokens the
 * server reported and the call's latency, success or failure. A call cancelled under it (the run
 * stopped, the kernel's timeout) is not: its run may have ended already, and nobody knows its tokens.
 */
export function recordCalls(provider: ModelProvider, place: ModelPlace, onCall: (call: ModelCalled) => void, onAnswer?: (answer: ModelAnswered) => void): ModelProvider {
  const attempts = new WeakMap<ModelRequest, number>();
  const sized = requestSizer();
  return {
    ...provider,
    complete: (request) => {
      if (request.signal?.aborted) return provider.complete(request);
      const attempt = (attempts.get(request) ?? 0) + 1;
      attempts.set(request, attempt);
      const call = request.call ?? { caller: request.role, purpose: 'other' as const, data: ['prompt' as const] };
      onCall({ ...call, ...place, bytes: sized(request), attempt });
      if (!onAnswer) return provider.complete(request);
      const elapsed = startStopwatch();
      const answered = (ok: boolean, usage: ModelUsage | undefined): void => {
        if (request.signal?.aborted) return;
        onAnswer({ ...call, model: place.model, local: place.local, attempt, ok, ...(usage ? { usage } : {}), latency_ms: elapsed() });
      };
      return provider.complete(request).then(
        (reply) => {
          answered(true, reply.usage);
          return reply;
        },
        (error: unknown) => {
          answered(false, error instanceof ProviderError ? error.usage : undefined);
          throw error;
        },
      );
    },
  };
}
