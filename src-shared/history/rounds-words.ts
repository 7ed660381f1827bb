import type { RunStatus } from '../contracts/events';

/**
 * A run's rounds as the run header, the Runs list and `steward runs` say them, alike (issue 28): the
 * number the run view's Rounds tab shows (a round begun counts), and, when the last one did not
 * complete, what became of it: "3 · the 3rd was interrupted" (a host stop cut it off), "3 · the 3rd
 * did not finish" (the run ended otherwise), "3 · the 3rd in progress" (the run goes on).
 */
export interface RoundsWords {
  /** The rounds the run began (its Rounds tab's count). */
  count: number;
  /** What became of the rounds that did not complete; absent when every round completed. */
  note?: string;
}

/** `rounds`: completed rounds; `seen`: rounds the run's events name (completed or not). */
export function roundsWords(row: { status: RunStatus; rounds: number; rounds_seen?: number | undefined }, seen?: number): RoundsWords {
  const count = Math.max(row.rounds, row.rounds_seen ?? 0, seen ?? 0);
  const open = count - row.rounds;
  if (open <= 0) return { count };
  const live = row.status === 'running' || row.status === 'waiting';
  const what = live ? 'in progress' : row.status === 'interrupted' ? (open === 1 ? 'was interrupted' : 'were interrupted') : 'did not finish';
  const which = open === 1 ? `the ${ordinal(count)}` : `the last ${open}`;
  return { count, note: `${which} ${what}` };
}

/** "3 · the 3rd was interrupted", or "3" when every round completed. */
export function roundsText(row: Parameters<typeof roundsWords>[0], seen?: number): string {
  const words = roundsWords(row, seen);
  return words.note === undefined ? String(words.count) : `${words.count} · ${words.note}`;
}

const SUFFIXES: readonly string[] = ['th', 'st', 'nd', 'rd'];

/** 1st, 2nd, 3rd, 4th… 11th, 12th, 13th… 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${SUFFIXES[n % 10] ?? 'th'}`;
}
