import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_REPLY_BYTES, OllamaModelRef, OpenAICompatibleModelRef } from '@shared/contracts/model';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';
import { providerError } from '../../test-support/provider-error';
import { startFakeOpenAI, type FakeOpenAI } from '../../test-support/fake-openai';
import { createOllamaProvider } from './ollama-provider';
import { createOpenAICompatibleProvider } from './openai-compatible-provider';
import type { ModelRequest } from './provider';

const MIB = 1024 * 1024;
const TEN_MB = 'x'.repeat(10 * 1000 * 1000);

let servers: Array<FakeOllama | FakeOpenAI> = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const request: ModelRequest = { role: 'student', messages: [{ role: 'user', content: 'Task: say a lot' }] };

async function ollama(content: string): Promise<FakeOllama> {
  const server = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], chat: () => ({ message: { content } }) });
  servers.push(server);
  return server;
}

async function openai(content: string): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({ chat: () => ({ message: { content } }) });
  servers.push(server);
  return server;
}

/** The server's connection-close is seen a moment after the client's abort. */
async function settled(server: FakeOllama | FakeOpenAI): Promise<void> {
  for (let i = 0; i < 100 && server.responses.every((r) => !r.finished && !r.closed_early); i += 1) await new Promise((r) => setTimeout(r, 10));
}

describe('a model reply is read up to max_reply_bytes, never further', () => {
  it('the default bound is 1 MiB', () => {
    expect(DEFAULT_MAX_REPLY_BYTES).toBe(MIB);
  });

  it('Ollama: a 10 MB reply fails as reply_too_large, and the server sees the connection closed long before it finished writing', async () => {
    const server = await ollama(TEN_MB);
    const provider = createOllamaProvider(OllamaModelRef.parse({ provider: 'ollama', model: 'qwen3:4b', host: server.url }), 'student');
    const err = await providerError(provider.complete(request));
    expect(err.code).toBe('reply_too_large');
    expect(err.message).toContain('1 MiB');
    expect(err.message).toContain('max_reply_bytes');
    await settled(server);
    const [written] = server.responses;
    expect(written?.body_bytes).toBeGreaterThan(10_000_000);
    expect(written?.closed_early).toBe(true);
    expect(written?.finished).toBe(false);
    // What the kernel's socket buffers took on top of the 1 MiB read: far from the whole body.
    expect(written?.bytes_written).toBeLessThan(0.6 * (written?.body_bytes ?? 0));
  });

  it('OpenAI-compatible: a 10 MB reply fails as reply_too_large, and the server sees the connection closed long before it finished writing', async () => {
    const server = await openai(TEN_MB);
    const provider = createOpenAICompatibleProvider(
      OpenAICompatibleModelRef.parse({ provider: 'openai_compatible', base_url: server.baseUrl, model: 'm' }),
      'student',
    );
    const err = await providerError(provider.complete(request));
    expect(err.code).toBe('reply_too_large');
    expect(err.message).toContain('max_reply_bytes');
    await settled(server);
    const [written] = server.responses;
    expect(written?.closed_early).toBe(true);
    // What the kernel's socket buffers took on top of the 1 MiB read: far from the whole body.
    expect(written?.bytes_written).toBeLessThan(0.6 * (written?.body_bytes ?? 0));
  });

  it('a raised max_reply_bytes lets a long reply through whole; a lowered one stops a short one', async () => {
    const long = 'y'.repeat(2 * MIB);
    const server = await openai(long);
    const at = (max: number) =>
      createOpenAICompatibleProvider(
        OpenAICompatibleModelRef.parse({ provider: 'openai_compatible', base_url: server.baseUrl, model: 'm', max_reply_bytes: max }),
        'student',
      );
    expect((await at(4 * MIB).complete(request)).text).toHaveLength(long.length);
    const err = await providerError(at(64 * 1024).complete(request));
    expect(err.code).toBe('reply_too_large');
    expect(err.message).toContain('64 KiB');
  });

  it('max_reply_bytes has an upper bound', () => {
    expect(OllamaModelRef.safeParse({ provider: 'ollama', model: 'm', max_reply_bytes: 1024 * MIB }).success).toBe(false);
    expect(OllamaModelRef.safeParse({ provider: 'ollama', model: 'm', max_reply_bytes: 16 * MIB }).success).toBe(true);
  });
});
