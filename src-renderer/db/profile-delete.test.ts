import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostClient } from '../host/host-client';
import { StewardDb, type WorkflowRow } from './db';
import { createProfile } from './profiles';
import { deleteProfile } from './profile-delete';
import { syncProfiles } from './profile-sync';

/** Issue 28: a profile a person made is deleted here and on the host, or refused in words naming who uses it. */

const dbs: StewardDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.delete();
});

async function freshDb(): Promise<StewardDb> {
  const db = new StewardDb(`steward-profile-delete-${Math.random().toString(36).slice(2)}`);
  dbs.push(db);
  await db.open();
  return db;
}

/** A host that answers profiles.delete as given and records what it was asked. */
function host(answer: unknown) {
  const asked: string[] = [];
  const request = (async (method: string, params: { id?: string }) => {
    asked.push(`${method}:${params.id ?? ''}`);
    if (method === 'profiles.delete') return answer;
    throw new Error(`unexpected ${method}`);
  }) as HostClient['request'];
  return { asked, client: { request } };
}

const student = { kind: 'student' as const, name: 'Local qwen', description: '', model: { provider: 'ollama' as const, model: 'qwen3:4b', mode: 'structured' as const, timeout_ms: 120_000 } };

describe('deleting a profile from Settings', () => {
  it('one nobody uses goes from the host and from this page, every version', async () => {
    const db = await freshDb();
    const row = await createProfile(db, student);
    const { asked, client } = host({ deleted: true, versions: 1 });
    expect(await deleteProfile(db, client, row)).toEqual({ deleted: true, text: 'Deleted “Local qwen” (1 version).' });
    expect(asked).toEqual([`profiles.delete:${row.id}`]);
    expect(await db.profiles.where('id').equals(row.id).count()).toBe(0);
  });

  it('one a workflow here chose is refused before the host is asked, naming the workflow and as what', async () => {
    const db = await freshDb();
    const row = await createProfile(db, student);
    await db.workflows.add({ id: 'notes-assistant', name: 'Notes assistant', profiles: { student: { id: row.id, version: 1 } } } as unknown as WorkflowRow);
    const { asked, client } = host({ deleted: true, versions: 1 });
    const outcome = await deleteProfile(db, client, row);
    expect(outcome).toMatchObject({ deleted: false, text: '“Local qwen” was not deleted: the workflow “Notes assistant” (as its student model) still uses it. To delete it, choose another profile in those workflows’ settings.' });
    expect(asked).toEqual([]);
    expect(await db.profiles.where('id').equals(row.id).count()).toBe(1);
  });

  it('one the host says runs recorded is refused, saying how many and what to do; it stays here', async () => {
    const db = await freshDb();
    const row = await createProfile(db, student);
    const runs = [{ run_id: 'r1', name: 'Notes assistant', started_at: '2026-12-01T10:00:00.000Z' }];
    const { client } = host({ deleted: false, reason: 'in_use', used_by: { workflows: [], runs, run_count: 3 } });
    const outcome = await deleteProfile(db, client, row);
    expect(outcome).toEqual({
      deleted: false,
      text: '“Local qwen” was not deleted: 3 runs still use it. To delete it, delete those runs in Runs (a run keeps the profile versions it used).',
      usedBy: { workflows: [], runs, run_count: 3 },
    });
    expect(await db.profiles.where('id').equals(row.id).count()).toBe(1);
  });

  it('a profile deleted in another browser goes from this page at its next exchange, and is never sent back', async () => {
    const db = await freshDb();
    const row = await createProfile(db, student);
    const saved: unknown[] = [];
    const request = (async (method: string, params: { profiles?: unknown[] }) => {
      if (method === 'profiles.list') return { profiles: [], workflow_choices: [], deleted: [{ id: row.id, deleted_at: '2026-12-01T10:00:00.000Z' }] };
      saved.push(...(params.profiles ?? []));
      return { added: 0, choices_taken: 0, conflicts: [] };
    }) as HostClient['request'];
    await syncProfiles(db, { request });
    expect(await db.profiles.where('id').equals(row.id).count()).toBe(0);
    expect(saved).toEqual([]);
  });
});
