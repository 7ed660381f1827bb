import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb } from '../db/db';
import { ingestEvents } from '../db/ingest-events';
import { supervisedTrace } from './testing/supervised-trace';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-supervised-row-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('a supervised workflow run in the runs list', () => {
  it('is marked supervised once a verdict is in (its status reads "Completed — supervised" on every screen), in any arrival order', async () => {
    const events = supervisedTrace();
    await ingestEvents(db, [...events].reverse());
    expect(await db.runs.get(events[0]?.run_id ?? '')).toMatchObject({ status: 'completed', workflow: { supervised: true } });
  });

  it('a run whose escalation has no verdict yet, or with no supervisor events at all, is not', async () => {
    const deciding = supervisedTrace({ runId: 'supervised-deciding-0001', verdict: null });
    const clean = supervisedTrace({ runId: 'supervised-clean-0001' }).filter((e) => !e.type.startsWith('supervisor.'));
    await ingestEvents(db, [...deciding, ...clean]);
    for (const runId of ['supervised-deciding-0001', 'supervised-clean-0001']) expect((await db.runs.get(runId))?.workflow?.supervised).toBeUndefined();
  });
});
