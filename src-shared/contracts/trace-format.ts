import type { RunEvent, RunEventType } from './events';
import { roundIndex, roundNumber } from './round-number';

/**
 * The trace file format (docs/architecture.md, "Trace files"). Inside Steward a round is an index
 * from 0 (events, checkpoints, the journal, idempotency keys); a trace file is read by people and
 * other tools, so it numbers rounds from 1, as every screen does. Each line says so itself
 * (`"trace_format": 2`), so a file that concatenates traces of different versions stays
 * unambiguous. A line without the field is format 1, written before: its rounds are indexes from 0.
 */
export const TRACE_FORMAT = 2;

/** Where a round sits in an event: keys from the event down; `*` is every item of an array. */
type RoundPath = readonly string[];

/** Every `round` of every event type (a guard test walks RunEvent's schema so none is missed). */
export const TRACE_ROUND_PATHS = {
  'tools.snapshot': [['round']],
  'round.started': [['round']],
  'candidate.proposed': [['round']],
  'candidate.validated': [['round']],
  'review.decided': [['round']],
  'verdict.received': [['round']],
  'decision.selected': [['round']],
  'decision.authorized': [['round']],
  'decision.committed': [['round']],
  'tool.executed': [['round']],
  'tool.progress': [['round']],
  'response.delivered': [['round']],
  'round.completed': [['round'], ['record', 'round'], ['record', 'provenance', '*', 'sources', '*', 'round']],
  'intervention.requested': [['round'], ['intervention', 'round'], ['intervention', 'provenance', '*', 'sources', '*', 'round']],
  'intervention.answered': [['round']],
  'scs.supervisor.phase_stopped': [['round'], ['changed_files', '*', 'round']],
  'model.called': [['round']],
  'model.answered': [['round']],
  handover: [['round']],
  'learning.example': [['round'], ['context_ref', 'round']],
  // A student trial's round (issue 31): the recorded round it replayed.
  'trial.round': [['trial', 'source', 'round']],
} as const satisfies Partial<Record<RunEventType, readonly RoundPath[]>>;

function roundPaths(type: unknown): readonly RoundPath[] {
  return typeof type === 'string' && Object.hasOwn(TRACE_ROUND_PATHS, type) ? TRACE_ROUND_PATHS[type as keyof typeof TRACE_ROUND_PATHS] : [];
}

/** `value` with the number at `path` mapped (copies only the objects on the way; absent keys stay absent). */
function mapAt(value: unknown, path: RoundPath, f: (n: number) => number): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return typeof value === 'number' ? f(value) : value;
  if (head === '*') return Array.isArray(value) ? value.map((item) => mapAt(item, rest, f)) : value;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, head)) return value;
  const record = value as Record<string, unknown>;
  return { ...record, [head]: mapAt(record[head], rest, f) };
}

function mapRounds(value: unknown, type: unknown, f: (n: number) => number): unknown {
  return roundPaths(type).reduce((v, path) => mapAt(v, path, f), value);
}

/** The event as a trace file holds it (current format, rounds from 1): what the app's Trace tab shows of an event too. */
export function traceRecord(event: RunEvent): Record<string, unknown> {
  return { trace_format: TRACE_FORMAT, ...(mapRounds(event, event.type, roundNumber) as object) };
}

/** One line of a trace file (without its newline). */
export function traceLine(event: RunEvent): string {
  return JSON.stringify(traceRecord(event));
}

/**
 * A parsed trace line as the event Steward keeps (rounds as indexes from 0), before it is validated
 * as a RunEvent: format 2 is renumbered, a line without `trace_format` (format 1) is taken as it is.
 * Every reader of trace files goes through this (trace-line.ts).
 */
export function fromTraceFormat(value: unknown): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'trace_format')) return { ok: true, value };
  const { trace_format: format, ...event } = value as Record<string, unknown>;
  if (format !== TRACE_FORMAT) {
    return { ok: false, problem: `trace format ${JSON.stringify(format)}: this version of Steward reads format ${TRACE_FORMAT} and traces without a trace_format (format 1)` };
  }
  let fromZero: number | undefined;
  const read = mapRounds(event, event.type, (round) => {
    if (round < 1) fromZero ??= round;
    return roundIndex(round);
  });
  if (fromZero !== undefined) return { ok: false, problem: `round ${fromZero} in a trace_format ${TRACE_FORMAT} line: its rounds are numbered from 1` };
  return { ok: true, value: read };
}
