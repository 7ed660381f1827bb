import { afterEach, describe, expect, it } from 'vitest';
import { ProviderStatus } from '@shared/contracts/host-api';
import { closedPort } from '../../test-support/closed-port';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';
import { createCapabilityCache, getOllamaModelCapabilities, getOllamaStatus } from './ollama-status';
import { unreachableMessage } from './ollama-call';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const OllamaStatusShape = ProviderStatus.shape.ollama;

/** The models `show` was asked about, in arrival order. */
const showsOf = (server: FakeOllama): string[] =>
  server.requests.filter((r) => r.path === '/api/show').map((r) => String((r.body as { model?: unknown } | undefined)?.model));

describe('Ollama status', () => {
  it('a reachable Ollama reports its version and installed models with family, size class and capabilities', async () => {
    fake = await startFakeOllama({
      version: '0.12.6',
      models: [
        { name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', size: 2_500_000_000, capabilities: ['completion', 'tools', 'thinking'] },
        { name: 'llama3.2:1b', family: 'llama', parameter_size: '1.2B', size: 1_300_000_000, capabilities: ['completion'] },
      ],
    });
    const status = await getOllamaStatus(fake.url, { capabilityCache: createCapabilityCache() });
    expect(OllamaStatusShape.parse(status)).toEqual(status);
    expect(status).toEqual({
      host: fake.url,
      reachable: true,
      version: '0.12.6',
      models: [
        { name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', size: 2_500_000_000, capabilities: ['completion', 'tools', 'thinking'] },
        { name: 'llama3.2:1b', family: 'llama', parameter_size: '1.2B', size: 1_300_000_000, capabilities: ['completion'] },
      ],
    });
    expect(showsOf(fake).sort()).toEqual(['llama3.2:1b', 'qwen3:4b']);
  });

  it('a second status call does not ask `show` again for models that did not change', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b', capabilities: ['completion', 'tools'] }, { name: 'gemma3:1b' }] });
    const capabilityCache = createCapabilityCache();
    const first = await getOllamaStatus(fake.url, { capabilityCache });
    const second = await getOllamaStatus(fake.url, { capabilityCache });
    expect(showsOf(fake).sort()).toEqual(['gemma3:1b', 'qwen3:4b']);
    expect(fake.requests.filter((r) => r.path === '/api/tags')).toHaveLength(2);
    expect(second).toEqual(first);
    expect(second.models.map((m) => m.capabilities)).toEqual([['completion', 'tools'], ['completion']]);
  });

  it('a model whose digest changed (re-pulled) is asked again; the others are not', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b', capabilities: ['completion', 'tools'] }, { name: 'gemma3:1b' }] });
    let qwenDigest = 'sha256:before';
    // Ollama's answer after `ollama pull qwen3:4b` brought a new build: only its digest changes.
    const repulled: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).endsWith('/api/tags')) return res;
      const tags = (await res.json()) as { models: { name: string; digest: string }[] };
      for (const m of tags.models) if (m.name === 'qwen3:4b') m.digest = qwenDigest;
      return new Response(JSON.stringify(tags), { status: res.status, headers: { 'content-type': 'application/json' } });
    };
    const capabilityCache = createCapabilityCache();
    await getOllamaStatus(fake.url, { fetch: repulled, capabilityCache });
    qwenDigest = 'sha256:after';
    await getOllamaStatus(fake.url, { fetch: repulled, capabilityCache });
    expect(showsOf(fake).sort()).toEqual(['gemma3:1b', 'qwen3:4b', 'qwen3:4b']);
  });

  it('a failed `show` leaves that model’s capabilities absent, never fails the status, and is asked again next time', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b', capabilities: ['completion', 'tools'] }, { name: 'broken:1b' }] });
    // Ollama failing to describe one model (e.g. a damaged manifest) with its usual error shape.
    let brokenAsked = 0;
    const brokenShow: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/api/show') && String(init?.body).includes('broken:1b')) {
        brokenAsked += 1;
        return new Response(JSON.stringify({ error: 'failed to read manifest' }), { status: 500, headers: { 'content-type': 'application/json' } });
      }
      return fetch(input, init);
    };
    const capabilityCache = createCapabilityCache();
    const status = await getOllamaStatus(fake.url, { fetch: brokenShow, capabilityCache });
    expect(OllamaStatusShape.parse(status)).toEqual(status);
    expect(status.reachable).toBe(true);
    expect(status.error).toBeUndefined();
    expect(status.models.map((m) => [m.name, m.capabilities])).toEqual([
      ['qwen3:4b', ['completion', 'tools']],
      ['broken:1b', undefined],
    ]);
    expect(status.models[1]).not.toHaveProperty('capabilities');
    await getOllamaStatus(fake.url, { fetch: brokenShow, capabilityCache });
    expect(brokenAsked).toBe(2);
    expect(showsOf(fake)).toEqual(['qwen3:4b']);
  });

  it('a `show` slower than its short timeout leaves capabilities absent and the status still answers', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b', capabilities: ['completion', 'tools'] }] });
    // A show that never answers (Ollama busy loading a model); the signal is what ends it.
    const hangingShow: typeof fetch = (input, init) => {
      if (!String(input).endsWith('/api/show')) return fetch(input, init);
      return new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
      });
    };
    const status = await getOllamaStatus(fake.url, { fetch: hangingShow, showTimeoutMs: 50, capabilityCache: createCapabilityCache() });
    expect(status.reachable).toBe(true);
    expect(status.models.map((m) => m.name)).toEqual(['qwen3:4b']);
    expect(status.models[0]).not.toHaveProperty('capabilities');
  });

  it('an Ollama with no models is reachable with an empty list', async () => {
    fake = await startFakeOllama({ models: [] });
    const status = await getOllamaStatus(fake.url);
    expect(status.reachable).toBe(true);
    expect(status.models).toEqual([]);
    expect(status.error).toBeUndefined();
  });

  it('an unreachable Ollama is reported, not thrown, with what to do about it', async () => {
    const port = await closedPort();
    const host = `http://127.0.0.1:${port}`;
    const status = await getOllamaStatus(host);
    expect(OllamaStatusShape.parse(status)).toEqual(status);
    expect(status.reachable).toBe(false);
    expect(status.models).toEqual([]);
    expect(status.error).toContain(`Ollama is not reachable at ${host}`);
    expect(status.error).toContain('ollama serve');
  });

  it('an Ollama that does not answer within the status timeout is reported unreachable', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], latency_ms: 60_000 });
    const status = await getOllamaStatus(fake.url, { timeoutMs: 100 });
    expect(status.reachable).toBe(false);
    expect(status.error).toContain('did not answer within 100 ms');
  });

  it('an address that is not a URL is reported, not thrown', async () => {
    const status = await getOllamaStatus('http://exa mple:11434');
    expect(status.reachable).toBe(false);
    expect(status.error).toContain('is not a valid Ollama address');
  });

  it('a password in the Ollama address is never shown: not in the status host, not in its error', async () => {
    const port = await closedPort();
    const secret = 'sk-proj-Q7wE9rT2yU4iO6pA8sD0fG1h';
    for (const host of [`http://me:${secret}@127.0.0.1:${port}`, `http://127.0.0.1:${port}/?key=${secret}`, `me:${secret}@127.0.0.1:${port}`]) {
      const status = await getOllamaStatus(host);
      expect(status.reachable).toBe(false);
      expect(JSON.stringify(status)).not.toContain(secret);
      expect(status.error).toMatch(/not a valid Ollama address.*(user name or password|secret)/);
      expect(unreachableMessage(host)).not.toContain(secret);
      const shown = await getOllamaModelCapabilities(host, 'qwen3:4b');
      expect(JSON.stringify(shown)).not.toContain(secret);
    }
  });

  it('an OLLAMA_HOST written without a scheme is completed as the ollama client does (http, port 11434)', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b' }] });
    const status = await getOllamaStatus(fake.url.replace('http://', ''), { capabilityCache: createCapabilityCache() });
    expect(status).toMatchObject({ host: fake.url, reachable: true });
  });

  it('model capabilities come from `show`; a missing model says how to install it', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', capabilities: ['completion', 'tools', 'thinking'] }] });
    expect(await getOllamaModelCapabilities(fake.url, 'qwen3:4b')).toEqual({
      ok: true,
      model: 'qwen3:4b',
      capabilities: ['completion', 'tools', 'thinking'],
      family: 'qwen3',
      parameter_size: '4.0B',
    });
    expect(await getOllamaModelCapabilities(fake.url, 'gemma3:1b')).toEqual({
      ok: false,
      model: 'gemma3:1b',
      error: 'model "gemma3:1b" is not installed in Ollama — run `ollama pull gemma3:1b`',
    });
  });

  it('an Ollama that does not report capabilities (before 0.6) gives "unknown", not an empty list', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b' }] });
    const oldOllama: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).endsWith('/api/show')) return res;
      const { capabilities: _dropped, ...rest } = (await res.json()) as Record<string, unknown>;
      return new Response(JSON.stringify(rest), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const shown = await getOllamaModelCapabilities(fake.url, 'qwen3:4b', { fetch: oldOllama });
    expect(shown.ok).toBe(false);
    const status = await getOllamaStatus(fake.url, { fetch: oldOllama, capabilityCache: createCapabilityCache() });
    expect(status.models[0]).not.toHaveProperty('capabilities');
  });
});
