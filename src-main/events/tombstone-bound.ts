/**
 * How many tombstones the journal keeps before compacting (event-journal.ts), from STEWARD_JOURNAL_MAX_TOMBSTONES:
 * a test or an operator may lower it; unset or not a whole number keeps the default.
 */
export function journalTombstoneBound(env: NodeJS.ProcessEnv): { maxTombstones?: number } {
  const raw = env.STEWARD_JOURNAL_MAX_TOMBSTONES;
  if (raw === undefined || !/^\d{1,9}$/.test(raw.trim())) return {};
  return { maxTombstones: Number(raw.trim()) };
}
