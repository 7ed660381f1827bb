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
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  // A known-looking event that fails is most likely from another Steward version: say so.
  const what = typeof type === 'string' ? `a "${type}" event this version cannot read` : 'not a Steward event';
  return { ok: false, problem: `${what}${where}: ${issue?.message ?? 'invalid'}` };
}
