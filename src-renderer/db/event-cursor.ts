import type { EventsCursor } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import type { StewardDb } from './db';
import { ingestEvents, type IngestResult } from './ingest-events';

/** Up to where this database holds the host journal's events: all of them at or before `position`. */
export interface StoredCursor {
  journal: string;
  position: number;
}

const KEY = 'event-cursor';

export async function readEventCursor(db: StewardDb): Promise<StoredCursor | undefined> {
  const row = await db.settings.get(KEY);
  return row?.key === KEY ? row.value : undefined;
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
      await db.settings.put({ key: KEY, value: { journal: cursor.journal, position: cursor.position } });
    }
    return result;
  });
}
