import path from 'node:path';
import type { EventJournal } from '../events/event-journal';
import { createJournalWriter, type JournalWriter } from '../events/journal-writer';
import { HistoryLedger, LEGACY_LEDGER, type DataFolderLedger } from './history-ledger';

/**
 * The host's idempotency ledger (issue 26: one durable write per round): the history ledger on the
 * journal's own connection, its writes committed by the host's journal writer. A claim (`begin`)
 * commits in one IMMEDIATE transaction with the run's pending events — the committed decision and
 * every event before it — synced before the tool runs. An outcome (`finish`) rides in the next
 * commit: a crash before it leaves the key in flight, never run again (I5 holds), and the tool's
 * result events were not durable either, so no page or watcher was told of them.
 *
 * Another process on the folder (a `steward run` with its own connection) is still excluded: a
 * claim takes SQLite's write lock before it reads the key's state. Closing it leaves the journal's
 * connection open (the journal closes it).
 */
export function openJournalLedger(journal: EventJournal, writer: JournalWriter, dataDir: string): DataFolderLedger {
  const ledger = new HistoryLedger(journal.connection, { now: writer.commit, later: writer.later }, path.join(dataDir, LEGACY_LEDGER));
  return Object.assign(ledger, { close: () => undefined });
}

/** How the host writes a run's rounds: one writer for every run's events, and the ledger committing through it. */
export function openHostWrites(journal: EventJournal, dataDir: string, options: { log?: (line: string) => void; windowMs?: number } = {}): { writer: JournalWriter; ledger: DataFolderLedger } {
  const writer = createJournalWriter(journal, { ...options, ledgerClaimsHere: true });
  return { writer, ledger: openJournalLedger(journal, writer, dataDir) };
}
