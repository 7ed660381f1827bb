import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../test-support/fake-openai';
import { parseEndpoint, type ModelEndpoint } from './endpoint';
import { checkReachable } from './reachability';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function endpoint(address: string): ModelEndpoint {
  const parsed = parseEndpoint(address);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.endpoint;
}

/** Accepts connections and never answers. */
async function silentServer(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as net.AddressInfo).port;
}

describe('the reachability check before round 1', () => {
  it('a server that accepts but stays silent past the timeout is unreachable, with the time and what to do', async () => {
    const port = await silentServer();
    const address = `http://127.0.0.1:${port}`;
    const result = await checkReachable({ provider: 'ollama', model: 'qwen3:4b', host: address, mode: 'structured', timeout_ms: 120_000 }, 'student', endpoint(address), { timeoutMs: 150 });
    expect(result).toEqual({ ok: false, message: `the student model ollama:qwen3:4b is not reachable: ${address} did not answer within 150 ms — start Ollama (\`ollama serve\`) or check the address` });
  });

  it('a server that answers with an error status is reachable: the key and the model are the call\'s to judge', async () => {
    const server = await startFakeOpenAI({ api_key: 'sk-right' });
    cleanups.push(() => server.close());
    const ref = { provider: 'openai_compatible', model: 'm', base_url: `${server.baseUrl}?api-version=2024-01`, api_key: 'keychain:k', mode: 'structured', timeout_ms: 120_000 } as const;
    const result = await checkReachable(ref, 'teacher', endpoint(ref.base_url));
    expect(result).toEqual({ ok: true });
    // Sent to the base URL's /models, its query kept, and without any key.
    expect(server.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([['GET', '/v1/models', undefined]]);
  });

  it('a cancelled check is no verdict: the run sees its own cancellation', async () => {
    const port = await silentServer();
    const address = `http://127.0.0.1:${port}`;
    const controller = new AbortController();
    const pending = checkReachable({ provider: 'ollama', model: 'qwen3:4b', host: address, mode: 'structured', timeout_ms: 120_000 }, 'student', endpoint(address), { signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ ok: true });
  });
});
