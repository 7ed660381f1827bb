import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { StewardDb } from './db';
import { readEventCursor, storeEventsAt, storeUnpositioned } from './event-cursor';
import { eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';

const JOURNAL = 'journal-under-test';

/** A database that counts what is read back: event ids asked for, and queries of learning examples. */
function countingDb() {
  const reads = { eventIds: 0 };
  const db = new StewardDb(`steward-cursor-test-${Math.random().toString(36).slice(2)}`);
  db.use({
    stack: 'dbcore',
    name: 'count-reads',
    create: (down) => ({
      ...down,
      table: (name) => {
        const inner = down.table(name);
        if (name === 'events')
          return {
            ...inner,
            getMany: (req) => {
              reads.eventIds += req.keys.length;
              return inner.getMany(req);
            },
          };
        return inner;
      },
    }),
  });
  return { db, reads };
}

const opened: StewardDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

async function open() {
  const counted = countingDb();
  await counted.db.open();
  opened.push(counted.db);
  return counted;
}

/** Two whole runs, as the journal would hold them one after the other. */
function journalEvents() {
  const runs = ['run-cursor-0001', 'run-cursor-0002'].map((id) => {
    const log = eventLog(id);
    startRun(log);
    readExecutedRound(log, 0);
    writeReplacedRound(log, 1);
    finishRun(log, 'completed', 2, 'done');
    return log;
  });
  return { runs, events: runs.flatMap((r) => r.events) };
}

describe('storing a frame at its journal position', () => {
  it('a frame that follows this database’s cursor is stored without reading any event back', async () => {
    const { db, reads } = await open();
    const { runs, events } = journalEvents();
    const half = runs[0]!.events.length;
    await storeEventsAt(db, events.slice(0, half), { journal: JOURNAL, after: 0, position: half });
    reads.eventIds = 0;
    await storeEventsAt(db, events.slice(half), { journal: JOURNAL, after: half, position: events.length });
    expect(reads).toEqual({ eventIds: 0 });
    expect(await db.events.count()).toBe(events.length);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: events.length });
    for (const run of runs) expect((await db.runs.get(run.runId))?.stored_events).toBe(run.events.length);
  });

  it('a frame the cursor partly covers (another page of this origin stored that part) stores only the rest, each event once, reading none back', async () => {
    const { db, reads } = await open();
    const { runs, events } = journalEvents();
    await storeEventsAt(db, events.slice(0, 10), { journal: JOURNAL, after: 0, position: 10 });
    reads.eventIds = 0;
    // This page's frame starts at 5: positions 6–10 are stored already.
    await storeEventsAt(db, events.slice(5), { journal: JOURNAL, after: 5, position: events.length });
    expect(reads.eventIds).toBe(0);
    expect(await db.events.count()).toBe(events.length);
    for (const run of runs) expect((await db.runs.get(run.runId))?.stored_events).toBe(run.events.length);
    // A frame wholly behind the cursor stores nothing and leaves the cursor where it is.
    await storeEventsAt(db, events.slice(0, 3), { journal: JOURNAL, after: 0, position: 3 });
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: events.length });
    for (const run of runs) expect((await db.runs.get(run.runId))?.stored_events).toBe(run.events.length);
  });

  it('a frame from another journal, or with events missing (salvaged), is checked id by id: nothing is counted twice', async () => {
    const { db } = await open();
    const { runs, events } = journalEvents();
    await storeEventsAt(db, events, { journal: JOURNAL, after: 0, position: events.length });
    await storeEventsAt(db, events, { journal: 'another-journal', after: 0, position: events.length });
    // Positions 1–4 of the frame were invalid and dropped by the client: its events are not at after + i.
    await storeEventsAt(db, events.slice(4, 12), { journal: 'another-journal', after: 0, position: 12 });
    expect(await db.events.count()).toBe(events.length);
    for (const run of runs) expect((await db.runs.get(run.runId))?.stored_events).toBe(run.events.length);
  });

  it('events stored without a position (an older host) make the next journal frame check its ids', async () => {
    const { db } = await open();
    const { runs, events } = journalEvents();
    await storeEventsAt(db, events.slice(0, 10), { journal: JOURNAL, after: 0, position: 10 });
    // An older host on this origin sends everything it holds, without positions.
    await storeUnpositioned(db, events);
    await storeEventsAt(db, events.slice(10), { journal: JOURNAL, after: 10, position: events.length });
    expect(await db.events.count()).toBe(events.length);
    for (const run of runs) expect((await db.runs.get(run.runId))?.stored_events).toBe(run.events.length);
  });
});
