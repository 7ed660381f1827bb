import { plural } from '../util/words';

/** What an import did, as counted by the file check (check-trace.ts) and the host (runs.import). */
export interface ImportCounts {
  /** Events stored now. */
  imported: number;
  /** Runs the files hold. */
  runs: number;
  /** Events the history already held unchanged. */
  repeated: number;
  /** New events of runs the history held before, left out. */
  held: number;
  /** Lines that repeated an earlier line unchanged (taken once). */
  repeatedLines?: number;
  /** Events whose long model text was trimmed, and events with a raw key masked. */
  trimmed?: number;
  masked?: number;
}

/**
 * One sentence for both shells (lower case: each starts it its own way). Honest about what was not
 * stored: "already there" only for events the history holds unchanged; a held run's new events are
 * said to be left out, not to be there.
 */
export function importSummary(c: ImportCounts): string {
  const notes = [
    c.repeated > 0 ? `${plural(c.repeated, 'event')} already there unchanged` : '',
    c.held > 0 ? `${plural(c.held, 'event')} of runs the history already held left out (a run keeps the events it has)` : '',
    (c.repeatedLines ?? 0) > 0 ? `${plural(c.repeatedLines ?? 0, 'line')} repeating an earlier one, taken once` : '',
    (c.trimmed ?? 0) > 0 ? `${plural(c.trimmed ?? 0, 'event')} with model text over 16 KiB trimmed, as recorded runs are` : '',
    (c.masked ?? 0) > 0 ? `${plural(c.masked ?? 0, 'event')} holding what looks like an API key or token, masked` : '',
  ].filter((note) => note !== '');
  return `imported ${plural(c.imported, 'event')} of ${plural(c.runs, 'run')}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
}
