import net from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleModelRef } from '@shared/contracts/model';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../../test-support/fake-openai';
import { chatCompletionsUrl, createOpenAICompatibleProvider, displayBaseUrl } from './openai-compatible-provider';
import { decisionJsonSchema, verdictJsonSchema } from './prompts';
import { ProviderError, type ModelProvider, type ModelRequest } from './provider';

const readTool: OfferedTool = {
  name: 'read_text_file',
  server: 'fs',
  description: 'Read a text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  schema_hash: 'hash-read-0001',
  effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] },
  effect_source: 'shipped',
};

/** Recognisable, so any leak is found wherever it lands. */
const PLANTED_KEY = 'sk-proj-PLANTEDsecret0123456789abcdefXYZ';

const fakes: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function serve(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI(options);
  fakes.push(fake);
  return fake;
}

const refFor = (fake: FakeOpenAI | { baseUrl: string }, extra: Record<string, unknown> = {}) =>
  OpenAICompatibleModelRef.parse({ provider: 'openai_compatible', base_url: fake.baseUrl, model: 'gpt-4o-mini', ...extra });

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

function thrownBy(fn: () => unknown): ProviderError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError, nothing was thrown');
}

/** Everything of an error and a provider a person, a log or a trace could ever see. */
function expectKeyNowhere(key: string, err: ProviderError, provider?: ModelProvider): void {
  const surfaces = [
    err.message,
    String(err),
    err.stack ?? '',
    JSON.stringify(err),
    JSON.stringify(Object.getOwnPropertyNames(err).map((name) => String((err as unknown as Record<string, unknown>)[name]))),
    inspect(err, { depth: 10, showHidden: true }),
    ...(provider ? [provider.label, JSON.stringify(provider), inspect(provider, { depth: 10, showHidden: true })] : []),
  ];
  for (const surface of surfaces) expect(surface).not.toContain(key);
  // Not even a recognisable part of it.
  for (const surface of surfaces) expect(surface).not.toContain(key.slice(8, 24));
}

/** A port nobody listens on: bind one, then let it go. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OpenAI-compatible provider: requests and replies (against the fake OpenAI server)', () => {
  it('structured mode sends the decision schema as response_format, offers no native tools, and returns the content as text', async () => {
    const content = '{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"a.txt"}}';
    const server = await serve({ models: ['gpt-4o-mini'], chat: () => ({ message: { content } }) });
    const provider = createOpenAICompatibleProvider(refFor(server), 'student');
    expect(provider.label).toBe(`${new URL(server.url).host}:gpt-4o-mini`);

    expect(await provider.complete(studentRequest())).toMatchObject({ text: content, tool_calls: [], model: provider.label });
    const [sent] = server.chatRequests();
    expect(sent).toEqual({
      model: 'gpt-4o-mini',
      stream: false,
      messages: [
        { role: 'system', content: 'You are a careful agent.' },
        { role: 'user', content: 'Task: read a.txt' },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'decision', schema: decisionJsonSchema(), strict: false } },
    });
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/v1/chat/completions']]);
  });

  it('the teacher’s schema is sent under the name "verdict", also in tools mode (a review offers no tools)', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{"verdict":"accept","reason_codes":[],"explanation":"fine"}' } }) });
    const provider = createOpenAICompatibleProvider(refFor(server, { mode: 'tools' }), 'teacher');
    const reply = await provider.complete({ role: 'teacher', messages: [{ role: 'user', content: 'review' }], format: verdictJsonSchema() });
    expect(reply.text).toContain('"accept"');
    const [sent] = server.chatRequests();
    expect(sent?.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'verdict', schema: verdictJsonSchema(), strict: false } });
    expect(sent?.tools).toBeUndefined();
  });

  it('tools mode offers the round’s tools as functions, one call at a time, and parses the string arguments', async () => {
    const server = await serve({ chat: () => ({ message: { tool_calls: [{ name: 'read_text_file', arguments: '{"path":"a.txt"}' }] } }) });
    const provider = createOpenAICompatibleProvider(refFor(server, { mode: 'tools' }), 'student');
    const reply = await provider.complete(studentRequest());
    expect(reply).toMatchObject({ text: '', tool_calls: [{ name: 'read_text_file', arguments: { path: 'a.txt' } }], model: provider.label });

    const [sent] = server.chatRequests();
    expect(sent?.tools).toEqual([
      { type: 'function', function: { name: 'read_text_file', description: 'Read a text file from the workspace.', parameters: readTool.input_schema } },
    ]);
    expect(sent?.parallel_tool_calls).toBe(false);
    // A schema-constrained reply could not call a tool, so tools mode leaves the reply free.
    expect(sent?.response_format).toBeUndefined();
  });

  it('unparseable tool-call arguments come back as the raw string for the boundary to reject, not as a throw', async () => {
    const server = await serve({
      chat: () => ({ message: { tool_calls: [{ name: 'read_text_file', arguments: '{"path": "a.txt"' }, { name: 'read_text_file', arguments: '' }] } }),
    });
    const reply = await createOpenAICompatibleProvider(refFor(server, { mode: 'tools' }), 'student').complete(studentRequest());
    expect(reply.tool_calls).toEqual([
      { name: 'read_text_file', arguments: '{"path": "a.txt"' },
      { name: 'read_text_file', arguments: '' },
    ]);
  });

  it('a tool result in the history is sent as a user turn saying what it is (strict servers refuse a bare `tool` message), roles alternating', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    await createOpenAICompatibleProvider(refFor(server), 'student').complete(
      studentRequest({
        messages: [
          { role: 'user', content: 'Task: read a.txt' },
          { role: 'assistant', content: '{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"a.txt"}}' },
          { role: 'tool', content: 'hello' },
          { role: 'user', content: 'Your previous answer could not be used: …' },
        ],
      }),
    );
    expect(server.chatRequests()[0]?.messages).toEqual([
      { role: 'user', content: 'Task: read a.txt' },
      { role: 'assistant', content: '{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"a.txt"}}' },
      // Joined with the feedback that follows it: roles alternate, as some chat templates require.
      { role: 'user', content: 'Tool result:\nhello\n\nYour previous answer could not be used: …' },
    ]);
  });

  it('passes the configured temperature, and none when unset', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    await createOpenAICompatibleProvider(refFor(server, { temperature: 0.2 }), 'student').complete(studentRequest());
    await createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest());
    const [withTemp, without] = server.chatRequests();
    expect(withTemp?.temperature).toBe(0.2);
    expect(without).not.toHaveProperty('temperature');
  });

  it('a base_url with a trailing slash reaches the same endpoint', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    await createOpenAICompatibleProvider(refFor({ baseUrl: `${server.baseUrl}/` }), 'student').complete(studentRequest());
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(chatCompletionsUrl('https://api.example.com/v1//')).toBe('https://api.example.com/v1/chat/completions');
    expect(chatCompletionsUrl('https://x.example/openai/v1?api-version=2')).toBe('https://x.example/openai/v1/chat/completions?api-version=2');
  });

  it('a refusal with no content is returned as the text, for the boundary to judge', async () => {
    const server = await serve({ chat: () => ({ message: { content: null, refusal: 'I cannot help with that.' } }) });
    const reply = await createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest());
    expect(reply.text).toBe('I cannot help with that.');
    expect(reply.tool_calls).toEqual([]);
  });

  it('a reply without choices is bad_response, not an empty decision', async () => {
    const server = await serve({ chat: () => ({ status: 200, body: { object: 'chat.completion', choices: [] } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain('unexpected shape');
  });

  it('a reply that is not JSON (a web page) is bad_response that points at base_url', async () => {
    const server = await serve({ chat: () => ({ status: 200, body: '<html><body>Welcome</body></html>', headers: { 'content-type': 'text/html' } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain('not JSON (text/html)');
    expect(err.message).toContain('/v1');
  });

  it('sends every request through the fetch it was given', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const seen: string[] = [];
    const observed: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    await createOpenAICompatibleProvider(refFor(server), 'student', { fetch: observed }).complete(studentRequest());
    expect(seen).toEqual([`${server.baseUrl}/chat/completions`]);
  });
});

describe('OpenAI-compatible provider: the API key', () => {
  it('is sent as a bearer token when given, and no Authorization header at all without one', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    await createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: PLANTED_KEY }).complete(studentRequest());
    await createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest());
    expect(server.requests.map((r) => r.authorization)).toEqual([`Bearer ${PLANTED_KEY}`, undefined]);
  });

  it('surrounding whitespace of a stored key (a pasted newline) is not sent', async () => {
    const server = await serve({ api_key: PLANTED_KEY, chat: () => ({ message: { content: 'ok' } }) });
    const reply = await createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: `${PLANTED_KEY}\n` }).complete(studentRequest());
    expect(reply.text).toBe('ok');
    expect(server.requests[0]?.authorization).toBe(`Bearer ${PLANTED_KEY}`);
  });

  it('a refused key (401) is `unauthorized`, names the reference and the fix, and the key appears nowhere — though the server quoted it', async () => {
    const server = await serve({ api_key: 'the-right-key', chat: () => ({ message: { content: '{}' } }) });
    const provider = createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: PLANTED_KEY });
    const err = await providerError(provider.complete(studentRequest()));
    expect(err.code).toBe('unauthorized');
    expect(err.message).toBe(`${server.baseUrl} refused the API key (keychain:OPENAI, HTTP 401) — update it with \`steward credentials set OPENAI\``);
    // The server did receive it, and did echo it (the fake quotes what it was sent).
    expect(server.requests[0]?.authorization).toBe(`Bearer ${PLANTED_KEY}`);
    expectKeyNowhere(PLANTED_KEY, err, provider);
  });

  it('a 403 is `unauthorized` too, and says the key may lack access to the model', async () => {
    const server = await serve({ chat: () => ({ status: 403, body: { error: { message: `Project does not have access to model gpt-4o-mini (key ${PLANTED_KEY})` } } }) });
    const provider = createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: PLANTED_KEY });
    const err = await providerError(provider.complete(studentRequest()));
    expect(err.code).toBe('unauthorized');
    expect(err.message).toContain('keychain:OPENAI');
    expect(err.message).toContain('may use this model');
    expectKeyNowhere(PLANTED_KEY, err, provider);
  });

  it('a server wanting a key when none is configured says how to configure one', async () => {
    const server = await serve({ api_key: 'needed', chat: () => ({ message: { content: '{}' } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest()));
    expect(err.code).toBe('unauthorized');
    expect(err.message).toContain('wants an API key (HTTP 401)');
    expect(err.message).toContain('steward credentials set');
    expect(err.message).toContain('keychain:NAME');
  });

  it('a server error quoting the key (whole or as another key-like token) passes on neither', async () => {
    const server = await serve({
      chat: () => ({ status: 500, body: { error: { message: `upstream rejected ${PLANTED_KEY} and sk-other0123456789abcdefghij` } } }),
    });
    const provider = createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: PLANTED_KEY });
    const err = await providerError(provider.complete(studentRequest()));
    expect(err.code).toBe('server_error');
    expect(err.message).toContain('answered 500: upstream rejected [redacted] and [redacted]');
    expect(err.message).not.toContain('sk-other');
    expectKeyNowhere(PLANTED_KEY, err, provider);
  });

  it('a redirect is not followed, so the key never reaches the other address', async () => {
    const elsewhere = await serve({ chat: () => ({ message: { content: 'stolen' } }) });
    const server = await serve({ chat: () => ({ status: 307, body: '', headers: { location: `${elsewhere.baseUrl}/chat/completions` } }) });
    const provider = createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: PLANTED_KEY });
    const err = await providerError(provider.complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain(`redirected the request to ${elsewhere.baseUrl}/chat/completions (HTTP 307)`);
    expect(elsewhere.requests).toEqual([]);
    expectKeyNowhere(PLANTED_KEY, err, provider);
  });

  it('a named key that was not supplied fails at creation with the reference and the fix, before any request', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const err = thrownBy(() => createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'teacher'));
    expect(err.code).toBe('credential_missing');
    expect(err.message).toContain('keychain:OPENAI');
    expect(err.message).toContain('steward credentials set OPENAI');
    expect(server.requests).toEqual([]);
  });

  it('a stored key a header cannot carry fails at creation without quoting it', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const broken = `${PLANTED_KEY}\nX-Injected: 1`;
    const err = thrownBy(() => createOpenAICompatibleProvider(refFor(server, { api_key: 'keychain:OPENAI' }), 'student', { apiKey: broken }));
    expect(err.code).toBe('credential_missing');
    expect(err.message).toContain('keychain:OPENAI');
    expectKeyNowhere(PLANTED_KEY, err);
    expect(server.requests).toEqual([]);
  });
});

describe('OpenAI-compatible provider: failures a person can act on', () => {
  it('a port where nothing listens fails as unreachable, naming base_url and asking whether the server runs', async () => {
    const port = await closedPort();
    const provider = createOpenAICompatibleProvider(refFor({ baseUrl: `http://127.0.0.1:${port}/v1` }), 'student');
    const err = await providerError(provider.complete(studentRequest()));
    expect(err.code).toBe('unreachable');
    expect(err.message).toBe(`the student model 127.0.0.1:${port}:gpt-4o-mini is not reachable at http://127.0.0.1:${port}/v1 (ECONNREFUSED) — is the server running?`);
  });

  it('a host name that does not resolve fails as unreachable and says to check the address', async () => {
    // The network's answer for an unknown name, as undici reports it (no DNS lookup in a test).
    const dnsFailure: typeof fetch = () =>
      Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.example.invalid'), { code: 'ENOTFOUND' }) }));
    const provider = createOpenAICompatibleProvider(refFor({ baseUrl: 'https://api.example.invalid/v1' }), 'teacher', { fetch: dnsFailure });
    const err = await providerError(provider.complete(studentRequest({ role: 'teacher' })));
    expect(err.code).toBe('unreachable');
    expect(err.message).toContain('not reachable at https://api.example.invalid/v1 (ENOTFOUND)');
    expect(err.message).toContain('check the address in base_url');
  });

  it('a model the server does not have (404 model_not_found) is model_missing and says where to look', async () => {
    const server = await serve({ models: ['gpt-4o-mini'], chat: () => ({ message: { content: '{}' } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server, { model: 'gpt-9' }), 'student').complete(studentRequest()));
    expect(err.code).toBe('model_missing');
    expect(err.message).toBe(`model "gpt-9" is not available at ${server.baseUrl} — check the model id (${server.baseUrl}/models lists what the server offers)`);
  });

  it('a 404 for the endpoint itself (base_url without /v1) says to check base_url, not the model', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor({ baseUrl: server.url }), 'student').complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain('/chat/completions does not exist (HTTP 404)');
    expect(err.message).toContain('/v1');
  });

  it('429 is rate_limited with the wait the server asked for and its own words', async () => {
    const server = await serve({ chat: () => ({ status: 429, body: { error: { message: 'Rate limit reached for gpt-4o-mini', code: 'rate_limit_exceeded' } }, headers: { 'retry-after': '20' } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest()));
    expect(err.code).toBe('rate_limited');
    expect(err.message).toContain('rate limited (HTTP 429, retry after 20 s): Rate limit reached for gpt-4o-mini');
  });

  it('a 5xx is server_error (transient: retried) carrying the status and the server’s own words', async () => {
    const server = await serve({ chat: () => ({ status: 503, body: { error: 'model is loading' } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest()));
    expect(err.code).toBe('server_error');
    expect(err.message).toBe(`${server.baseUrl} answered 503: model is loading`);
  });

  it('a 400 about response_format in structured mode suggests tools mode', async () => {
    const server = await serve({ chat: () => ({ status: 400, body: { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model." } } }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest()));
    expect(err.code).toBe('bad_response');
    expect(err.message).toContain('try mode "tools"');
  });

  it('aborting the request signal while the server is still thinking fails as cancelled', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' }, delay_ms: 60_000 }) });
    const controller = new AbortController();
    const pending = providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest({ signal: controller.signal })));
    await server.waitForChat(1);
    controller.abort();
    const err = await pending;
    expect(err.code).toBe('cancelled');
    expect(err.message).toBe('the student model call was cancelled');
  });

  it('an already-cancelled request never reaches the server', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' } }) });
    const controller = new AbortController();
    controller.abort();
    const err = await providerError(createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest({ signal: controller.signal })));
    expect(err.code).toBe('cancelled');
    expect(server.requests).toEqual([]);
  });

  it('a model slower than timeout_ms fails as timeout with the limit in the message', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' }, delay_ms: 60_000 }) });
    const err = await providerError(createOpenAICompatibleProvider(refFor(server, { timeout_ms: 150 }), 'student').complete(studentRequest()));
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('150 ms');
    expect(err.message).toContain('timeout_ms');
  });

  it('addresses in messages never show user info or a query string', () => {
    expect(displayBaseUrl('https://user:pass@api.example.com/v1/?key=abc')).toBe('https://api.example.com/v1');
  });
});

describe('OpenAI-compatible provider: what a call cost', () => {
  it('a reply records the server’s usage (prompt_tokens in, completion_tokens out) and how long the call took', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' }, usage: { prompt_tokens: 1200, completion_tokens: 64 }, delay_ms: 80 }) });
    const reply = await createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest());
    expect(reply.usage).toEqual({ input_tokens: 1200, output_tokens: 64 });
    expect(reply.latency_ms).toBeGreaterThanOrEqual(80);
    expect(reply.latency_ms).toBeLessThan(10_000);
    expect(Number.isInteger(reply.latency_ms)).toBe(true);
  });

  it('a server that sends no usage (some local ones) gets a reply that claims none', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' }, usage: null }) });
    const reply = await createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest());
    expect(reply.usage).toBeUndefined();
    expect(reply.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('a malformed usage is ignored, not a failed call', async () => {
    const server = await serve({ chat: () => ({ message: { content: '{}' }, usage: { prompt_tokens: -3, completion_tokens: 9 } }) });
    const reply = await createOpenAICompatibleProvider(refFor(server), 'student').complete(studentRequest());
    expect(reply.usage).toEqual({ output_tokens: 9 });
  });
});
