import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../test-support/fake-openai';

/** The test double itself: it must answer like the OpenAI API does, or the provider tests prove nothing. */

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('fake OpenAI-compatible server (test double)', () => {
  it('lists its models and answers a chat completion in OpenAI’s shape, recording the request', async () => {
    fake = await startFakeOpenAI({ models: ['gpt-4o-mini'], chat: (req, i) => ({ message: { content: `call ${i}: ${req.messages.length} messages` } }) });
    const models = (await (await fetch(`${fake.baseUrl}/models`)).json()) as { object: string; data: { id: string; object: string }[] };
    expect(models.object).toBe('list');
    expect(models.data.map((m) => [m.id, m.object])).toEqual([['gpt-4o-mini', 'model']]);

    const res = await post(`${fake.baseUrl}/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; choices: { message: { role: string; content: string }; finish_reason: string }[] };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'call 0: 1 messages' });
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(fake.chatRequests()).toEqual([{ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }]);
    expect(fake.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ['GET', '/v1/models', undefined],
      ['POST', '/v1/chat/completions', undefined],
    ]);
  });

  it('sends tool-call arguments as a JSON string (and a string handed to it untouched), content null', async () => {
    fake = await startFakeOpenAI({
      chat: () => ({ message: { tool_calls: [{ name: 'read', arguments: { path: 'a' } }, { name: 'bad', arguments: '{"path": ' }] } }),
    });
    const res = await post(`${fake.baseUrl}/chat/completions`, { model: 'any', messages: [] });
    const body = (await res.json()) as { choices: { message: { content: unknown; tool_calls: { id: string; type: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[] };
    const message = body.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(message?.tool_calls.map((c) => [c.type, c.function.name, c.function.arguments])).toEqual([
      ['function', 'read', '{"path":"a"}'],
      ['function', 'bad', '{"path": '],
    ]);
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('with an api_key it refuses requests without that bearer token, as OpenAI does, and records what was sent', async () => {
    fake = await startFakeOpenAI({ api_key: 'right-key', chat: () => ({ message: { content: 'ok' } }) });
    const none = await post(`${fake.baseUrl}/chat/completions`, { model: 'm', messages: [] });
    expect(none.status).toBe(401);
    const wrong = await post(`${fake.baseUrl}/chat/completions`, { model: 'm', messages: [] }, { authorization: 'Bearer wrong-key' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'invalid_api_key' });
    const right = await post(`${fake.baseUrl}/chat/completions`, { model: 'm', messages: [] }, { authorization: 'Bearer right-key' });
    expect(right.status).toBe(200);
    expect(fake.requests.map((r) => r.authorization)).toEqual([undefined, 'Bearer wrong-key', 'Bearer right-key']);
    expect(fake.chatRequests()).toHaveLength(3);
  });

  it('refuses a model it does not serve with OpenAI’s 404 model_not_found, and a streaming request with a 400', async () => {
    fake = await startFakeOpenAI({ models: ['gpt-4o-mini'], chat: () => ({ message: { content: 'x' } }) });
    const missing = await post(`${fake.baseUrl}/chat/completions`, { model: 'gpt-9', messages: [] });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    const streaming = await post(`${fake.baseUrl}/chat/completions`, { model: 'gpt-4o-mini', messages: [], stream: true });
    expect(streaming.status).toBe(400);
  });

  it('lets the handler answer with any status, body and headers', async () => {
    fake = await startFakeOpenAI({ chat: () => ({ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '7' } }) });
    const res = await post(`${fake.baseUrl}/chat/completions`, { model: 'm', messages: [] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({ error: { message: 'slow down' } });
  });

  it('a delayed answer is pending until close() releases it, and close() does not hang on it', async () => {
    fake = await startFakeOpenAI({ chat: () => ({ message: { content: 'late' }, delay_ms: 60_000 }) });
    const pending = post(`${fake.baseUrl}/chat/completions`, { model: 'm', messages: [] }).then(
      () => 'answered',
      () => 'connection closed',
    );
    await fake.waitForChat(1);
    await fake.close();
    fake = undefined;
    expect(await pending).toBe('connection closed');
  });
});
