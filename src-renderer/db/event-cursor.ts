import { z } from 'zod';
import { JournalId, JournalPosition, type EventsCursor } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import type { StewardDb } from './db';
import { ingestEvents, type IngestResult } from './ingest-events';

/** Up to where this database holds the host journal's events: all of them at or before `position`. */
const StoredCursor = z.object({ journal: JournalId, position: JournalPosition }).strict();
export type StoredCursor = z.infer<typeof StoredCursor>;

const KEY = 'event-cursor';
/** The `settings` table read as plain rows: the cursor's own schema checks what comes back. */
const settings = (db: StewardDb) => db.table<{ key: string; value: unknown }, string>('settings');

/** A damaged row reads as no cursor: the page then backfills the whole journal (storing is idempotent). */
export async function readEventCursor(db: StewardDb): Promise<StoredCursor | undefined> {
  const parsed = StoredCursor.safeParse((await settings(db).get(KEY))?.value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Stores a frame's events and moves the cursor to the frame's last position in ONE transaction, so
 * the cursor never claims an event that is not stored (a reload resumes exactly after it). Two pages
 * of one origin share this database: a cursor never moves back within a journal, because what one
 * page stored is stored for both. Every table is in scope so ingestEvents' own transaction nests.
 */
export async function storeEventsAt(db: StewardDb, events: readonly RunEvent[], cursor: EventsCursor): Promise<IngestResult> {
  return db.transaction('rw', db.tables, async () => {
    const result = await ingestEvents(db, events);
    const before = await readEventCursor(db);
    if (!before || before.journal !== cursor.journal || before.position < cursor.position) {
      await settings(db).put({ key: KEY, value: { journal: cursor.journal, position: cursor.position } });
    }
    return result;
  });
}
