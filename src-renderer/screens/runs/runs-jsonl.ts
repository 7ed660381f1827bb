import { MAX_IMPORT_EVENTS } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import { traceLine } from '@shared/contracts/trace-format';
import { checkTraceFiles } from '@shared/history/check-trace';
import { runEvents, type StewardDb } from '../../db/db';
import { holdsWhole, hostRunEvents, type FetchRunEventsPage } from '../../db/run-events-from-host';

/**
 * Runs as JSONL, the format of the CLI's `steward run --trace` file: one RunEvent a line (trace format
 * 2, rounds from 1), each run's events together in sequence order. The page exports selected runs this
 * way and imports such files, of either format.
 */

/**
 * The chosen runs' events, oldest run first, each run in sequence order. A run this page does not keep whole
 * (issue 26: it keeps recent and opened runs) is read from the host's history with `fromHost`.
 */
export async function runsJsonl(db: StewardDb, runIds: readonly string[], fromHost?: FetchRunEventsPage): Promise<string> {
  const rows = (await db.runs.bulkGet([...runIds])).filter((row) => row !== undefined);
  rows.sort((a, b) => (a.started_at === b.started_at ? a.run_id.localeCompare(b.run_id) : a.started_at < b.started_at ? -1 : 1));
  const parts: string[] = [];
  for (const row of rows) {
    const events = fromHost && !(await holdsWhole(db, row.run_id)) ? await hostRunEvents(fromHost, row.run_id) : await runEvents(db, row.run_id);
    for (const event of events) parts.push(`${traceLine(event)}\n`);
  }
  return parts.join('');
}

/** `lines`: each event's line number in the file. */
export type ParsedTrace = { ok: true; events: RunEvent[]; lines: number[]; runs: number } | { ok: false; line: number; problem: string };

/**
 * Every line checked as the CLI checks it (src-shared/history/check-trace.ts): the first bad one is
 * named by its number (1-based) and nothing is taken. Blank lines are skipped; a line repeating an
 * earlier one unchanged is taken once; events come back as the history stores them.
 */
export function parseTraceJsonl(text: string): ParsedTrace {
  const checked = checkTraceFiles([{ name: 'trace.jsonl', text }]);
  if (!checked.ok) return { ok: false, line: checked.at.line, problem: checked.problem };
  return { ok: true, events: checked.events, lines: checked.entries.map((entry) => entry.at.line), runs: checked.runs };
}

/** A WebSocket message to the host carries at most 1 MB; a request's own envelope fits in what is left. */
export const IMPORT_MAX_BYTES = 900_000;

export type ImportChunks = { ok: true; chunks: RunEvent[][] } | { ok: false; line: number; problem: string };

/** The events in requests of at most `maxEvents` events and `maxBytes` of JSON, in order. An event too big for one request alone is named. */
export function importChunks(events: readonly RunEvent[], limits: { maxBytes?: number; maxEvents?: number } = {}, lineOf?: readonly number[]): ImportChunks {
  const maxBytes = limits.maxBytes ?? IMPORT_MAX_BYTES;
  const maxEvents = limits.maxEvents ?? MAX_IMPORT_EVENTS;
  const chunks: RunEvent[][] = [];
  let chunk: RunEvent[] = [];
  let bytes = 2; // the array's brackets
  for (const [i, event] of events.entries()) {
    const size = new TextEncoder().encode(JSON.stringify(event)).length + 1;
    if (size + 2 > maxBytes) {
      return { ok: false, line: lineOf?.[i] ?? i + 1, problem: `the event is ${(size / 1e6).toFixed(1)} MB: one request to the host carries at most ${(maxBytes / 1e6).toFixed(1)} MB` };
    }
    if (chunk.length >= maxEvents || bytes + size > maxBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 2;
    }
    chunk.push(event);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return { ok: true, chunks };
}
