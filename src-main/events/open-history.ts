import { join } from 'node:path';
import { EventJournal, type EventJournalOptions } from './event-journal';
import { historyPath } from './history-db';

/** The journal an older Steward kept in the data folder: moved into the history database at the first open. */
export const legacyJournalPath = (dataDir: string) => join(dataDir, 'outbox.jsonl');

/** The data folder's run history (the host, and a steward command holding the folder, open it the same way). */
export function openHistory(dataDir: string, options: Omit<EventJournalOptions, 'legacyJournal'> = {}): EventJournal {
  return EventJournal.open(historyPath(dataDir), { ...options, legacyJournal: legacyJournalPath(dataDir) });
}
