import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowDocument } from '@shared/contracts/spec';
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
  WorkflowDocument.parse({
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
});
