import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { OpenAIProviderItem } from './OpenAIProviderItem';
import type { OpenAIServerOptions } from './model-options';

const template = { provider: 'openai_compatible', base_url: 'http://127.0.0.1:8080/v1', model: 'qwen', mode: 'structured', api_key: 'keychain:lab-key', timeout_ms: 120_000 } as OpenAIServerOptions['template'];
const render = (status: OpenAIServerOptions['status']) => renderToString(<OpenAIProviderItem server={{ template, status }} />);

describe("the sidebar's OpenAI-compatible provider line", () => {
  it('says a reachable server is reachable and lists its models, never naming the key', () => {
    const html = render({ base_url: 'http://127.0.0.1:8080/v1', reachable: true, allowed: true, models: [{ id: 'qwen' }, { id: 'llama' }] });
    expect(html).toContain('127.0.0.1:8080 (OpenAI-compatible)');
    expect(html).toContain('data-reachable="true"');
    expect(html).toContain('reachable · 2 models');
    expect(html).toContain('<code>llama</code>');
    expect(html).not.toContain('lab-key');
  });

  it("says an unreachable server is not reachable with the host's message on what to do", () => {
    const html = render({ base_url: 'http://127.0.0.1:8080/v1', reachable: false, allowed: true, models: [], error: 'nothing answers at http://127.0.0.1:8080/v1 — start the server' });
    expect(html).toContain('data-reachable="false"');
    expect(html).toContain('not reachable');
    expect(html).toContain('start the server');
    expect(html).toContain('dot--off');
    expect(html).not.toContain('lab-key');
  });

  it('says a server that answers but refuses the key is reachable but not usable, and why', () => {
    const html = render({ base_url: 'http://127.0.0.1:8080/v1', reachable: true, allowed: true, models: [], error: 'the server refused the key (HTTP 401) — check it in Settings › Credentials' });
    expect(html).toContain('reachable, but not usable');
    expect(html).toContain('Settings › Credentials');
    expect(html).toContain('dot--off');
  });

  it('says it is checking before the host answers, and not checked when the host could not be asked', () => {
    expect(render(undefined)).toContain('checking…');
    const failed = render({ error: 'could not ask the host: not connected' });
    expect(failed).toContain('not checked');
    expect(failed).toContain('could not ask the host: not connected');
    expect(failed).toContain('data-reachable="unknown"');
  });
});
