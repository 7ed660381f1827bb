import { z } from 'zod';
import { JournalId, JournalPosition, type EventsCursor } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import { plainSettings, type StewardDb } from './db';
import { ingestEvents, type IngestResult } from './ingest-events';

/** Up to where this database holds the host journal's events: all of them at or before `position`. */
const StoredCursor = z.object({ journal: JournalId, position: JournalPosition }).strict();
export type StoredCursor = z.infer<typeof StoredCursor>;

const KEY = 'event-cursor';
/** The cursor in one journal: kept for each journal this database has stored from (another data folder's host on this origin). */
const keyFor = (journal: string) => `${KEY}:${journal}`;

/** A damaged row reads as no cursor: the page then backfills the whole journal (storing is idempotent). */
export async function readEventCursor(db: StewardDb): Promise<StoredCursor | undefined> {
  const parsed = StoredCursor.safeParse((await plainSettings(db).get(KEY))?.value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Where to resume `journal` (the connected host's): the latest cursor when it is that journal's,
 * else the one this database kept for it when it last left it. So a page that was on another data
 * folder's host meanwhile is told, when it comes back, which runs were deleted since: it resumes
 * instead of starting over (which tells nothing of deletions). Without either, the latest cursor.
 * Leaving a journal keeps its cursor aside here, once, rather than with every stored frame: two
 * hosts cannot hold one port (one origin) at the same time, so the latest cursor is that journal's.
 */
export async function resumeCursor(db: StewardDb, journal: string | undefined): Promise<StoredCursor | undefined> {
  const latest = await readEventCursor(db);
  if (journal === undefined || latest === undefined || latest.journal === journal) return latest;
  await plainSettings(db).put({ key: keyFor(latest.journal), value: latest });
  const kept = StoredCursor.safeParse((await plainSettings(db).get(keyFor(journal)))?.value);
  return kept.success && kept.data.journal === journal ? kept.data : latest;
}

/**
 * Stores a frame's events and moves the cursor to the frame's last position in ONE transaction, so
 * the cursor never claims an event that is not stored (a reload resumes exactly after it). Two pages
 * of one origin share this database: a cursor never moves back within a journal, because what one
 * page stored is stored for both. Every table is in scope so ingestEvents' own transaction nests.
 *
 * Within one journal the cursor also says what is NOT stored: nothing after it (only frames store
 * this journal's events, each with its cursor). So the part of a frame at or before the cursor (another
 * page stored it) is skipped, and the rest is new: no id is read back. A frame from another journal,
 * with no cursor stored, or with events missing (the client dropped invalid ones: they are no longer
 * at `after + i`) is checked id by id.
 */
export async function storeEventsAt(db: StewardDb, events: readonly RunEvent[], cursor: EventsCursor, imported?: ReadonlySet<string>): Promise<IngestResult> {
  return db.transaction('rw', db.tables, async () => {
    const before = await readEventCursor(db);
    const consecutive = events.length === cursor.position - cursor.after;
    const known = before !== undefined && before.journal === cursor.journal && consecutive;
    const covered = known ? Math.min(events.length, Math.max(0, before.position - cursor.after)) : 0;
    const result = await ingestEvents(db, covered > 0 ? events.slice(covered) : events, { fresh: known, imported });
    if (!before || before.journal !== cursor.journal || before.position < cursor.position) {
      await plainSettings(db).put({ key: KEY, value: { journal: cursor.journal, position: cursor.position } });
    }
    return result;
  });
}

/**
 * Events from an older host, without positions: stored id by id, and the cursor is dropped (these
 * may be events of the journal past it), so the next journal frame is checked id by id too.
 */
export async function storeUnpositioned(db: StewardDb, events: readonly RunEvent[], imported?: ReadonlySet<string>): Promise<IngestResult> {
  return db.transaction('rw', db.tables, async () => {
    const result = await ingestEvents(db, events, { imported });
    if (result.fresh > 0) await plainSettings(db).delete(KEY);
    return result;
  });
}
