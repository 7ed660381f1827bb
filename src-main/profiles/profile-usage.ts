import { MAX_NAMED_RUNS, type ProfileUsers } from '@shared/contracts/profile-store';
import type { HistoryDb } from '../events/history-db';

/** `"id":"<id>"` as JSON writes it, for LIKE: the id's own `%`, `_` and `\` taken literally. */
function idPattern(id: string): string {
  return `%${JSON.stringify({ id }).slice(1, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The profile ids a run's record names: its summary's profiles, its first event's profiles or trace
 * profile. Undefined when the record does not read: the caller counts the run as a user (fail closed).
 */
function namedIds(summary: string, first: string | null): Set<string> | undefined {
  const ids = new Set<string>();
  const add = (refs: unknown) => {
    if (typeof refs !== 'object' || refs === null) return;
    for (const ref of Object.values(refs)) if (typeof ref === 'object' && ref !== null && typeof (ref as { id?: unknown }).id === 'string') ids.add((ref as { id: string }).id);
  };
  try {
    add((JSON.parse(summary) as { profiles?: unknown }).profiles);
    if (first !== null) {
      const event = JSON.parse(first) as { profiles?: unknown; trace_profile?: unknown };
      add(event.profiles);
      add({ trace: event.trace_profile });
    }
  } catch {
    return undefined;
  }
  return ids;
}

/**
 * The runs in the history that recorded a version of profile `id` (issue 28): an agent run's
 * profiles (its summary, its run.started) and a workflow run's trace profile (its workflow.started,
 * the run's first event). One indexed look at each run's first event; a text match narrows the rows
 * read, then each is checked exactly. The newest few are named, all are counted.
 */
export function runsUsingProfile(db: HistoryDb, id: string): Pick<ProfileUsers, 'runs' | 'run_count'> {
  const rows = db
    .prepare(
      `SELECT r.run_id, r.name, r.started_at, r.summary, e.body AS first FROM runs r
       LEFT JOIN events e ON e.run_id = r.run_id AND e.seq = 0
       WHERE r.summary LIKE @pattern ESCAPE '\\' OR e.body LIKE @pattern ESCAPE '\\'
       ORDER BY r.started_at DESC, r.run_id DESC`,
    )
    .all({ pattern: idPattern(id) }) as { run_id: string; name: string; started_at: string; summary: string; first: string | null }[];
  // The text matched: a record that does not read is taken to name it (nothing is deleted on a guess).
  const using = rows.filter((r) => namedIds(r.summary, r.first)?.has(id) ?? true);
  return { runs: using.slice(0, MAX_NAMED_RUNS).map(({ run_id, name, started_at }) => ({ run_id, name, started_at })), run_count: using.length };
}
