import { join } from 'node:path';
import { EventJournal, type EventJournalOptions } from './event-journal';
import { historyPath } from './history-db';
import { keepDataFolderPrivate } from '../util/private-folder';

/** The journal an older Steward kept in the data folder: moved into the history database at the first open. */
export const legacyJournalPath = (dataDir: string) => join(dataDir, 'outbox.jsonl');

/** The data folder's run history (the host, and a steward command holding the folder, open it the same way). */
export function openHistory(dataDir: string, options: Omit<EventJournalOptions, 'legacyJournal'> = {}): EventJournal {
  keepDataFolderPrivate(dataDir, options.log);
  return EventJournal.open(historyPath(dataDir), { ...busyTimeout(process.env), ...options, legacyJournal: legacyJournalPath(dataDir) });
}

/** STEWARD_HISTORY_BUSY_MS: how long a write waits for another process's (a test or an operator may shorten it). */
function busyTimeout(env: NodeJS.ProcessEnv): { busyTimeoutMs?: number } {
  const raw = env.STEWARD_HISTORY_BUSY_MS?.trim();
  return raw !== undefined && /^\d{1,7}$/.test(raw) ? { busyTimeoutMs: Number(raw) } : {};
}
