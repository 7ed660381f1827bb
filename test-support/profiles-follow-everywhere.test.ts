import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Host } from '../src-main/composition/host-types';
import { hostPage, inProcessTransport, openTestHost } from './host-session';
import { createHostClient } from '../src-renderer/host/host-client';
import { startHostSession } from '../src-renderer/host/host-session';
import { StewardDb } from '../src-renderer/db/db';
import { createProfile, saveNewVersion } from '../src-renderer/db/profiles';
import { ensureWorkflowProfiles, setProfileChoices, setSupervisionEnabled } from '../src-renderer/db/workflow-profiles';
import { seedBuiltinProfiles } from '../src-renderer/db/builtin-profiles';
import { seedDemoWorkflows } from '../src-renderer/db/seed-demo';

/**
 * Issue 9: what a person made in Settings follows to a new origin, browser profile or cleared site
 * data, as runs do. The real host and the page's real session, each browser a fresh database.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-profile-sync-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let browsers = 0;
/** A browser's database: a new origin, profile or cleared site data starts with an empty one. */
function freshDb(): StewardDb {
  const db = new StewardDb(`steward-profile-sync-${browsers++}-${Math.random().toString(36).slice(2)}`);
  cleanups.push(() => db.delete());
  return db;
}

/** The page's session of `db` on `host`, connected and through its start-up. */
async function connect(host: Host, db: StewardDb, id: string) {
  const problems: Array<string | undefined> = [];
  const transport = inProcessTransport(host, id);
  const session = startHostSession(createHostClient(transport), db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: (p) => problems.push(p) }, { providerPollMs: 60_000 });
  // The whole start-up (demo workflows, profile exchange, derived profiles): more than a second on a busy machine.
  await vi.waitFor(
    async () => {
      await session.done();
      expect(problems.length).toBeGreaterThan(0);
    },
    { timeout: 10_000 },
  );
  await session.done();
  const stop = () => {
    session.stop();
    transport.stop();
  };
  cleanups.push(stop);
  return { problems, session, stop };
}

const cloudModel = { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x', api_key: 'keychain:example-key', mode: 'structured', timeout_ms: 120_000 } as const;

async function hostProfiles(host: Host) {
  return (await hostPage(host, 'probe').ok('profiles.list', {})).profiles.map((p) => `${p.profile.id} v${p.profile.version}`);
}

describe('profiles and workflows\' choices follow to every browser of the same host', () => {
  it('a profile made in one browser is in a fresh database once its session connects, also after a host restart', async () => {
    const dir = dataDir();
    let host = await openTestHost(dir, cleanups);
    const first = freshDb();
    const a = await connect(host, first, 'first');
    const made = await createProfile(first, { kind: 'student', name: 'Cloud student', description: 'Made in Settings.', model: cloudModel });
    const edited = await saveNewVersion(first, made, { kind: 'student', name: 'Cloud student', description: 'Edited.', model: { ...cloudModel, temperature: 0.3 } });
    // Sent after the save, without a reconnect.
    await vi.waitFor(async () => expect(await hostProfiles(host)).toEqual(expect.arrayContaining([`${made.id} v1`, `${made.id} v2`])));
    a.stop();
    await host.close();

    host = await openTestHost(dir, cleanups);
    const second = freshDb();
    const b = await connect(host, second, 'second');
    expect(b.problems.at(-1)).toBeUndefined();
    expect(await second.profiles.get([made.id, 1])).toEqual(made);
    expect(await second.profiles.get([made.id, 2])).toEqual(edited);
    // Built-in profiles ship with the app: the host keeps none of them.
    expect(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles.every((p: { origin: string }) => p.origin !== 'builtin')).toBe(true);
  });

  it('the profile a workflow chose and its supervision switch follow it; the fresh browser derives no profiles of its own', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const first = freshDb();
    await connect(host, first, 'first');
    const [workflow] = await first.workflows.toArray();
    if (!workflow) throw new Error('the demo workflows were not seeded');
    expect(workflow.supervision_enabled).toBe(true);
    const student = await createProfile(first, { kind: 'student', name: 'Cloud student', description: '', model: cloudModel });
    await setProfileChoices(first, workflow.id, { student: { id: student.id, version: 1 } });
    await setSupervisionEnabled(first, workflow.id, false);
    await vi.waitFor(async () => {
      const { workflow_choices } = await hostPage(host, 'probe').ok('profiles.list', {});
      expect(workflow_choices.find((c) => c.workflow_id === workflow.id)).toMatchObject({ supervision_enabled: false, profiles: { student: { id: student.id, version: 1 } } });
    });
    const chosen = (await first.workflows.get(workflow.id))?.profiles;

    const second = freshDb();
    await connect(host, second, 'second');
    const followed = await second.workflows.get(workflow.id);
    expect(followed?.profiles).toEqual(chosen);
    expect(followed?.supervision_enabled).toBe(false);
    const mine = async (db: StewardDb) => (await db.profiles.filter((p) => p.origin !== 'builtin').toArray()).map((p) => `${p.id} v${p.version}`).sort();
    await second.close();
    await second.open();
    expect(await mine(second)).toEqual(await mine(first));
  });

  it('a fresh browser that derived its own defaults before the host answered still takes the person\'s choices, and never sends its defaults over them', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const first = freshDb();
    await connect(host, first, 'first');
    const [workflow] = await first.workflows.toArray();
    if (!workflow) throw new Error('the demo workflows were not seeded');
    const student = await createProfile(first, { kind: 'student', name: 'Cloud student', description: '', model: cloudModel });
    await setProfileChoices(first, workflow.id, { student: { id: student.id, version: 1 } });
    await setSupervisionEnabled(first, workflow.id, false);
    const chosen = async () => (await hostPage(host, 'probe').ok('profiles.list', {})).workflow_choices.find((c) => c.workflow_id === workflow.id);
    await vi.waitFor(async () => expect(await chosen()).toMatchObject({ supervision_enabled: false, profiles: { student: { id: student.id, version: 1 } } }));
    const persons = await chosen();

    // The race a loaded machine runs into: the new page's own start-up (built-ins, then the demos'
    // derived choices, stamped later than the person's) finishes before its first exchange with the host.
    const second = freshDb();
    await seedBuiltinProfiles(second);
    await seedDemoWorkflows(second, () => hostPage(host, 'seed').ok('workspace.demo', {}));
    await ensureWorkflowProfiles(second);
    await connect(host, second, 'second');
    const followed = await second.workflows.get(workflow.id);
    expect(followed?.profiles?.student).toEqual({ id: student.id, version: 1 });
    expect(followed?.supervision_enabled).toBe(false);
    expect(await chosen()).toEqual(persons);
  });

  it('two browsers meeting the demos at once derive the same profiles: the host refuses none and neither page shows a problem', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const [a, b] = await Promise.all([connect(host, freshDb(), 'first'), connect(host, freshDb(), 'second')]);
    expect(a.problems.filter(Boolean)).toEqual([]);
    expect(b.problems.filter(Boolean)).toEqual([]);
    // And a third, later: it takes what the host keeps, again without a problem.
    const c = await connect(host, freshDb(), 'third');
    expect(c.problems.filter(Boolean)).toEqual([]);
    const ids = await hostProfiles(host);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a version saved elsewhere under the same id and number stays out: each side keeps its own and the page says so', async () => {
    const host = await openTestHost(dataDir(), cleanups);
    const first = freshDb();
    await connect(host, first, 'first');
    const theirs = await createProfile(first, { kind: 'student', name: 'Shared name', description: '', model: cloudModel }, { id: 'shared-name-0000aaaa' });
    await vi.waitFor(async () => expect(await hostProfiles(host)).toContain('shared-name-0000aaaa v1'));

    const other = freshDb();
    await other.open();
    const ours = await createProfile(other, { kind: 'student', name: 'Shared name', description: '', model: { ...cloudModel, model: 'another-model' } }, { id: 'shared-name-0000aaaa' });
    const b = await connect(host, other, 'other');
    expect(b.problems.at(-1)).toContain('Shared name · v1 differs from the version the Steward host keeps');
    expect(await other.profiles.get(['shared-name-0000aaaa', 1])).toEqual(ours);
    const { profiles } = await hostPage(host, 'probe').ok('profiles.list', {});
    expect(profiles.find((p) => p.profile.id === 'shared-name-0000aaaa')?.profile).toEqual(expect.objectContaining({ model: expect.objectContaining({ model: theirs.kind === 'student' ? 'gpt-x' : '' }) }));
  });
});
