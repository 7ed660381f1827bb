import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OllamaModelRef } from '@shared/contracts/model';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../../test-support/fake-ollama';
import { createOllamaProvider } from './ollama-provider';
import { decisionJsonSchema, verdictJsonSchema } from './prompts';
import { ProviderError, type ModelRequest } from './provider';

const readTool: OfferedTool = {
  name: 'read_text_file',
  server: 'fs',
  description: 'Read a text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  schema_hash: 'hash-read-0001',
  effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] },
  effect_source: 'shipped',
};

const MODELS = [{ name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', capabilities: ['completion', 'tools'] }];

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function serve(options: FakeOllamaOptions): Promise<FakeOllama> {
  fake = await startFakeOllama({ models: MODELS, ...options });
  return fake;
}

const ref = (extra: Record<string, unknown> = {}) => OllamaModelRef.parse({ provider: 'ollama', model: 'qwen3:4b', host: fake?.url, ...extra });

const studentRequest = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  role: 'student',
  messages: [
    { role: 'system', content: 'You are a careful agent.' },
    { role: 'user', content: 'Task: read a.txt' },
  ],
  tools: [readTool],
  format: decisionJsonSchema(),
  ...extra,
});

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** A port nobody listens on: bind one, then let it go. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Ollama provider (against the fake Ollama server)', () => {
  it('structured mode sends the decision schema as `format`, offers no native tools, and returns the content as text', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"a.txt"}}' } }) });
    const provider = createOllamaProvider(ref(), 'student');
    expect(provider.label).toBe('ollama:qwen3:4b');

    const reply = await provider.complete(studentRequest());
    expect(reply).toMatchObject({
      text: '{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"a.txt"}}',
      tool_calls: [],
      model: 'ollama:qwen3:4b',
    });
    const [sent] = server.chatRequests();
    expect(sent?.model).toBe('qwen3:4b');
    expect(sent?.stream).toBe(false);
    expect(sent?.format).toEqual(decisionJsonSchema());
    expect(sent?.tools).toBeUndefined();
    expect(sent?.messages).toEqual([
      { role: 'system', content: 'You are a careful agent.' },
      { role: 'user', content: 'Task: read a.txt' },
    ]);
  });

  it('tools mode offers the round’s tools natively and returns tool calls with object arguments', async () => {
    const server = await serve({
      chat: () => ({ message: { content: '', tool_calls: [{ function: { name: 'read_text_file', arguments: { path: 'a.txt' } } }] } }),
    });
    const provider = createOllamaProvider(ref({ mode: 'tools' }), 'student');
    const reply = await provider.complete(studentRequest());
    expect(reply.tool_calls).toEqual([{ name: 'read_text_file', arguments: { path: 'a.txt' } }]);
    expect(reply.text).toBe('');

    const [sent] = server.chatRequests();
    expect(sent?.tools).toEqual([
      { type: 'function', function: { name: 'read_text_file', description: 'Read a text file from the workspace.', parameters: readTool.input_schema } },
    ]);
    // A grammar-constrained reply could not call a tool, so tools mode leaves the reply free.
    expect(sent?.format).toBeUndefined();
  });

  it('tools mode still constrains a request that offers no tools (the teacher’s verdict) with its format', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{"verdict":"accept","reason_codes":[],"explanation":"fine"}' } }) });
    const provider = createOllamaProvider(ref({ mode: 'tools' }), 'teacher');
    const reply = await provider.complete({ role: 'teacher', messages: [{ role: 'user', content: 'review' }], format: verdictJsonSchema() });
    expect(reply.text).toContain('"accept"');
    expect(server.chatRequests()[0]?.format).toEqual(verdictJsonSchema());
    expect(server.chatRequests()[0]?.tools).toBeUndefined();
  });

  it('passes the configured temperature, and none when unset', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    await createOllamaProvider(ref({ temperature: 0.2 }), 'student').complete(studentRequest());
    await createOllamaProvider(ref(), 'student').complete(studentRequest());
    const [withTemp, without] = server.chatRequests();
    expect(withTemp?.options).toEqual({ temperature: 0.2 });
    expect(without?.options).toBeUndefined();
  });

  it('a port where nothing listens fails as unreachable with what to do about it', async () => {
    const port = await closedPort();
    const provider = createOllamaProvider(OllamaModelRef.parse({ provider: 'ollama', model: 'qwen3:4b', host: `http://127.0.0.1:${port}` }), 'student');
    const err = await providerError(provider.complete(studentRequest()));
    expect(err.code).toBe('unreachable');
    expect(err.message).toBe(`Ollama is not reachable at http://127.0.0.1:${port} — start it with \`ollama serve\` or pick the replay models`);
  });

  it('a model Ollama does not have fails as model_missing and names the pull command', async () => {
    await serve({ chat: () => ({ message: { content: '{}' } }) });
    const err = await providerError(createOllamaProvider(ref({ model: 'llama3.2:1b' }), 'student').complete(studentRequest()));
    expect(err.code).toBe('model_missing');
    expect(err.message).toBe('model "llama3.2:1b" is not installed in Ollama — run `ollama pull llama3.2:1b`');
  });

  it('a 404 "model … not found" from chat is model_missing, whatever the quoting', async () => {
    await serve({ chat: () => ({ status: 404, body: { error: "model 'qwen3:4b' not found" } }) });
    const err = await providerError(createOllamaProvider(ref(), 'student').complete(studentRequest()));
    expect(err.code).toBe('model_missing');
    expect(err.message).toContain('ollama pull qwen3:4b');
  });

  it('aborting the request signal while Ollama is still thinking fails promptly as cancelled', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' }, delay_ms: 60_000 }) });
    const controller = new AbortController();
    const pending = providerError(createOllamaProvider(ref(), 'student').complete(studentRequest({ signal: controller.signal })));
    await server.waitForChat(1);
    controller.abort();
    const err = await pending;
    expect(err.code).toBe('cancelled');
  });

  it('an already-cancelled request never reaches Ollama', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const controller = new AbortController();
    controller.abort();
    const err = await providerError(createOllamaProvider(ref(), 'student').complete(studentRequest({ signal: controller.signal })));
    expect(err.code).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
  });

  it('a model slower than timeout_ms fails as timeout with the limit in the message', async () => {
    await serve({ chat: () => ({ message: { content: '{}' }, delay_ms: 60_000 }) });
    const err = await providerError(createOllamaProvider(ref({ timeout_ms: 150 }), 'student').complete(studentRequest()));
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('150 ms');
    expect(err.message).toContain('timeout_ms');
  });

  it('a reply without a message is bad_response, not an empty decision', async () => {
    await serve({ chat: () => ({ status: 200, body: { model: 'qwen3:4b', done: true } }) });
    const err = await providerError(createOllamaProvider(ref(), 'student').complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain('unexpected shape');
  });

  it('an Ollama 5xx is server_error (transient: retried) carrying Ollama’s own words', async () => {
    await serve({ chat: () => ({ status: 500, body: { error: 'llama runner process has terminated' } }) });
    const err = await providerError(createOllamaProvider(ref(), 'student').complete(studentRequest()));
    expect(err.code).toBe('server_error');
    expect(err.message).toContain('500');
    expect(err.message).toContain('llama runner process has terminated');
  });

  it('a model without tool support in tools mode says to switch to structured mode', async () => {
    await serve({ chat: () => ({ status: 400, body: { error: 'registry.ollama.ai/library/qwen3:4b does not support tools' } }) });
    const err = await providerError(createOllamaProvider(ref({ mode: 'tools' }), 'student').complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain('"structured"');
  });

  it('sends every request through the fetch it was given', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const seen: string[] = [];
    const observed: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    await createOllamaProvider(ref(), 'student', { fetch: observed }).complete(studentRequest());
    expect(seen).toEqual([`${server.url}/api/chat`]);
  });
});

describe('Ollama provider: what a call cost', () => {
  it('a reply records the tokens Ollama counted (prompt_eval_count in, eval_count out) and how long the call took', async () => {
    await serve({ chat: () => ({ message: { content: '{"decision_type":"complete","output":"done"}' }, counts: { prompt_eval_count: 412, eval_count: 37 }, delay_ms: 80 }) });
    const reply = await createOllamaProvider(ref(), 'student').complete(studentRequest());
    expect(reply.usage).toEqual({ input_tokens: 412, output_tokens: 37 });
    expect(reply.latency_ms).toBeGreaterThanOrEqual(80);
    expect(reply.latency_ms).toBeLessThan(10_000);
    expect(Number.isInteger(reply.latency_ms)).toBe(true);
  });

  it('a reply without counts (a cached prompt, an older server) claims no usage, only its latency', async () => {
    await serve({ chat: () => ({ message: { content: '{}' }, counts: null }) });
    const reply = await createOllamaProvider(ref(), 'student').complete(studentRequest());
    expect(reply.usage).toBeUndefined();
    expect(reply.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('a count that is not a number is ignored, not a failed call', async () => {
    await serve({ chat: () => ({ message: { content: '{}' }, counts: { prompt_eval_count: 'many' as unknown as number, eval_count: 5 } }) });
    const reply = await createOllamaProvider(ref(), 'student').complete(studentRequest());
    expect(reply.usage).toEqual({ output_tokens: 5 });
  });
});
