import fs from 'node:fs';
import { z } from 'zod';
import { RunEvent } from '@shared/contracts/events';
import { count } from '@shared/util/words';
import type { HistoryDb } from './history-db';
import type { JournalLoadReport, OpenRun } from './journal-report';

/**
 * Moves a journal an older Steward wrote (`outbox.jsonl`, every format written so far) into the
 * history database at the first start (issue 26). It reads the file in slices (memory stays bounded
 * at any size), commits a few thousand lines at a time together with the byte offset it reached,
 * so a migration killed half-way resumes where it stopped, and reports progress as it goes. Events
 * keep their positions, so a page's cursor stays meaningful. Afterwards the file is renamed
 * `outbox.jsonl.migrated` (a backup, named in the log) and lines that could not be read are copied
 * to `outbox.jsonl.invalid`.
 *
 * Line kinds of the old journal:
 *   {"k":"journal","id"}  {"k":"event","pos"?,"event"}  {"k":"run","run_id","next_seq","rounds"}
 *   {"k":"ack","ids"}     {"k":"deleted","run_ids","at"}  {"k":"imported","run_ids"}  {"k":"compacted","through"}
 *   and, before the journal existed, bare events (the outbox).
 */

const HeaderLine = z.object({ k: z.literal('journal'), id: z.string().min(1).max(100) }).strict();
const EventLine = z.object({ k: z.literal('event'), pos: z.number().int().positive().optional(), event: RunEvent }).strict();
const AckLine = z.object({ k: z.literal('ack'), ids: z.array(z.string()) }).strict();
const RunLine = z.object({ k: z.literal('run'), run_id: z.string(), next_seq: z.number().int().nonnegative(), rounds: z.number().int().nonnegative() }).strict();
const DeletedLine = z.object({ k: z.literal('deleted'), run_ids: z.array(z.string().min(1)), at: z.number().int().nonnegative() }).strict();
const ImportedLine = z.object({ k: z.literal('imported'), run_ids: z.array(z.string().min(1)) }).strict();
const CompactedLine = z.object({ k: z.literal('compacted'), through: z.number().int().nonnegative() }).strict();
const JournalLine = z.discriminatedUnion('k', [HeaderLine, EventLine, AckLine, RunLine, DeletedLine, ImportedLine, CompactedLine]);
type JournalLine = z.infer<typeof JournalLine>;

/** An event to store, with the position a legacy journal gave it. */
export interface LegacyEvent {
  event: RunEvent;
  pos?: number | undefined;
}

export interface MigrationTarget {
  db: HistoryDb;
  log: (line: string) => void;
  adoptIdentity(id: string): void;
  insert(events: readonly LegacyEvent[]): { stored: readonly RunEvent[]; repeated: number; refused: number };
  markImported(runIds: readonly string[]): void;
  tombstone(runIds: readonly string[], at: number): void;
  compactedThrough(through: number): void;
  openRun(run: OpenRun): void;
}

const KEY = { offset: 'legacy_offset', done: 'legacy_done' } as const;
/** Lines per transaction (one sync each). */
const BATCH_LINES = 5_000;
/** Bytes read at a time. */
const READ_BYTES = 4 * 1024 * 1024;

/** Migrates `file` into the database when it is there and not yet moved; safe to call at every open. */
export function migrateLegacyJournal(file: string, target: MigrationTarget): JournalLoadReport {
  const report: JournalLoadReport = { events: 0, invalidLines: 0, tornTail: false };
  const get = target.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const set = target.db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  if (get.get(KEY.done) || !fs.existsSync(file)) return report;
  // Marks that name runs before their events (the old journal's head): kept here until the end, so a resumed move has them too.
  target.db.exec(`CREATE TABLE IF NOT EXISTS legacy_imported (run_id TEXT PRIMARY KEY) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS legacy_open (run_id TEXT PRIMARY KEY, next_seq INTEGER NOT NULL, rounds INTEGER NOT NULL) WITHOUT ROWID;`);
  const pending = {
    imported: target.db.prepare<[string]>('INSERT OR IGNORE INTO legacy_imported (run_id) VALUES (?)'),
    open: target.db.prepare<[string, number, number]>(
      'INSERT INTO legacy_open (run_id, next_seq, rounds) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET next_seq = max(next_seq, excluded.next_seq), rounds = max(rounds, excluded.rounds)',
    ),
  };
  const size = fs.statSync(file).size;
  let offset = Number(get.get(KEY.offset)?.value ?? 0);
  const resumed = offset > 0;
  target.log(`history: ${resumed ? 'resuming the move' : 'moving'} of the event journal ${file} (${mb(size)}) into the history database${resumed ? ` from ${percent(offset, size)}` : ''}…`);
  const fd = fs.openSync(file, 'r');
  const invalid: string[] = [];
  let refused = 0;
  let repeated = 0;
  let eventLines = 0;
  let lastShown = -1;
  try {
    let carry = Buffer.alloc(0);
    let lines: { text: string; end: number }[] = [];
    const commit = () => {
      if (lines.length === 0) return;
      const batch = lines;
      lines = [];
      target.db.transaction(() => {
        const events: LegacyEvent[] = [];
        const flush = () => {
          if (events.length === 0) return;
          const result = target.insert(events.splice(0));
          report.events += result.stored.length;
          refused += result.refused;
          repeated += result.repeated;
        };
        for (const { text } of batch) {
          const line = parseLine(text);
          if (!line) {
            invalid.push(text);
            continue;
          }
          // Marks apply in file order with the events around them.
          if (line.k === 'event') {
            eventLines += 1;
            events.push({ event: line.event, pos: line.pos });
            continue;
          }
          flush();
          applyMark(line, target, pending);
        }
        flush();
        target.markImported(target.db.prepare<[], { run_id: string }>('SELECT run_id FROM legacy_imported').all().map((row) => row.run_id));
        set.run(KEY.offset, String(batch.at(-1)!.end));
      })();
      offset = batch.at(-1)!.end;
      const shown = Math.floor((offset / Math.max(1, size)) * 10);
      if (shown !== lastShown && size > READ_BYTES) {
        lastShown = shown;
        target.log(`history: moved ${percent(offset, size)} of the event journal (${count(report.events)} events so far)`);
      }
    };
    let position = offset;
    const buffer = Buffer.alloc(READ_BYTES);
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      const chunk = Buffer.concat([carry, buffer.subarray(0, n)]);
      const chunkStart = position - carry.length;
      position += n;
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        if (end === -1) break;
        const text = chunk.toString('utf8', start, end);
        if (text.trim().length > 0) lines.push({ text, end: chunkStart + end + 1 });
        start = end + 1;
        if (lines.length >= BATCH_LINES) commit();
      }
      carry = Buffer.from(chunk.subarray(start));
    }
    commit();
    // Every complete line ends with '\n': what is left was cut short by a crash.
    report.tornTail = carry.toString('utf8').trim().length > 0;
  } finally {
    fs.closeSync(fd);
  }
  report.invalidLines = invalid.length;
  if (invalid.length > 0) {
    fs.appendFileSync(`${file}.invalid`, invalid.map((line) => line + '\n').join(''));
    target.log(`history: skipped ${invalid.length} unreadable line(s) of the old journal; copied to ${file}.invalid`);
  }
  if (report.tornTail) target.log('history: skipped the old journal\'s torn last line (an interrupted write)');
  if (refused > 0) target.log(`history: skipped ${refused} event(s) of the old journal at a place their run already held (a repeated end or a doubled step)`);
  const backup = `${file}.migrated`;
  target.db.transaction(() => {
    for (const run of target.db.prepare<[], OpenRun>('SELECT run_id, next_seq, rounds FROM legacy_open').all()) target.openRun(run);
    target.db.exec('DROP TABLE legacy_imported; DROP TABLE legacy_open;');
    set.run(KEY.done, new Date().toISOString());
  })();
  fs.renameSync(file, backup);
  const runs = (target.db.prepare('SELECT count(*) AS c FROM runs').get() as { c: number }).c;
  // The counts agree: every event line read is moved, a repeat of one already moved, or refused (said above).
  const accounted = `${count(eventLines)} event lines read${resumed ? ' in this pass' : ''}: ${count(report.events)} moved, ${repeated} repeats, ${refused} refused`;
  target.log(`history: the event journal is in the history database now (${count(report.events)} events${resumed ? ' in this pass' : ''}, ${count(runs)} runs; ${accounted}); the old file is kept as ${backup}`);
  return report;
}

interface Pending {
  imported: { run(runId: string): unknown };
  open: { run(runId: string, nextSeq: number, rounds: number): unknown };
}

function applyMark(line: Exclude<JournalLine, { k: 'event' }>, target: MigrationTarget, pending: Pending): void {
  switch (line.k) {
    case 'journal':
      // The old journal's identity carries over: pages' cursors (journal id + position) stay meaningful.
      target.adoptIdentity(line.id);
      return;
    case 'run':
      pending.open.run(line.run_id, line.next_seq, line.rounds);
      return;
    case 'imported':
      for (const runId of line.run_ids) pending.imported.run(runId);
      return;
    case 'deleted':
      target.tombstone(line.run_ids, line.at);
      return;
    case 'compacted':
      target.compactedThrough(line.through);
      return;
    case 'ack':
      return;
  }
}

function parseLine(text: string): JournalLine | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  // The outbox before the journal: bare events, one per line.
  if (json !== null && typeof json === 'object' && !('k' in json)) {
    const event = RunEvent.safeParse(json);
    return event.success ? { k: 'event', event: event.data } : null;
  }
  const parsed = JournalLine.safeParse(json);
  return parsed.success ? parsed.data : null;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const percent = (part: number, whole: number) => `${Math.round((part / Math.max(1, whole)) * 100)}%`;
