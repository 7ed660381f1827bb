import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';

/** The test double itself: it must answer like Ollama does, or the provider tests prove nothing. */

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('fake Ollama server (test double)', () => {
  it('answers version, tags and show in Ollama’s shapes', async () => {
    fake = await startFakeOllama({ version: '0.12.6', models: [{ name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', capabilities: ['tools'] }] });
    expect(await (await fetch(`${fake.url}/api/version`)).json()).toEqual({ version: '0.12.6' });
    const tags = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: { name: string; details: { family: string } }[] };
    expect(tags.models.map((m) => [m.name, m.details.family])).toEqual([['qwen3:4b', 'qwen3']]);
    const show = (await (await post(`${fake.url}/api/show`, { model: 'qwen3:4b' })).json()) as { capabilities: string[] };
    expect(show.capabilities).toEqual(['tools']);
    const missing = await post(`${fake.url}/api/show`, { model: 'nope' });
    expect(missing.status).toBe(404);
  });

  it('answers a non-streaming chat with one JSON object from the handler, and records the request', async () => {
    fake = await startFakeOllama({ models: [{ name: 'm' }], chat: (req, i) => ({ message: { content: `call ${i}: ${req.messages.length} messages` } }) });
    const res = await post(`${fake.url}/api/chat`, { model: 'm', stream: false, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { message: { role: string; content: string }; done: boolean };
    expect(body.message).toEqual({ role: 'assistant', content: 'call 0: 1 messages' });
    expect(body.done).toBe(true);
    expect(fake.chatRequests()).toEqual([{ model: 'm', stream: false, messages: [{ role: 'user', content: 'hi' }] }]);
  });

  it('streams newline-delimited JSON when the request does not say stream:false, as Ollama does', async () => {
    fake = await startFakeOllama({ models: [{ name: 'm' }], chat: () => ({ message: { content: 'streamed' } }) });
    const res = await post(`${fake.url}/api/chat`, { model: 'm', messages: [] });
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { done: boolean; message: { content: string } });
    expect(lines.map((l) => l.done)).toEqual([false, true]);
    expect(lines.map((l) => l.message.content).join('')).toBe('streamed');
  });

  it('refuses a model it does not have with Ollama’s 404', async () => {
    fake = await startFakeOllama({ models: [{ name: 'm' }], chat: () => ({ message: { content: 'x' } }) });
    const res = await post(`${fake.url}/api/chat`, { model: 'other', stream: false, messages: [] });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'model "other" not found, try pulling it first' });
  });

  it('lets the handler answer with any status and body', async () => {
    fake = await startFakeOllama({ models: [{ name: 'm' }], chat: () => ({ status: 503, body: { error: 'busy' } }) });
    const res = await post(`${fake.url}/api/chat`, { model: 'm', stream: false, messages: [] });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'busy' });
  });

  it('a delayed answer is pending until close() releases it, and close() does not hang on it', async () => {
    fake = await startFakeOllama({ models: [{ name: 'm' }], chat: () => ({ message: { content: 'late' }, delay_ms: 60_000 }) });
    const pending = post(`${fake.url}/api/chat`, { model: 'm', stream: false, messages: [] }).then(
      () => 'answered',
      () => 'connection closed',
    );
    await fake.waitForChat(1);
    await fake.close();
    fake = undefined;
    expect(await pending).toBe('connection closed');
  });
});
