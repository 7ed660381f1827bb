import type { RunEvent } from '@shared/contracts/events';

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

/**
 * A run indexes at most this many more words from its trace (teacher explanations, tool-call arguments…), first
 * come: a long run's later rounds mostly repeat its first ones' words, and every word is one more index entry each
 * time the row is rewritten (once per ingested batch), so the live path pays for them.
 */
export const MAX_TRACE_WORDS = 500;
/** Characters of one text of one event read for words (an explanation or reason is at most 600). */
const MAX_TEXT_CHARS = 600;
/** Characters of one string of a decision or its arguments: a path, a query, a name, the start of a file's content. */
const MAX_ARG_CHARS = 200;
/** How deep tool-call arguments are read for strings. */
const MAX_ARG_DEPTH = 6;

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
  /** The words of its trace so far (traceWords), kept on the row as its events arrive. */
  trace_words?: readonly TraceWord[];
  status?: string;
}

/**
 * The words a run's row is indexed by: task first, so the task is whole whatever the output's length; then, once the
 * run is no longer running (finished, stopped, waiting for a person), its trace's. While it runs, each ingested batch
 * rewrites the row and every indexed word is rewritten with it: its trace's words join once, when it stops.
 */
export function runWords(run: SearchableRun): string[] {
  const text = [run.task, run.spec_name, run.models.student, run.models.teacher, run.message, run.output].filter((t) => t !== undefined).join('\n');
  const own = searchWords(text).slice(0, MAX_RUN_WORDS);
  const trace = run.status !== 'running' ? (run.trace_words ?? []) : [];
  return trace.length > 0 ? [...new Set([...own, ...trace.map(([w]) => w)])] : own;
}

/**
 * A trace word and where it was first said: its event's sequence number, then its place among that event's words.
 * The earliest are kept, so a run's words are the same whatever order its events arrive in.
 */
export type TraceWord = [word: string, at: number];
/** Words one event can rank apart (far more than its cut texts hold). */
const PER_EVENT = 1_000_000;

/**
 * A run's trace words with these events' added: what teachers and monitors explained, what candidates and decisions
 * said and the arguments of tool calls, at most MAX_TRACE_WORDS (the earliest said). Read from the events as the
 * host stored them: it masks sensitive arguments and secrets before an event leaves it, so a masked value is
 * `••••••` here, never a word. Idempotent and order-independent: the same events give the same words.
 */
export function traceWords(known: readonly TraceWord[] | undefined, events: readonly RunEvent[]): TraceWord[] | undefined {
  // Once full, a word said after the latest kept one can never get in: a live run's later events are not even read.
  const full = known !== undefined && known.length >= MAX_TRACE_WORDS;
  const latest = full ? (known.at(-1)?.[1] ?? -1) : Infinity;
  const read = events.filter((e) => e.seq * PER_EVENT < latest);
  if (read.length === 0) return known && [...known];
  const at = new Map<string, number>(known);
  let changed = false;
  for (const e of read) {
    let i = 0;
    for (const text of eventTexts(e)) {
      for (const w of searchWords(text.slice(0, MAX_TEXT_CHARS))) {
        const place = e.seq * PER_EVENT + Math.min(i++, PER_EVENT - 1);
        const seen = at.get(w);
        if (seen === undefined || place < seen) {
          at.set(w, place);
          changed = true;
        }
      }
    }
  }
  if (!changed) return known && [...known];
  return [...at].sort((a, b) => a[1] - b[1]).slice(0, MAX_TRACE_WORDS);
}

/** The texts of one event that text search reads. */
function eventTexts(e: RunEvent): string[] {
  switch (e.type) {
    case 'candidate.proposed':
      // A decision the parser read: its fields; prose it could not: the reply as written (both masked by the host).
      return e.parsed.raw !== undefined ? strings(e.parsed.raw) : [e.reply.text];
    case 'verdict.received':
      return e.attempt.verdict ? [e.attempt.verdict.explanation, ...strings(e.attempt.verdict.replacement)] : [];
    case 'decision.selected':
      return strings(e.decision);
    case 'tool.executed':
      return [e.execution.tool, ...strings(e.execution.arguments)];
    case 'intervention.requested':
      return [e.intervention.reason];
    case 'scs.supervisor.phase_blocked':
      return e.reasons;
    case 'agent.started':
      return [e.task];
    default:
      // The monitor's decisions (scs.student.*, scs.budget.*) carry its reason.
      return 'decision' in e && 'reason' in e.decision && typeof e.decision.reason === 'string' ? [e.decision.reason] : [];
  }
}

/** Every string value in a decision or its arguments (not the keys, not `decision_type`), depth-bounded. */
function strings(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value.slice(0, MAX_ARG_CHARS)];
  if (depth >= MAX_ARG_DEPTH || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, depth + 1));
  return Object.entries(value).flatMap(([k, v]) => (k === 'decision_type' ? [] : strings(v, depth + 1)));
}

/** True when every query word starts some word of the run (prefix match: what a person typing expects). */
export function matchesWords(runWordList: readonly string[], query: readonly string[]): boolean {
  return query.every((q) => runWordList.some((w) => w.startsWith(q)));
}
