import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { RunEvent } from '@shared/contracts/events';
import { historyPath } from '../events/history-db';
import { legacyJournalPath } from '../events/open-history';
import { runNamedBy, type RunNamed } from '../events/run-named-by';

/**
 * One run's events from a data folder's history, read without taking the folder: a host may hold
 * it, and reading never changes it. The history database is opened read-only (WAL lets a reader in
 * beside the writer) and the run read by its index. A folder an older Steward wrote and no Steward
 * has opened since still has its journal file (`outbox.jsonl`): read that line by line instead.
 */
export async function journalFileRunEvents(dataDir: string, runId: string): Promise<RunEvent[]> {
  const file = historyPath(dataDir);
  if (existsSync(file)) {
    const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
    try {
      const rows = db.prepare<[string], { body: string }>('SELECT body FROM events WHERE run_id = ? ORDER BY seq').all(runId);
      return rows.map((row) => JSON.parse(row.body) as RunEvent);
    } finally {
      db.close();
    }
  }
  return legacyRunEvents(legacyJournalPath(dataDir), runId);
}

/**
 * The run a typed id names in a data folder's history (whole, or its first 8 characters or more, as
 * `steward runs list` prints it), read the same way. A folder with only an old journal file takes the
 * whole id.
 */
export function journalFileRunNamed(dataDir: string, typed: string): RunNamed {
  const file = historyPath(dataDir);
  if (!existsSync(file)) return { kind: 'run', runId: typed };
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    return runNamedBy(db, typed);
  } finally {
    db.close();
  }
}

async function legacyRunEvents(path: string, runId: string): Promise<RunEvent[]> {
  if (!existsSync(path)) return [];
  const events: RunEvent[] = [];
  const input = createReadStream(path, { encoding: 'utf8' });
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    // Cheap first: most lines are other runs' events.
    if (!text.includes(runId)) continue;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    const parsed = RunEvent.safeParse((line as { k?: unknown; event?: unknown } | null)?.k === 'event' ? (line as { event: unknown }).event : undefined);
    if (parsed.success && parsed.data.run_id === runId) events.push(parsed.data);
  }
  return events;
}
