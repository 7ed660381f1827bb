import { afterEach, describe, expect, it } from 'vitest';
import { OllamaModelRef, OpenAICompatibleModelRef } from '@shared/contracts/model';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../../test-support/fake-ollama';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../../test-support/fake-openai';
import type { FetchFn } from './http-call';
import { createOllamaProvider } from './ollama-provider';
import { createOpenAICompatibleProvider } from './openai-compatible-provider';
import { verdictJsonSchema } from './prompts';
import { ProviderError, type ModelRequest } from './provider';

/**
 * Issue 27: a request's output bound reaches the server in its own dialect, and a reply the server
 * cut there is a typed failure (`output_limit`, with what it was billed), never an answer. Through
 * the real providers against the fake servers (TEST DOUBLES at the model boundary), which honour
 * the bound, and pad up to it as the padding model.
 */

const servers: Array<FakeOpenAI | FakeOllama> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const VERDICT = JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' });
const review = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  role: 'teacher',
  messages: [{ role: 'user', content: 'Review this decision.' }],
  format: verdictJsonSchema(),
  ...extra,
});

async function openai(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI(options);
  servers.push(fake);
  return fake;
}

/** The provider for `base_url`, its requests answered by the fake (so a cloud address can be tested on loopback). */
function openaiProvider(fake: FakeOpenAI, baseUrl: string, extra: Record<string, unknown> = {}) {
  const ref = OpenAICompatibleModelRef.parse({ provider: 'openai_compatible', base_url: baseUrl, model: 'm', ...extra });
  const origin = new URL(baseUrl).origin;
  const fetch: FetchFn = (input, init) => globalThis.fetch(String(input instanceof Request ? input.url : input).replace(origin, fake.url), init);
  return createOpenAICompatibleProvider(ref, 'teacher', { fetch });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('an OpenAI-compatible server is sent the output bound by the name it knows', () => {
  it.each([
    ['OpenAI’s API', 'https://api.openai.com/v1', {}, 'max_completion_tokens'],
    ['Azure OpenAI', 'https://steward.openai.azure.com/v1', {}, 'max_completion_tokens'],
    ['another cloud server', 'https://api.mistral.example/v1', {}, 'max_tokens'],
    ['a local server (llama.cpp, LM Studio…)', 'http://127.0.0.1:8080/v1', {}, 'max_tokens'],
    ['a server whose model names the field', 'https://api.mistral.example/v1', { max_tokens_field: 'max_completion_tokens' }, 'max_completion_tokens'],
    ['OpenAI, told otherwise', 'https://api.openai.com/v1', { max_tokens_field: 'max_tokens' }, 'max_tokens'],
  ])('%s (%s): %j → %s', async (_what, baseUrl, extra, field) => {
    const fake = await openai({ chat: () => ({ message: { content: VERDICT } }) });
    const reply = await openaiProvider(fake, baseUrl, extra).complete(review({ max_output_tokens: 1234 }));
    expect(reply.text).toBe(VERDICT);
    const [sent] = fake.chatRequests();
    expect(sent?.[field]).toBe(1234);
    expect(Object.keys(sent ?? {}).filter((k) => /^max_/.test(k))).toEqual([field]);
  });

  it('a request without a bound sends none (the student’s, as before)', async () => {
    const fake = await openai({ chat: () => ({ message: { content: VERDICT } }) });
    await openaiProvider(fake, 'https://api.openai.com/v1').complete(review());
    expect(Object.keys(fake.chatRequests()[0] ?? {}).filter((k) => /^max_/.test(k))).toEqual([]);
  });

  it('a reply cut at the bound (finish_reason "length") fails as output_limit, in words, with the tokens it was billed', async () => {
    const fake = await openai({ padding: { unbounded_tokens: 50_000 }, chat: () => ({ message: { content: VERDICT } }) });
    const err = await failure(openaiProvider(fake, 'https://api.example.com/v1').complete(review({ max_output_tokens: 300 })));
    expect(err.code).toBe('output_limit');
    expect(err.message).toBe('api.example.com:m was stopped at its bound of 300 output tokens before it finished answering; the cut answer is not used');
    expect(err.usage).toEqual({ input_tokens: fake.billed[0]?.prompt_tokens, output_tokens: 300 });
    // Never asked again: a cut answer would be cut again, and billed again.
    expect(fake.chatRequests()).toHaveLength(1);
  });

  it('a reply cut inside its JSON is the same typed failure, not a parse error', async () => {
    const long = JSON.stringify({ verdict: 'block', reason_codes: ['other'], explanation: 'word '.repeat(200).trim() });
    const fake = await openai({ chat: () => ({ message: { content: long } }) });
    const err = await failure(openaiProvider(fake, 'https://api.example.com/v1').complete(review({ max_output_tokens: 64 })));
    expect(err.code).toBe('output_limit');
  });

  it('without a bound of ours, a server’s own "length" stop leaves the reply to the boundary’s checks', async () => {
    const fake = await openai({ chat: () => ({ message: { content: '{"verdict": "acc' }, finish_reason: 'length' }) });
    const reply = await openaiProvider(fake, 'https://api.example.com/v1').complete(review());
    expect(reply.text).toBe('{"verdict": "acc');
  });

  it('a 400 about the field says which one to set', async () => {
    const fake = await openai({
      chat: () => ({ status: 400, body: { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } } }),
    });
    const err = await failure(openaiProvider(fake, 'https://proxy.example/v1').complete(review({ max_output_tokens: 100 })));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain(`set the model's max_tokens_field to "max_completion_tokens"`);
  });
});

describe('Ollama is sent the output bound as options.num_predict', () => {
  async function ollama(options: FakeOllamaOptions) {
    const fake = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], ...options });
    servers.push(fake);
    return { fake, provider: createOllamaProvider(OllamaModelRef.parse({ provider: 'ollama', model: 'qwen3:4b', host: fake.url, temperature: 0.2 }), 'teacher') };
  }

  it('beside the model’s temperature; none when the request has no bound', async () => {
    const { fake, provider } = await ollama({ chat: () => ({ message: { content: VERDICT } }) });
    expect((await provider.complete(review({ max_output_tokens: 512 }))).text).toBe(VERDICT);
    await provider.complete(review());
    expect(fake.chatRequests().map((r) => r.options)).toEqual([{ temperature: 0.2, num_predict: 512 }, { temperature: 0.2 }]);
  });

  it('a reply cut there (done_reason "length") fails as output_limit with its eval counts', async () => {
    const { fake, provider } = await ollama({ padding: { unbounded_tokens: 50_000 }, chat: () => ({ message: { content: VERDICT } }) });
    const err = await failure(provider.complete(review({ max_output_tokens: 256 })));
    expect(err.code).toBe('output_limit');
    expect(err.message).toContain('ollama:qwen3:4b was stopped at its bound of 256 output tokens');
    expect(err.usage).toEqual({ input_tokens: fake.billed[0]?.prompt_eval_count, output_tokens: 256 });
  });
});
