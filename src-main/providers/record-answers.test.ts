import { describe, expect, it } from 'vitest';
import type { ModelAnswered, ModelCalled } from '@shared/contracts/model-call';
import { ProviderError, type ModelProvider, type ModelRequest } from './provider';
import { recordCalls } from './record-calls';

/**
 * Issue 31: each call's end is recorded (`model.answered`): the tokens the server reported and the
 * latency, a failed call's billed usage too; a call cancelled under it is not (its run may have ended).
 * The provider here is a TEST DOUBLE at the model boundary.
 */

const place = { model: 'api.x.com:teacher', provider: 'openai_compatible' as const, local: false, host: 'api.x.com' };
const request = (signal?: AbortSignal): ModelRequest => ({ role: 'teacher', messages: [{ role: 'user', content: 'review' }], call: { caller: 'judge', purpose: 'review', data: ['task'] }, ...(signal ? { signal } : {}) });

function double(answer: (r: ModelRequest) => Promise<Awaited<ReturnType<ModelProvider['complete']>>>): ModelProvider {
  return { label: 'double', complete: answer };
}

describe('recordCalls with onAnswer', () => {
  it('records the reply’s usage and latency under the caller who asked (a judge here)', async () => {
    const called: ModelCalled[] = [];
    const answered: ModelAnswered[] = [];
    const provider = recordCalls(double(async () => ({ text: 'ok', tool_calls: [], model: 'api.x.com:teacher', usage: { input_tokens: 10, output_tokens: 3 } })), place, (c) => called.push(c), (a) => answered.push(a));
    await provider.complete(request());
    expect(called).toHaveLength(1);
    expect(answered).toEqual([{ caller: 'judge', purpose: 'review', data: ['task'], model: 'api.x.com:teacher', local: false, attempt: 1, ok: true, usage: { input_tokens: 10, output_tokens: 3 }, latency_ms: expect.any(Number) }]);
  });

  it('a failed call is answered not ok, with the usage the server billed; the error still reaches the caller', async () => {
    const answered: ModelAnswered[] = [];
    const provider = recordCalls(double(() => Promise.reject(new ProviderError('output_limit', 'cut', undefined, { output_tokens: 64 }))), place, () => undefined, (a) => answered.push(a));
    await expect(provider.complete(request())).rejects.toThrow('cut');
    expect(answered).toMatchObject([{ ok: false, usage: { output_tokens: 64 } }]);
  });

  it('a call cancelled under it records its start only', async () => {
    const called: ModelCalled[] = [];
    const answered: ModelAnswered[] = [];
    const controller = new AbortController();
    const provider = recordCalls(
      double(() => {
        controller.abort();
        return Promise.reject(new ProviderError('cancelled', 'stopped'));
      }),
      place,
      (c) => called.push(c),
      (a) => answered.push(a),
    );
    await expect(provider.complete(request(controller.signal))).rejects.toThrow('stopped');
    expect([called.length, answered.length]).toEqual([1, 0]);
  });
});
