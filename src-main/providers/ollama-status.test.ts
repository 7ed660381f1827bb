import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderStatus } from '@shared/contracts/host-api';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';
import { getOllamaModelCapabilities, getOllamaStatus } from './ollama-status';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const OllamaStatusShape = ProviderStatus.shape.ollama;

describe('Ollama status', () => {
  it('a reachable Ollama reports its version and installed models with family and size class', async () => {
    fake = await startFakeOllama({
      version: '0.12.6',
      models: [
        { name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', size: 2_500_000_000 },
        { name: 'llama3.2:1b', family: 'llama', parameter_size: '1.2B', size: 1_300_000_000 },
      ],
    });
    const status = await getOllamaStatus(fake.url);
    expect(OllamaStatusShape.parse(status)).toEqual(status);
    expect(status).toEqual({
      host: fake.url,
      reachable: true,
      version: '0.12.6',
      models: [
        { name: 'qwen3:4b', family: 'qwen3', parameter_size: '4.0B', size: 2_500_000_000 },
        { name: 'llama3.2:1b', family: 'llama', parameter_size: '1.2B', size: 1_300_000_000 },
      ],
    });
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
});
