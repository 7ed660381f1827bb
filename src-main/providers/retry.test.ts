import { afterEach, describe, expect, it } from 'vitest';
import { OllamaModelRef, OpenAICompatibleModelRef } from '@shared/contracts/model';
import { startFakeOllama, type FakeChatResult, type FakeOllama } from '../../test-support/fake-ollama';
import { providerError } from '../../test-support/provider-error';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIResult } from '../../test-support/fake-openai';
import { createOllamaProvider } from './ollama-provider';
import { createOpenAICompatibleProvider } from './openai-compatible-provider';
import type { ModelProvider, ModelRequest } from './provider';
import { DEFAULT_RETRY_POLICY, retryAfterMs, retryDelay, withRetries, type RetryNotice, type RetryPolicy } from './retry';

let servers: Array<FakeOllama | FakeOpenAI> = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({ role: 'student', messages: [{ role: 'user', content: 'go' }], ...extra });
const OK = { message: { content: '{"decision_type":"complete","output":"done"}' } };

/** Waits recorded, never slept: the backoff is a seam. */
function instant(overrides: Partial<RetryPolicy> = {}) {
  const waits: number[] = [];
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, random: () => 0.5, sleep: async (ms) => void waits.push(ms), ...overrides };
  return { policy, waits };
}

async function openai(answers: FakeOpenAIResult[]): Promise<{ server: FakeOpenAI; provider: ModelProvider }> {
  const server = await startFakeOpenAI({ chat: (_r, i) => answers[Math.min(i, answers.length - 1)] ?? OK });
  servers.push(server);
  const provider = createOpenAICompatibleProvider(OpenAICompatibleModelRef.parse({ provider: 'openai_compatible', base_url: server.baseUrl, model: 'm' }), 'student');
  return { server, provider };
}

async function ollama(answers: FakeChatResult[]): Promise<{ server: FakeOllama; provider: ModelProvider }> {
  const server = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], chat: (_r, i) => answers[Math.min(i, answers.length - 1)] ?? OK });
  servers.push(server);
  return { server, provider: createOllamaProvider(OllamaModelRef.parse({ provider: 'ollama', model: 'qwen3:4b', host: server.url }), 'student') };
}

describe('transient model failures are retried with bounded backoff, others never', () => {
  it('a 429 with Retry-After in seconds is asked again after exactly that wait, announced first', async () => {
    const { server, provider } = await openai([{ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '7' } }, OK]);
    const { policy, waits } = instant();
    const notices: RetryNotice[] = [];
    const reply = await withRetries(provider, policy, (n) => notices.push(n)).complete(request());
    expect(reply.text).toContain('complete');
    expect(server.chatRequests()).toHaveLength(2);
    expect(waits).toEqual([7000]);
    expect(notices).toEqual([{ role: 'student', model: provider.label, attempt: 1, delay_ms: 7000, reason: expect.stringContaining('HTTP 429') }]);
  });

  it('Retry-After as an HTTP date is honoured, and a wait longer than the cap is cut to the cap', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryDelay(1, DEFAULT_RETRY_POLICY, 3_600_000)).toBe(DEFAULT_RETRY_POLICY.max_retry_after_ms);
  });

  it('Ollama: 503 then 200 succeeds on the second call, the server’s Retry-After read through the client', async () => {
    const { server, provider } = await ollama([{ status: 503, body: { error: 'server busy' }, headers: { 'retry-after': '2' } }, OK]);
    const { policy, waits } = instant();
    const reply = await withRetries(provider, policy, () => undefined).complete(request());
    expect(reply.text).toContain('complete');
    expect(server.chatRequests()).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });

  it('a connection reset is retried (connection_lost), with exponential backoff and jitter when the server said nothing', async () => {
    const { server, provider } = await openai([{ reset: true }, { reset: true }, OK]);
    const { policy, waits } = instant({ random: () => 0.5 });
    const reply = await withRetries(provider, policy, () => undefined).complete(request());
    expect(reply.text).toContain('complete');
    expect(server.chatRequests()).toHaveLength(3);
    // Full jitter over 1 s, then 2 s.
    expect(waits).toEqual([500, 1000]);
  });

  it('retries are bounded: a server that keeps failing gets max_retries + 1 calls, then its error', async () => {
    const { server, provider } = await openai([{ status: 500, body: { error: 'boom' } }]);
    const { policy, waits } = instant();
    const err = await providerError(withRetries(provider, policy, () => undefined).complete(request()));
    expect(err.code).toBe('server_error');
    expect(server.chatRequests()).toHaveLength(DEFAULT_RETRY_POLICY.max_retries + 1);
    expect(waits).toHaveLength(DEFAULT_RETRY_POLICY.max_retries);
    expect(Math.max(...waits)).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.max_delay_ms);
  });

  it('a 400 is never retried', async () => {
    const { server, provider } = await openai([{ status: 400, body: { error: { message: 'bad request' } } }, OK]);
    const { policy, waits } = instant();
    const err = await providerError(withRetries(provider, policy, () => undefined).complete(request()));
    expect(err.code).toBe('bad_response');
    expect(server.chatRequests()).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('the wait before a retry ends when the run is cancelled, and no further call is made', async () => {
    const { server, provider } = await openai([{ status: 503, body: { error: 'busy' }, headers: { 'retry-after': '30' } }, OK]);
    const controller = new AbortController();
    const retrying = withRetries(provider, { ...DEFAULT_RETRY_POLICY }, () => controller.abort());
    const err = await providerError(retrying.complete(request({ signal: controller.signal })));
    expect(err.code).toBe('cancelled');
    expect(server.chatRequests()).toHaveLength(1);
  });
});
