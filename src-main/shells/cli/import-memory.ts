import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RunEvent } from '@shared/contracts/events';
import type { Taken, TraceLineAt, TraceMemory } from '@shared/history/check-trace';

/**
 * What `steward runs import` remembers of a trace's lines while it checks them, kept on disk (a
 * scratch SQLite file in the temp folder, no journal, no syncs): a trace of any size is checked
 * in bounded memory, a row per event rather than the event. Also answers, on the import pass, on
 * which line an event was first taken (a later repeat of it is passed over).
 */
export interface DiskTraceMemory extends TraceMemory {
  firstLine(id: string): TraceLineAt | undefined;
  close(): void;
}

interface Row {
  seq: number;
  type: string;
  file: string;
  line: number;
  print: string;
}

/** Takes per transaction while lines are checked. */
const BATCH = 5_000;

export function diskTraceMemory(): DiskTraceMemory {
  const dir = mkdtempSync(join(tmpdir(), 'steward-import-'));
  const db = new Database(join(dir, 'lines.sqlite'));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  // This process's own scratch file: its locks are taken once, not around every look-up (pass 2 asks one a line).
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -8000'); // 8 MB of pages at most
  db.exec(`CREATE TABLE taken (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, print TEXT NOT NULL) WITHOUT ROWID;
    CREATE UNIQUE INDEX taken_place ON taken (run_id, seq);
    CREATE INDEX taken_end ON taken (run_id) WHERE type = 'run.finished';`);
  const sql = {
    byId: db.prepare<[string], Row>('SELECT seq, type, file, line, print FROM taken WHERE id = ?'),
    byPlace: db.prepare<[string, number], Row>('SELECT seq, type, file, line, print FROM taken WHERE run_id = ? AND seq = ?'),
    end: db.prepare<[string], Row>("SELECT seq, type, file, line, print FROM taken WHERE run_id = ? AND type = 'run.finished'"),
    take: db.prepare<[string, string, number, string, string, number, string]>('INSERT INTO taken (id, run_id, seq, type, file, line, print) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    runs: db.prepare<[], { c: number }>('SELECT count(DISTINCT run_id) AS c FROM taken'),
  };
  const taken = (row: Row | undefined): Taken | undefined =>
    row && { at: { file: row.file, line: row.line }, event: { type: row.type as RunEvent['type'], seq: row.seq }, print: row.print };
  let pending = 0;
  const commit = () => {
    if (db.inTransaction) db.exec('COMMIT');
    pending = 0;
  };
  return {
    byId: (id) => taken(sql.byId.get(id)),
    byPlace: (runId, seq) => taken(sql.byPlace.get(runId, seq)),
    end: (runId) => taken(sql.end.get(runId)),
    take(event, what) {
      if (!db.inTransaction) db.exec('BEGIN');
      sql.take.run(event.id, event.run_id, event.seq, event.type, what.at.file, what.at.line, what.print ?? '');
      if (++pending >= BATCH) commit();
    },
    runs() {
      commit();
      return sql.runs.get()?.c ?? 0;
    },
    firstLine(id) {
      commit();
      return taken(sql.byId.get(id))?.at;
    },
    close() {
      commit();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
