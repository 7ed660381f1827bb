import type { HistoryDb } from './history-db';

/** A start of a run id that names a run is at least this long: what `steward runs list` and `steward run` print. */
export const MIN_RUN_ID_START = 8;

/** Runs an ambiguous start lists at most. */
const MAX_CANDIDATES = 10;

export type RunNamed =
  | { kind: 'run'; runId: string }
  /** `short`: the start typed is under MIN_RUN_ID_START characters, so it names no run. */
  | { kind: 'none'; short: boolean }
  | { kind: 'ambiguous'; runIds: string[]; more: boolean };

/**
 * The run a typed id names in a history: the whole id, or a start of at least 8 characters that one
 * run's id has. A run's child runs (`ID:node…`, issue 29) share its start: the start names the run
 * they are part of. Read as a range of the runs' unique id index, so it costs the same at any size.
 */
export function runNamedBy(db: HistoryDb, typed: string): RunNamed {
  if (db.prepare<[string], { one: number }>('SELECT 1 AS one FROM runs WHERE run_id = ?').get(typed)) return { kind: 'run', runId: typed };
  if (typed.length < MIN_RUN_ID_START) return { kind: 'none', short: true };
  const starting = (topLevel: boolean) =>
    db
      .prepare<[string, string, number], { run_id: string }>(
        `SELECT run_id FROM runs WHERE run_id >= ? AND run_id < ?${topLevel ? " AND instr(run_id, ':') = 0" : ''} ORDER BY run_id LIMIT ?`,
      )
      .all(typed, `${typed}\u{10ffff}`, MAX_CANDIDATES + 1)
      .map((row) => row.run_id)
      .filter((id) => id.startsWith(typed));
  // Runs of their own first; a start only child runs have (their parent deleted, or typed past the parent's id) next.
  const top = starting(true);
  const candidates = top.length > 0 ? top : starting(false);
  const [only, second] = candidates;
  if (only === undefined) return { kind: 'none', short: false };
  if (second === undefined) return { kind: 'run', runId: only };
  const root = candidates.find((c) => candidates.every((other) => other === c || other.startsWith(`${c}:`)));
  if (root !== undefined) return { kind: 'run', runId: root };
  return { kind: 'ambiguous', runIds: candidates.slice(0, MAX_CANDIDATES), more: candidates.length > MAX_CANDIDATES };
}
