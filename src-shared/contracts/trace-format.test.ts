import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunEvent, eventId } from './events';
import { TRACE_FORMAT, TRACE_ROUND_PATHS, fromTraceFormat, traceLine } from './trace-format';
import { traceLineEvent } from './trace-line';

const RUN = 'trace-format-run';
const at = (seq: number) => ({ id: eventId(RUN, seq), run_id: RUN, seq, ts: `2026-12-01T10:00:0${seq}.000Z` });
const WRITE = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'summary.md', content: 'x', round: 0 } } as const;

// Internal events (rounds as indexes from 0), one per kind of place a round sits, nested ones included.
const EVENTS: RunEvent[] = [
  { type: 'round.started', ...at(0), round: 0, proposer: 'student' },
  { type: 'decision.selected', ...at(1), round: 0, source: 'student', decision: WRITE },
  { type: 'round.completed', ...at(2), round: 0, record: { round: 0, proposer: 'student', candidate: {}, verdicts: [], outcome: 'escalated' } },
  {
    type: 'intervention.requested',
    ...at(3),
    round: 1,
    intervention: { id: 'intervention-0001', run_id: RUN, round: 1, kind: 'escalation', decision: WRITE, reason: 'a person decides', options: ['approve', 'reject'], requested_at: '2026-12-01T10:00:03.000Z' },
  },
  { type: 'scs.supervisor.phase_stopped', ...at(4), phase: 1, round: 2, condition: '"ENOENT"', matched: 'ENOENT', evidence: [eventId(RUN, 2)], changed_files: [{ round: 1, tool: 'write_file', target: 'a.md', result: 'ok', ok: true }, { round: 2, tool: 'write_file', target: 'b.md', result: 'ok', ok: true }] },
  { type: 'learning.example', ...at(5), round: 3, kind: 'review', context_ref: { round: 2, kind: 'review', start: 0, end: 2 }, reason_codes: [], agreement: true, models: { student: 's', teacher: 't' } },
  { type: 'run.finished', ...at(6), status: 'completed', rounds: 4, event_count: 7 },
].map((e) => RunEvent.parse(e));

const written = (e: RunEvent) => JSON.parse(traceLine(e)) as Record<string, unknown> & { round?: number };

/** Every path to a key `round` in RunEvent's schema, as `type:key.key[]…`. */
function schemaRoundPaths(): string[] {
  type Schema = { $ref?: string; properties?: Record<string, Schema>; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; items?: Schema };
  const root = z.toJSONSchema(RunEvent, { unrepresentable: 'any', io: 'input' }) as Schema & { $defs?: Record<string, Schema> };
  const found = new Set<string>();
  const walk = (s: Schema | undefined, path: string[], seen: ReadonlySet<string>): void => {
    if (s === undefined) return;
    if (s.$ref !== undefined) {
      const name = s.$ref.split('/').at(-1) ?? '';
      if (!seen.has(name)) walk(root.$defs?.[name], path, new Set([...seen, name]));
      return;
    }
    for (const [key, child] of Object.entries(s.properties ?? {})) {
      if (key === 'round') found.add(path.concat('round').join('.'));
      walk(child, [...path, key], seen);
    }
    for (const child of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(child, path, seen);
    walk(s.items, [...path, '*'], seen);
  };
  for (const variant of root.oneOf ?? root.anyOf ?? []) {
    const type = (variant.properties?.type as { const?: string } | undefined)?.const ?? '?';
    for (const [key, child] of Object.entries(variant.properties ?? {})) {
      if (key === 'round') found.add(`${type}:round`);
      walk(child, [`${type}:${key}`], new Set());
    }
  }
  return [...found].sort();
}

describe('trace format 2: rounds numbered from 1 in every trace file', () => {
  it('renumbers every round RunEvent has, nested ones included: a new round field not listed fails here', () => {
    const listed = Object.entries(TRACE_ROUND_PATHS)
      .flatMap(([type, paths]) => paths.map((path) => `${type}:${path.join('.')}`))
      .sort();
    expect(listed).toEqual(schemaRoundPaths());
  });

  it('a written line says trace_format 2 and numbers each of its rounds from 1, nested rounds too', () => {
    const lines = EVENTS.map(written);
    for (const line of lines) expect(line.trace_format).toBe(TRACE_FORMAT);
    expect(lines.map((l) => l.round)).toEqual([1, 1, 1, 2, 3, 4, undefined]);
    expect(lines[2]).toMatchObject({ record: { round: 1 } });
    expect(lines[3]).toMatchObject({ intervention: { round: 2 } });
    expect(lines[4]).toMatchObject({ changed_files: [{ round: 2 }, { round: 3 }] });
    expect(lines[5]).toMatchObject({ context_ref: { round: 3 } });
    // Only rounds are renumbered: a tool argument that happens to be called "round" is the model's, left alone.
    expect(lines[1]).toMatchObject({ decision: { arguments: { round: 0 } } });
    expect(lines[6]).toMatchObject({ rounds: 4 });
  });

  it('reads back exactly the event that was written', () => {
    for (const event of EVENTS) expect(traceLineEvent(traceLine(event))).toEqual({ ok: true, event });
  });

  it('a line without trace_format (format 1, written before) reads as it is: its rounds are indexes from 0', () => {
    for (const event of EVENTS) expect(traceLineEvent(JSON.stringify(event))).toEqual({ ok: true, event });
  });

  it('a format-2 line with a round 0 is refused with its reason, not read one round early', () => {
    const line = { ...JSON.parse(traceLine(EVENTS[0]!)), round: 0 } as object;
    expect(traceLineEvent(JSON.stringify(line))).toEqual({ ok: false, problem: 'round 0 in a trace_format 2 line: its rounds are numbered from 1' });
  });

  it('a line of an unknown trace format is refused, naming the formats this version reads', () => {
    const line = JSON.stringify({ ...JSON.parse(traceLine(EVENTS[0]!)), trace_format: 3 });
    const read = traceLineEvent(line);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problem).toMatch(/^trace format 3: this version of Steward reads format 2/);
  });

  it('a value that is no event passes through untouched, for the schema to name what is wrong', () => {
    expect(fromTraceFormat([1, 2])).toEqual({ ok: true, value: [1, 2] });
    expect(fromTraceFormat({ trace_format: 2, type: 'round.started', round: 'one' })).toEqual({ ok: true, value: { type: 'round.started', round: 'one' } });
  });
});
