import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import { ModelRef, ModelUrl } from '@shared/contracts/model';
import { localityOf, LOCAL_ONLY } from '@shared/policy/privacy';
import { SecretRegistry } from '../credentials/secret-registry';
import { prepareRun } from '../engine/run-setup';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';
import { startFakeOpenAI, type FakeOpenAI } from '../../test-support/fake-openai';
import { parseEndpoint, pinnedFetch } from './endpoint';
import { ProviderError } from './provider';
import { resolveProvider } from './resolve-provider';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (servers.length) await servers.pop()?.close();
});

/** Pieces of URLs that parsers are known to read differently, and ordinary ones between them. */
const PIECES = ['http://', 'https://', 'HTTP://', '127.0.0.1', 'localhost', 'LOCALHOST', 'evil.com', '@', '\\', '#', ':', '11434', '443', '80', '/', '.', '0x7f', '0177', '2130706433', '1', '[::1]', '[::ffff:7f00:1]', '%2e', '?', 'a=b', '&', '\t', ' ', '[', ']', 'v1', 'my_box', 'xn--', '-'];
const hostileUrls = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 9 }).map((parts) => parts.join(''));
const webUrls = fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withIPv4: true, withIPv6: true, withIPv4Extended: true, withUserInfo: true, withPort: true } });
const anyUrl = fc.oneof(hostileUrls, webUrls, webUrls.map((u) => u.replace(/^https?:\/\/[^/?#]*/, (a) => a.replace(/\/\/.*/, '//127.0.0.1'))));
const accepted = (url: string) => ModelUrl.safeParse(url).success;
const openaiRef = (base_url: string) => ({ provider: 'openai_compatible', base_url, model: 'm', mode: 'structured', timeout_ms: 2000 }) as const;

describe('the shared locality check and the host’s URL object agree', () => {
  it('for every URL the schema accepts, the host’s `new URL` reads the same host and the same locality', () => {
    const sample = fc.sample(anyUrl, { numRuns: 3000, seed: 7 }).filter(accepted);
    expect(sample.length).toBeGreaterThan(100); // the property below is not vacuous
    fc.assert(
      fc.property(anyUrl, (url) => {
        if (!accepted(url)) return;
        const host = parseEndpoint(url);
        expect(host.ok).toBe(true);
        if (!host.ok) return;
        const shared = localityOf(openaiRef(url));
        expect(shared.local).toBe(host.endpoint.local);
        if (!shared.local) expect(shared.host).toBe(host.endpoint.host);
      }),
      { numRuns: 5000 },
    );
  });

  it('for every URL the schema refuses, the host refuses it too', () => {
    fc.assert(
      fc.property(anyUrl, (url) => {
        if (accepted(url)) return;
        expect(parseEndpoint(url).ok).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });
});

const ask = { role: 'student' as const, messages: [{ role: 'user' as const, content: 'hello' }] };
const HOSTILE = (port: number) => [
  `http://evil.invalid\\@127.0.0.1:${port}/`,
  `http://evil.invalid:${port}#@127.0.0.1:${port}`,
  `http://127.0.0.1:${port}@evil.invalid/`,
  `http://localhost.:${port}/`,
  ` http://evil.invalid:${port}`,
  `http://evil.invalid\t@127.0.0.1:${port}/`,
];

/** Every host a real fetch was asked to reach during `fn` (the global fetch, observed, still doing the work). */
async function hostsReached(fn: () => Promise<unknown>): Promise<{ hosts: string[]; error: unknown }> {
  const real = globalThis.fetch;
  const hosts: string[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    hosts.push(new URL(input instanceof Request ? input.url : String(input)).host);
    return real(input, init);
  });
  try {
    await fn();
    return { hosts, error: undefined };
  } catch (error) {
    return { hosts, error };
  }
}

function specWith(models: Record<'student' | 'teacher', unknown>): AgentSpec {
  const spec = AgentSpec.parse({ format: 'steward/v1', kind: 'agent', id: 'probe', name: 'Probe', instructions: 'Be brief.', task: 'Say hello.' });
  // The models as they could arrive without the schema (an app-wide setting, a hand-built ref).
  return { ...spec, models: models as AgentSpec['models'] };
}

describe('a hostile model address never causes a request to a host the policy does not allow', () => {
  it('as the app’s Ollama address (OLLAMA_HOST): refused before any request, with what is wrong', async () => {
    const fake: FakeOllama = await startFakeOllama({ models: [{ name: 'm' }], chat: () => ({ message: { content: 'hi' } }) });
    servers.push(fake);
    const port = Number(new URL(fake.url).port);
    for (const ollamaHost of HOSTILE(port)) {
      const { hosts, error } = await hostsReached(async () => {
        const run = await prepareRun({ spec: specWith({ student: { provider: 'ollama', model: 'm', mode: 'structured', timeout_ms: 2000 }, teacher: { provider: 'script' } }), vars: {}, ollamaHost, secrets: new SecretRegistry() });
        await run.providers.student.complete(ask);
      });
      expect(hosts.filter((h) => !h.startsWith('127.0.0.1:') && !h.startsWith('localhost:')), ollamaHost).toEqual([]);
      expect(error, ollamaHost).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/the student model ollama:m is not called: its address/);
    }
    expect(fake.chatRequests()).toEqual([]);
  });

  it('as an OpenAI-compatible base_url: refused before any request, so neither the prompt nor the key leaves', async () => {
    const fake: FakeOpenAI = await startFakeOpenAI({ chat: () => ({ message: { content: 'hi' } }) });
    servers.push(fake);
    const port = Number(new URL(fake.url).port);
    for (const base_url of HOSTILE(port)) {
      const ref = { ...openaiRef(base_url), api_key: 'keychain:K' } as const;
      const { hosts, error } = await hostsReached(async () => resolveProvider(ref, 'teacher', { apiKeys: new Map([['keychain:K', 'sk-test-0123456789abcdef']]) }).complete(ask));
      expect(hosts, base_url).toEqual([]);
      expect(error, base_url).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/the teacher model .* is not called: its address/);
    }
    expect(fake.requests).toEqual([]);
  });

  it('an accepted address is reached exactly where the check said, and a remote one is refused unless listed', async () => {
    const fake: FakeOllama = await startFakeOllama({ models: [{ name: 'm' }], chat: () => ({ message: { content: 'hi' } }) });
    servers.push(fake);
    const port = new URL(fake.url).port;
    const ref = ModelRef.parse({ provider: 'ollama', model: 'm', host: `http://LOCALHOST:${port}/` });
    const { hosts, error } = await hostsReached(() => resolveProvider(ref, 'student', {}).complete(ask));
    expect(error).toBeUndefined();
    expect(hosts).toEqual([`localhost:${port}`]);
    expect(fake.chatRequests()).toHaveLength(1);

    const remote = ModelRef.parse({ provider: 'openai_compatible', model: 'm', base_url: 'https://api.example.com/v1' });
    expect(() => resolveProvider(remote, 'teacher', { privacy: LOCAL_ONLY })).toThrow(/would send this run's data to api\.example\.com/);
    expect(() => resolveProvider(remote, 'teacher', { privacy: { allowed_hosts: ['api.example.com'] } })).not.toThrow();
  });

  it('the Ollama client can only reach the checked origin: a request elsewhere is refused, and redirects are not followed', async () => {
    const parsed = parseEndpoint('http://127.0.0.1:11434');
    if (!parsed.ok) throw new Error(parsed.problem);
    const seen: (RequestInit | undefined)[] = [];
    const pinned = pinnedFetch(parsed.endpoint, (_input, init) => (seen.push(init), Promise.resolve(new Response('{}'))));
    await expect(pinned('http://evil.invalid:11434/api/chat')).rejects.toThrow(/another address than http:\/\/127\.0\.0\.1:11434/);
    await expect(pinned('http://127.0.0.1:11435/api/chat')).rejects.toThrow(ProviderError);
    await pinned('http://127.0.0.1:11434/api/chat', { method: 'POST' });
    expect(seen).toEqual([{ method: 'POST', redirect: 'manual' }]);
  });
});
