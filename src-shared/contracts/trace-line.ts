import type { z } from 'zod';
import { RunEvent } from './events';
import { fromTraceFormat } from './trace-format';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '../util/json-depth';

/**
 * One line of a `--trace` JSONL file as an event, or what is wrong with it in words a person can
 * act on: the learning export and the OTLP export skip such a line and name it by number. Both trace
 * formats read (trace-format.ts): the event comes back with its rounds as indexes from 0.
 */
export function traceLineEvent(text: string): { ok: true; event: RunEvent } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  // Exporting serialises the event again (recursively): a line too deep for that is skipped.
  if (jsonDepthExceeds(value)) return { ok: false, problem: new JsonTooDeepError(MAX_JSON_DEPTH).message };
  const read = fromTraceFormat(value);
  if (!read.ok) return { ok: false, problem: read.problem };
  const parsed = RunEvent.safeParse(read.value);
  if (parsed.success) return { ok: true, event: parsed.data };
  return { ok: false, problem: eventProblem(value, parsed.error.issues[0]) };
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(RunEvent.options.map((o) => o.shape.type.value));

/**
 * Why a line is not an event this version reads, said for a person: never the schema's own text
 * (a list of every event type, "Invalid discriminator value"), at most the name of the field at fault.
 */
function eventProblem(value: unknown, issue: z.core.$ZodIssue | undefined): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a Steward event (each line holds one event, a JSON object)';
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || type === '') return 'not a Steward event (it has no event type)';
  if (!KNOWN_TYPES.has(type)) return `an event of a kind this version of Steward does not know ("${type.slice(0, 60)}"; a newer version may have written it)`;
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
  const missing = issue?.code === 'invalid_type' && /received undefined/.test(issue.message);
  const what = field === undefined ? 'it is not in the form this version reads' : missing ? `its field "${field}" is missing` : `its field "${field}" does not hold what this version expects`;
  // A known event that fails is most likely from another Steward version: say so.
  return `a "${type}" event this version cannot read (${what}; another version of Steward may have written it)`;
}
