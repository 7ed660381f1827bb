import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../composition/create-host';
import { hostPage } from '../../test-support/host-session';
import { plantedKeychain } from '../../test-support/planted-keychain';
import { startFakeOpenAI } from '../../test-support/fake-openai';

/**
 * providers.openai_status through the host, as a page calls it: the key is planted in the real OS
 * keychain, the page names it only (keychain:NAME), the host reads it and sends it to the fake
 * OpenAI-compatible server (TEST DOUBLE at the model boundary) — which, refusing it, quotes it back
 * in full as some servers do. The key reaches the server and nothing else: not the page, not the log.
 */
const { hasSessionBus, store, planted: PLANTED, plant } = plantedKeychain();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe.skipIf(!hasSessionBus)('an OpenAI-compatible key in the status check (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('is resolved on the host only: the server gets it, the page’s answers and the host’s log never hold it', async () => {
    await plant(PLANTED);
    const right = await startFakeOpenAI({ models: ['local-7b'], api_key: PLANTED });
    const wrong = await startFakeOpenAI({ models: ['local-7b'], api_key: 'sk-another-key-0000000000' });
    cleanups.push(() => right.close(), () => wrong.close());
    const dir = mkdtempSync(join(tmpdir(), 'steward-openai-status-'));
    const lines: string[] = [];
    const host = await createHost({ dataDir: dir, shell: 'browser', credentials: store, log: (line) => lines.push(line) });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => host.close());
    const page = hostPage(host);

    const frames = [
      await page.call('providers.openai_status', { base_url: right.baseUrl, api_key: 'keychain:planted-token' }),
      await page.call('providers.openai_status', { base_url: wrong.baseUrl, api_key: 'keychain:planted-token', probe: { model: 'local-7b', mode: 'structured' } }),
      await page.call('providers.openai_status', { base_url: right.baseUrl, api_key: 'keychain:not-stored' }),
    ];
    const [ok, refused, missing] = frames.map((f) => (f.ok ? (f.result as { reachable: boolean; models: { id: string }[]; error?: string }) : undefined));
    expect(ok).toMatchObject({ reachable: true, models: [{ id: 'local-7b' }] });
    expect(refused?.error).toContain('refused the API key keychain:planted-token (HTTP 401)');
    expect(missing?.error).toContain('keychain:not-stored is not in the keychain');

    // Where the key went: to both servers, as a bearer token, and nowhere else.
    expect(right.requests.map((r) => r.authorization)).toEqual([`Bearer ${PLANTED}`]);
    expect(wrong.requests.map((r) => r.authorization)).toEqual([`Bearer ${PLANTED}`]);
    const seenByPage = JSON.stringify(frames);
    expect(seenByPage).not.toContain(PLANTED);
    expect(seenByPage).not.toContain(PLANTED.slice(8, 24));
    expect(lines.join('\n')).not.toContain(PLANTED.slice(8, 24));
  });
});
