import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { StewardDb } from './db';
import { seedDemoWorkflows } from './seed-demo';

let db: StewardDb;

beforeEach(async () => {
  db = new StewardDb(`steward-seed-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

const demo = (id: string, supervision: boolean) =>
  HostedWorkflow.parse({
    format: 'steward/v1',
    kind: 'agent',
    id,
    name: `Demo ${id}`,
    instructions: 'Be careful.',
    task: 'Do the thing.',
    supervision: { enabled: supervision },
  });

describe('seedDemoWorkflows', () => {
  it('stores the demo workspace on first launch with each document’s supervision setting', async () => {
    const added = await seedDemoWorkflows(db, async () => ({ workflows: [demo('with-teacher', true), demo('unsupervised', false)] }));
    expect(added).toBe(2);
    const rows = await db.workflows.orderBy('name').toArray();
    expect(rows.map((r) => [r.id, r.source, r.supervision_enabled])).toEqual([
      ['unsupervised', 'demo', false],
      ['with-teacher', 'demo', true],
    ]);
  });

  it('adds demo workflows a newer version ships, and only those', async () => {
    await seedDemoWorkflows(db, async () => ({ workflows: [demo('with-teacher', true)] }));
    await db.workflows.update('with-teacher', { supervision_enabled: false });
    expect(await seedDemoWorkflows(db, async () => ({ workflows: [demo('with-teacher', true), demo('new-demo', true)] }))).toBe(1);
    expect((await db.workflows.get('with-teacher'))?.supervision_enabled).toBe(false);
    expect((await db.workflows.get('new-demo'))?.source).toBe('demo');
  });

  it('leaves an existing workspace alone, even when two seeds race', async () => {
    const fetchDemo = async () => ({ workflows: [demo('with-teacher', true)] });
    const results = await Promise.all([seedDemoWorkflows(db, fetchDemo), seedDemoWorkflows(db, fetchDemo)]);
    expect(results.sort()).toEqual([0, 1]);
    await db.workflows.update('with-teacher', { supervision_enabled: false });
    expect(await seedDemoWorkflows(db, fetchDemo)).toBe(0);
    expect((await db.workflows.get('with-teacher'))?.supervision_enabled).toBe(false);
  });

  it('a demo stored in the older form (inline servers and folder) takes the host’s referenced form, keeping the person’s choices', async () => {
    await seedDemoWorkflows(db, async () => ({ workflows: [demo('with-teacher', true)] }));
    const old = { ...demo('with-teacher', true), workspace: '/home/me/.local/share/steward/demo/x', servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] }] };
    await db.workflows.update('with-teacher', { doc: old as never, supervision_enabled: false, profiles: { student: { id: 'p', version: 2 } } });
    const current = HostedWorkflow.parse({ ...demo('with-teacher', true), workspace: 'demo-with-teacher', servers: [{ id: 'fs', server: 'filesystem' }] });
    expect(await seedDemoWorkflows(db, async () => ({ workflows: [current] }))).toBe(0);
    const row = await db.workflows.get('with-teacher');
    expect(row?.doc).toEqual(current);
    expect(row).toMatchObject({ supervision_enabled: false, profiles: { student: { id: 'p', version: 2 } } });
  });
});
