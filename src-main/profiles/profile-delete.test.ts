import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_METHODS } from '@shared/contracts/host-api';
import type { SyncedProfile } from '@shared/contracts/profile-store';
import { hostedEcho } from '../../test-support/echo-workflow';
import { hostPage, openTestHost } from '../../test-support/host-session';

/** Issue 28: a profile a person made can be deleted, unless a workflow or a run uses it (and then the host says which). */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-profile-delete-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The host's answer as the page reads it: checked against the contract, as the page's client does. */
async function remove(page: ReturnType<typeof hostPage>, id: string) {
  return HOST_METHODS['profiles.delete'].result.parse(await page.ok('profiles.delete', { id }));
}

const trace = (id: string, name: string, version = 1): SyncedProfile => ({
  origin: 'user',
  profile: { kind: 'trace', id, name, version, created_at: `2026-11-0${version}T10:00:00.000Z`, description: '', trace: { include_tool_results: version % 2 === 1 } },
});

describe('deleting a profile on the host', () => {
  it('one nobody uses goes, every version, and stays gone: the list tells pages to drop it, a page that still holds it cannot save it back', async () => {
    const dir = dataDir();
    let host = await openTestHost(dir, cleanups);
    const page = hostPage(host);
    await page.ok('profiles.save', { profiles: [trace('spare', 'Spare'), trace('spare', 'Spare', 2), trace('kept', 'Kept')] });

    expect(await remove(page, 'spare')).toEqual({ deleted: true, versions: 2 });
    const listed = await page.ok('profiles.list', {});
    expect(listed.profiles.map((p) => p.profile.id)).toEqual(['kept']);
    expect(listed.deleted).toEqual([{ id: 'spare', deleted_at: expect.any(String) }]);

    // Another browser that never heard of the deletion pushes its copy: nothing is kept.
    expect(await page.ok('profiles.save', { profiles: [trace('spare', 'Spare')] })).toEqual({ added: 0, choices_taken: 0, conflicts: [] });
    await host.close();
    host = await openTestHost(dir, cleanups);
    expect((await hostPage(host).ok('profiles.list', {})).profiles.map((p) => p.profile.id)).toEqual(['kept']);
    expect(readFileSync(join(dir, 'profiles.json'), 'utf8')).not.toContain('"Spare"');
  });

  it('one a workflow’s choices name is refused, naming the workflow and what it is there; nothing is deleted', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const page = hostPage(host);
    await page.ok('workflows.save', { workflow: hostedEcho('echo') });
    await page.ok('profiles.save', {
      profiles: [trace('mine', 'Mine')],
      workflow_choices: [{ workflow_id: 'echo', profiles: { trace: { id: 'mine', version: 1 } }, supervision_enabled: true, updated_at: '2026-11-01T10:00:00.000Z' }],
    });
    expect(await remove(page, 'mine')).toEqual({
      deleted: false,
      reason: 'in_use',
      used_by: { workflows: [{ id: 'echo', name: 'Echo echo', kinds: ['trace'] }], runs: [], run_count: 0 },
    });
    expect((await page.ok('profiles.list', {})).profiles.map((p) => p.profile.id)).toEqual(['mine']);
  });

  it('one a run recorded is refused, naming the run; once the run is deleted the profile can go', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    await page.ok('workflows.save', { workflow: hostedEcho('echo') });
    await page.ok('profiles.save', { profiles: [trace('kept-a-run', 'Kept a run'), trace('kept', 'Kept')] });
    const { run_id } = await page.ok('workflows.run', { id: 'echo', inputs: { name: 'Ada' }, trace: { include_tool_results: true }, trace_profile: { id: 'kept-a-run', name: 'Kept a run', version: 1 } });
    await expect.poll(() => page.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);

    const refused = await remove(page, 'kept-a-run');
    expect(refused).toEqual({ deleted: false, reason: 'in_use', used_by: { workflows: [], runs: [{ run_id, name: 'Echo echo', started_at: expect.any(String) }], run_count: 1 } });
    // A profile whose id begins the recorded one's is not taken for it.
    expect(await remove(page, 'kept')).toEqual({ deleted: true, versions: 1 });

    await page.ok('runs.delete', { run_ids: [run_id] });
    expect(await remove(page, 'kept-a-run')).toEqual({ deleted: true, versions: 1 });
  });

  it('a built-in is never deleted', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    expect(await remove(hostPage(host), 'keep-everything')).toEqual({ deleted: false, reason: 'built_in' });
  });
});
