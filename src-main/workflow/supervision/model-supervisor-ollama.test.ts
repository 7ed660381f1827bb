import { afterEach, describe, expect, it } from 'vitest';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { startFakeOllama, type FakeChatResult, type FakeOllama } from '../../../test-support/fake-ollama';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { FetchFn } from '../../providers/http-call';
import { resolveSupervision } from './resolve-supervision';
import { RunSupervision, type FailedInvocation } from './supervise-failure';

/**
 * The model supervisor on the real Ollama provider and client, over HTTP to the fake Ollama server
 * (the test double at the model boundary): the step schema goes out as Ollama's `format`, the
 * verdict comes back as the reply's JSON, and the decision timeout aborts the HTTP request.
 */

const servers: FakeOllama[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()?.close();
});

async function ollamaSupervised(chat: (index: number) => FakeChatResult) {
  const server = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], chat: (_r, i) => chat(i) });
  servers.push(server);
  const graph = { supervisor: SupervisorSettings.parse({ enabled: true, who: { kind: 'model', model: { provider: 'ollama', model: 'qwen3:4b', host: server.url }, decision_timeout_ms: 1000 } }) };
  // The real fetch, its request signals kept: an aborted call shows as an aborted signal.
  const signals: AbortSignal[] = [];
  const fetch: FetchFn = (input, init) => {
    if (init?.signal) signals.push(init.signal);
    return globalThis.fetch(input, init);
  };
  const supervision = await resolveSupervision({ graph }, { fetch });
  if (!supervision || 'unavailable' in supervision.supervisor) throw new Error('expected a model supervisor');
  const run = new RunSupervision({ settings: supervision.settings, supervisor: supervision.supervisor, secrets: new SecretRegistry(), validate: async () => ({ ok: true }) });
  return { server, run, identity: supervision.supervisor.identity, signals };
}

const failed: FailedInvocation = {
  invocation: { id: 'fetch[each=2]', node: 'fetch', lineage: [{ iterate: 'each', index: 2 }], inputs: {} },
  failure: { code: 'tool_error', message: 'HTTP 404 for item 2' },
  http_status: 404,
  attempt: 1,
  retry_safe: false,
  spent_usd: 0,
  created_assets: [],
  validator_covers_output: false,
  streaming: false,
  emitted: false,
};

describe('a model supervisor on Ollama (fake Ollama server)', () => {
  it('sends the step schema as format, reads the verdict from the reply, costs nothing (local)', async () => {
    const { server, run, identity, signals } = await ollamaSupervised(() => ({ message: { content: JSON.stringify({ step: 'verdict', verdict: { action: 'skip', reason: 'the page is gone (404)' } }) } }));
    expect(identity).toEqual({ kind: 'model', label: 'ollama:qwen3:4b', local: true });
    const result = await run.superviseFailure(failed, new AbortController().signal);
    expect(result.verdict).toMatchObject({ decided_by: 'agent', cost_usd: 0, verdict: { action: 'skip', reason: 'the page is gone (404)' } });
    const [request] = server.chatRequests();
    expect(request?.format).toMatchObject({ properties: { verdict: { properties: { action: { enum: ['skip', 'fail'] } } } } });
    expect(request?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request?.messages[1]?.content).toContain('"http_status":404');
    // An answered call is not aborted (so an aborted signal below means the timeout stopped it).
    expect(signals.some((s) => s.aborted)).toBe(false);
  });

  it('a supervisor that does not answer in time: the HTTP request is aborted and the node fails (decided_by default)', async () => {
    const { server, run, signals } = await ollamaSupervised(() => ({ message: { content: '{}' }, delay_ms: 60_000 }));
    // The fake would answer after a minute: the test's own timeout (20 s) fails it if the decision waited for that.
    const result = await run.superviseFailure(failed, new AbortController().signal);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail' } });
    // The request reached the server, and its signal was aborted before the fake answered.
    expect(server.chatRequests()).toHaveLength(1);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((s) => s.aborted)).toBe(true);
  }, 20_000);
});
