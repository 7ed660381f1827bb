import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from './create-host';
import { hostPage } from '../../test-support/host-session';

/**
 * A machine with no Secret Service, as a new user's may be: the host's real OS keychain store (no
 * `credentials` option) on a session bus that does not exist. Each test file runs in its own process
 * (vitest forks), and the keychain library connects on first use, so pointing the bus away here,
 * before any host opens, is what that machine looks like.
 */
beforeAll(() => {
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/steward-no-secret-service';
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function startHost() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-no-keychain-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const logs: string[] = [];
  const host = await createHost({ dataDir, shell: 'browser', log: (line) => logs.push(line) });
  cleanups.push(() => host.close());
  return { logs, ...hostPage(host) };
}

/** What a person must never be shown: the keychain library's and the bus's internals. */
const INTERNALS = /zbus|d-?bus|unix:path|os error|\bat .+:\d+:\d+/i;

describe.runIf(process.platform === 'linux')('a host on a machine without a Secret Service', () => {
  it('answers credentials.list with no names and why, in words, so a page knows at load; the terminal gets one plain line, not a stack per request', async () => {
    const h = await startHost();
    const first = await h.ok('credentials.list', {});
    expect(first.credentials).toEqual([]);
    expect(first.unavailable).toMatch(/^There is no keychain on this computer that Steward can use: it needs a Secret Service/);
    expect(first.unavailable).not.toMatch(INTERNALS);
    // Pages list credentials often (settings, the server form, the supervision panel).
    expect(await h.ok('credentials.list', {})).toEqual(first);
    const said = h.logs.filter((l) => /keychain/i.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^Credentials are unavailable: The OS keychain is not reachable/);
    expect(said[0]).not.toContain('\n');
    expect(h.logs.join('\n')).not.toMatch(/host error|\n\s+at /);
  });

  it('refuses to store a credential at once, in the same words, before anyone is asked for an approval code', async () => {
    const h = await startHost();
    const frame = await h.call('credentials.set', { name: 'openai', value: 'sk-never-stored-1234' });
    expect(frame).toMatchObject({ ok: false, error: { code: 'host_error' } });
    const message = frame.ok ? '' : frame.error.message;
    expect(message).toMatch(/^There is no keychain on this computer that Steward can use/);
    expect(message).not.toMatch(INTERNALS);
    // No approval was asked (the browser shell prints its code to the terminal) and nothing waits for one.
    expect(h.logs.join('\n')).not.toMatch(/code|approve/i);
    expect(h.logs.join('\n')).not.toContain('sk-never-stored-1234');
    expect(h.logs.every((l) => !l.includes('\n'))).toBe(true);
  });

  it('any other keychain call that fails (deleting a credential) gets the same words, and one line in the terminal', async () => {
    const h = await startHost();
    const frame = await h.call('credentials.delete', { name: 'openai' });
    expect(frame).toMatchObject({ ok: false, error: { code: 'host_error' } });
    expect(frame.ok ? '' : frame.error.message).toMatch(/^There is no keychain on this computer that Steward can use/);
    expect(h.logs).toHaveLength(1);
    expect(h.logs[0]).toMatch(/^credentials\.delete: The OS keychain is not reachable .*could not delete credential openai$/);
  });
});
