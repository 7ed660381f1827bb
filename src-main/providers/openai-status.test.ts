import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../test-support/fake-openai';
import { closedPort } from '../../test-support/closed-port';
import { getOpenAIStatus, readApiKey } from './openai-status';

// The server in these tests is the fake OpenAI-compatible server (TEST DOUBLE at the model boundary).

const fakes: FakeOpenAI[] = [];
afterEach(async () => {
  while (fakes.length) await fakes.pop()?.close();
});
async function fake(options: Parameters<typeof startFakeOpenAI>[0] = {}): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(options);
  fakes.push(server);
  return server;
}

const LOCAL_ONLY = { allowed_hosts: [] };

describe('an OpenAI-compatible server’s health and model list (as Ollama has)', () => {
  it('a healthy server lists its models; the key goes along as a bearer token', async () => {
    const server = await fake({ models: ['qwen2.5-7b-instruct', 'llama-3.1-8b'], api_key: 'sk-right-0123456789' });
    const status = await getOpenAIStatus({ base_url: server.baseUrl, api_key: 'keychain:local' }, { apiKey: 'sk-right-0123456789', privacy: LOCAL_ONLY });
    expect(status).toEqual({ base_url: server.baseUrl, reachable: true, allowed: true, models: [{ id: 'qwen2.5-7b-instruct', owned_by: 'fake-openai' }, { id: 'llama-3.1-8b', owned_by: 'fake-openai' }] });
    expect(server.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([['GET', '/v1/models', 'Bearer sk-right-0123456789']]);
  });

  it('nobody listening is unreachable, with what to do', async () => {
    const base = `http://127.0.0.1:${await closedPort()}/v1`;
    const status = await getOpenAIStatus({ base_url: base }, { privacy: LOCAL_ONLY });
    expect(status).toMatchObject({ reachable: false, allowed: true, models: [] });
    expect(status.error).toBe(`Nothing answers at ${base} (ECONNREFUSED) — start the server, or check the base URL and its port`);
  });

  it('a refused key (401) is reachable, names the key by reference and never repeats what the server quoted', async () => {
    const planted = 'sk-planted-9f8e7d6c5b4a39281706';
    const server = await fake({ models: ['m'], api_key: 'sk-the-right-one-0000000000' });
    const status = await getOpenAIStatus({ base_url: server.baseUrl, api_key: 'keychain:work' }, { apiKey: planted, privacy: LOCAL_ONLY });
    expect(status).toMatchObject({ reachable: true, allowed: true, models: [] });
    expect(status.error).toBe(`${server.baseUrl} refused the API key keychain:work (HTTP 401) — update it with \`steward credentials set work\` or in Settings › Credentials`);
    expect(JSON.stringify(status)).not.toContain(planted);
    const none = await getOpenAIStatus({ base_url: server.baseUrl }, { privacy: LOCAL_ONLY });
    expect(none.error).toMatch(/wants an API key \(HTTP 401\) — store it in Settings › Credentials/);
  });

  it('a probe makes one tiny call in the model’s mode: a model the server serves answers; a missing one says how to find the right id', async () => {
    const server = await fake({ models: ['small'], chat: () => ({ message: { content: '{"ok": true}' } }) });
    const ok = await getOpenAIStatus({ base_url: server.baseUrl, probe: { model: 'small', mode: 'structured' } }, { privacy: LOCAL_ONLY });
    expect(ok.probe).toMatchObject({ ok: true, model: 'small', mode: 'structured', message: expect.stringMatching(/^small answered in \d+ ms \(structured output\)$/) });
    expect(server.chatRequests()[0]).toMatchObject({ model: 'small', response_format: { type: 'json_schema' } });

    const missing = await getOpenAIStatus({ base_url: server.baseUrl, probe: { model: 'big', mode: 'tools' } }, { privacy: LOCAL_ONLY });
    expect(missing.models.map((m) => m.id)).toEqual(['small']);
    expect(missing.probe).toMatchObject({ ok: false, model: 'big', message: expect.stringContaining('model "big" is not available') });
  });

  it('a cloud host the privacy policy does not list is sent nothing, not even the check', async () => {
    const status = await getOpenAIStatus(
      { base_url: 'https://api.example.com/v1', api_key: 'keychain:cloud' },
      { apiKey: 'sk-never-sent-0123456789', privacy: LOCAL_ONLY, fetch: () => Promise.reject(new Error('no request may be made')) },
    );
    expect(status).toEqual({
      base_url: 'https://api.example.com/v1',
      reachable: false,
      allowed: false,
      models: [],
      error: 'api.example.com is not allowed by the privacy policy, so Steward sends it nothing (not even this check) — allow it in Settings › Privacy, or use a local server',
    });
  });

  it('a key missing from the keychain is said by reference, and nothing is called', async () => {
    const store = { get: async (name: string) => (name === 'there' ? 'sk-value-0123456789' : undefined) };
    expect(await readApiKey(store, 'keychain:there')).toEqual({ apiKey: 'sk-value-0123456789' });
    const { keyProblem } = await readApiKey(store, 'keychain:gone');
    expect(keyProblem).toBe('The API key keychain:gone is not in the keychain — add it in Settings › Credentials (or `steward credentials set gone`)');
    const server = await fake({ models: ['m'] });
    const status = await getOpenAIStatus({ base_url: server.baseUrl, api_key: 'keychain:gone' }, { keyProblem, privacy: LOCAL_ONLY });
    expect(status).toMatchObject({ reachable: false, allowed: true, error: keyProblem });
    expect(server.requests).toEqual([]);
  });
});
