import type { RoundFact } from './contracts';
import { roundNumber } from '../contracts/round-number';

/**
 * When a phase plan's stop condition "matches" (seed 001: "if tool results invalidate the plan,
 * report the evidence and stop for student review"). Stop conditions are the committee's free text;
 * only these forms are checked, deterministically, after every round of the phase:
 *
 * 1. Quoted text — `"…"` or `` `…` `` (at least 3 characters): matches when the round's tool result
 *    contains it, ignoring case ( `the notes are missing ("ENOENT")` ).
 * 2. `same failure twice` / `same failure N times` (N = 2…9, or two…five): matches when the last N
 *    rounds of the phase all failed with the same call (tool and arguments).
 * 3. `any failure` / `any tool failure` / `any error`: matches when the round failed.
 *
 * Any other text is not checked by the runtime (it stays advice to the executor and the monitor);
 * `uncheckedConditions` lists it so the brief can say so. The first matching condition, in plan
 * order, wins.
 */

export interface StopMatch {
  condition: string;
  /** The round whose result matched (as the run counts it, from 0; texts say roundNumber(round)). */
  round: number;
  /** Which rule matched, and on what: a short, quotable fact. */
  matched: string;
  /** The event ids of the rounds the match rests on. */
  evidence: string[];
}

const QUOTED = /"([^"]{3,200})"|`([^`]{3,200})`/g;
const WORDS: Record<string, number> = { twice: 2, two: 2, three: 3, thrice: 3, four: 4, five: 5 };
const SAME_FAILURE = /\bsame (?:failure|error)\s+(twice|thrice|(\d|two|three|four|five)\s+times)\b/i;
const ANY_FAILURE = /\bany (?:tool )?(?:failure|error)\b/i;

function quotedTexts(condition: string): string[] {
  return [...condition.matchAll(QUOTED)].map((m) => (m[1] ?? m[2] ?? '').trim()).filter((t) => t.length >= 3);
}

/** N of `same failure N times`, or undefined when the condition is not of that form. */
function sameFailureCount(condition: string): number | undefined {
  const m = SAME_FAILURE.exec(condition);
  if (!m) return undefined;
  const word = (m[2] ?? m[1] ?? '').toLowerCase();
  const n = WORDS[word] ?? Number.parseInt(word, 10);
  return Number.isInteger(n) && n >= 2 ? n : undefined;
}

export function isCheckableCondition(condition: string): boolean {
  return quotedTexts(condition).length > 0 || sameFailureCount(condition) !== undefined || ANY_FAILURE.test(condition);
}

export function uncheckedConditions(conditions: readonly string[]): string[] {
  return conditions.filter((c) => !isCheckableCondition(c));
}

/** The first stop condition the phase's latest round matches; `facts` are the phase's rounds, oldest first. */
export function matchStopCondition(conditions: readonly string[], facts: readonly RoundFact[]): StopMatch | undefined {
  const last = facts.at(-1);
  if (!last) return undefined;
  const result = (last.result ?? '').toLowerCase();
  for (const condition of conditions) {
    const quoted = quotedTexts(condition).find((q) => result.includes(q.toLowerCase()));
    if (quoted !== undefined) return { condition, round: last.round, matched: `the result of round ${roundNumber(last.round)} contains "${quoted}"`, evidence: last.event_ids.slice(-1) };
    const n = sameFailureCount(condition);
    if (n !== undefined) {
      const tail = facts.slice(-n);
      if (tail.length === n && tail.every((f) => f.failed && f.call_key !== undefined && f.call_key === last.call_key)) {
        return { condition, round: last.round, matched: `${last.tool ?? 'the same call'} failed ${n} times in a row`, evidence: tail.flatMap((f) => f.event_ids.slice(-1)) };
      }
    }
    if (ANY_FAILURE.test(condition) && last.failed) return { condition, round: last.round, matched: `round ${roundNumber(last.round)} failed`, evidence: last.event_ids.slice(-1) };
  }
  return undefined;
}
