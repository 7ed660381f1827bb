import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { RunEvent } from '@shared/contracts/events';
import { historyPath } from '../events/history-db';
import { legacyJournalPath } from '../events/open-history';

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
