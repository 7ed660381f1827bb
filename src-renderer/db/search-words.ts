/**
 * The words of the runs list's text search: one tokenizer for what a run row indexes (its `words`, a multi-entry
 * index since database v4) and for what a person types, so both sides always agree. Pure: no Dexie, no DOM.
 */

/**
 * A word keeps at most this many characters. Past that a "word" is a hash, a path or base64 nobody types whole,
 * and each index entry stays small; a prefix search still finds it by its start (the query is cut the same way).
 */
export const MAX_WORD_CHARS = 32;

/**
 * A run indexes at most this many distinct words. The output summary is cut at 4,000 characters (ingest-events.ts),
 * about 2,000 words at most, so this only bounds an unusually long task, message or output: each row write re-indexes
 * every word, and a run's row is rewritten as its events arrive.
 */
export const MAX_RUN_WORDS = 2000;

/** A letter or digit, then letters, digits and combining marks (so "naïve" or a Devanagari word stays one word). */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

function cut(word: string): string {
  if (word.length <= MAX_WORD_CHARS) return word;
  // By code point, so a character outside the BMP is never split in half.
  return Array.from(word).slice(0, MAX_WORD_CHARS).join('');
}

/** Lowercase words of `text`, punctuation dropped, each once, in order of first appearance. */
export function searchWords(text: string): string[] {
  // NFKC first: a decomposed accent, a full-width letter or a ligature becomes the character a person types.
  const words = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  return [...new Set(words.map(cut))];
}

/** What a run's row holds that text search looks in (already masked by the host: masked values stay masked). */
export interface SearchableRun {
  spec_name: string;
  task?: string;
  output?: string;
  message?: string;
  models: { student: string; teacher: string };
}

/** The words a run's row is indexed by: task first, so the task is whole whatever the output's length. */
export function runWords(run: SearchableRun): string[] {
  const text = [run.task, run.spec_name, run.models.student, run.models.teacher, run.message, run.output].filter((t) => t !== undefined).join('\n');
  return searchWords(text).slice(0, MAX_RUN_WORDS);
}

/** True when every query word starts some word of the run (prefix match: what a person typing expects). */
export function matchesWords(runWordList: readonly string[], query: readonly string[]): boolean {
  return query.every((q) => runWordList.some((w) => w.startsWith(q)));
}
