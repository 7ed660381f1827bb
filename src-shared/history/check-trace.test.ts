import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '../contracts/events';
import { canonicalJson } from '../util/canonical-json';
import { MASK } from '../util/mask';
import { checkTraceFiles, MAX_TRACE_LINE_BYTES, type TraceCheck } from './check-trace';

/** Issue 26: damaged input is refused by its line (or trimmed and masked as recorded), importing nothing. */

const TS = '2026-01-05T09:00:00.000Z';
const started = (runId: string, task = 'tidy the notes'): RunEvent =>
  RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: TS, spec_id: 'cli', spec_name: 'CLI', task, supervision: { enabled: false }, models: { student: 's', teacher: 't' } });
const notice = (runId: string, seq: number, message: string): RunEvent => RunEvent.parse({ type: 'run.notice', id: eventId(runId, seq), run_id: runId, seq, ts: TS, message });
const finished = (runId: string, seq: number, output?: string): RunEvent =>
  RunEvent.parse({ type: 'run.finished', id: eventId(runId, seq), run_id: runId, seq, ts: TS, status: 'completed', rounds: 0, event_count: seq + 1, ...(output === undefined ? {} : { output }) });
const run = (runId: string, notices: readonly string[] = ['step']): RunEvent[] => [started(runId), ...notices.map((m, i) => notice(runId, i + 1, m)), finished(runId, notices.length + 1)];

const jsonl = (lines: readonly unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
const check = (lines: readonly unknown[], name = 'trace.jsonl') => checkTraceFiles([{ name, text: jsonl(lines) }]);
const refusal = (checked: TraceCheck) => {
  if (checked.ok) throw new Error('the trace was taken');
  return checked;
};
const KEY = `sk-proj-${'A1b2C3d4E5'.repeat(4)}`;

describe('checking an imported trace', () => {
  it('takes a good trace whole: each event once, with its line, and counts its runs', () => {
    const events = [...run('check-run-0001'), ...run('check-run-0002', ['a', 'b'])];
    const checked = check(['', ...events]);
    expect(checked).toMatchObject({ ok: true, events, runs: 2, repeats: 0, trimmed: 0, masked: 0 });
    if (checked.ok) expect(checked.entries.map((e) => e.at.line)).toEqual(events.map((_, i) => i + 2));
  });

  it('refuses a line over the bound by its number, before reading it (a 20 MB value)', () => {
    const huge = JSON.stringify({ ...notice('check-run-0003', 1, 'x'), message: 'x'.repeat(20 * 1024 * 1024) });
    const refused = refusal(check([started('check-run-0003'), huge, finished('check-run-0003', 2)], 'big.jsonl'));
    expect(refused.at).toEqual({ file: 'big.jsonl', line: 2 });
    expect(refused.message).toMatch(/^big\.jsonl, line 2: the line is 20\.0 MiB, and a trace line holds at most 4\.0 MiB/);
    // The bound is well above any recorded event: a line just under it is read (here: found not to be an event).
    const under = `{"type":"run.notice","message":"${'y'.repeat(MAX_TRACE_LINE_BYTES - 100)}"}`;
    expect(refusal(check([under])).problem).toMatch(/^a "run\.notice" event this version cannot read/);
  });

  it('refuses the same id twice with different content, naming both lines', () => {
    const events = run('check-run-0004', ['first', 'second']);
    const changed = { ...events[1]!, message: 'changed' };
    const refused = refusal(check([...events, changed]));
    expect(refused.at.line).toBe(5);
    expect(refused.message).toBe(`trace.jsonl, line 5: event "${events[1]!.id}" is also on line 2, with different content: one of the two lines was changed or damaged. Keep the right one and import again`);
  });

  it('refuses two different events at one place (run, seq), naming both lines', () => {
    const events = run('check-run-0005');
    const other = { ...notice('check-run-0005', 1, 'another'), id: 'check-run-0005:other-1' };
    const refused = refusal(check([events[0]!, events[1]!, other, events[2]!]));
    expect(refused.message).toMatch(/^trace\.jsonl, line 3: run "check-run-0005" has two different events at seq 1, this line \("run\.notice"\) and line 2 \("run\.notice"\)/);
  });

  it('names the other file when the earlier line is in another one', () => {
    const events = run('check-run-0006');
    const refused = refusal(checkTraceFiles([
      { name: 'a.jsonl', text: jsonl(events) },
      { name: 'b.jsonl', text: jsonl([{ ...events[1]!, message: 'edited' }]) },
    ]));
    expect(refused.message).toMatch(/^b\.jsonl, line 1: event "check-run-0006:000001" is also on line 2 of a\.jsonl, with different content/);
  });

  it('refuses a run that ends twice, and a file with no events', () => {
    const events = run('check-run-0007');
    expect(refusal(check([...events, finished('check-run-0007', 5)])).message).toMatch(/^trace\.jsonl, line 4: run "check-run-0007" ends twice, at seq 5 here and at seq 2 on line 3/);
    expect(refusal(checkTraceFiles([{ name: 'a.jsonl', text: jsonl(events) }, { name: 'empty.jsonl', text: '\n \n' }])).message).toBe('empty.jsonl: the file holds no events');
  });

  it('an unchanged repeat is harmless: taken once, counted', () => {
    const events = run('check-run-0008');
    const checked = check([...events, events[1]!, events[0]!]);
    expect(checked).toMatchObject({ ok: true, events, repeats: 2 });
  });

  it('masks a raw key and trims long model text as recorded events are; the key never comes through', () => {
    const events = [started('check-run-0009', `use ${KEY} to call`), finished('check-run-0009', 1, 'o'.repeat(20_000))];
    const checked = check(events);
    if (!checked.ok) throw new Error(checked.message);
    expect(checked).toMatchObject({ masked: 1, trimmed: 1 });
    expect(JSON.stringify(checked.events)).not.toContain(KEY.slice(8));
    expect(checked.events[0]).toMatchObject({ task: `use ${MASK} to call` });
    expect(checked.events[1]).toMatchObject({ trimmed: [{ path: 'output', original_bytes: 20_000 }] });
    // What was taken is a fixed point: checked again it is the same, nothing more trimmed or masked.
    expect(check(checked.events)).toMatchObject({ ok: true, events: checked.events, trimmed: 0, masked: 0 });
  });

  it('refuses a key in an event\'s identity, which masking would turn into another event', () => {
    expect(refusal(check([notice(`run-${KEY}`, 0, 'x')])).problem).toMatch(/its event id or run id looks like a raw key/);
  });
});

/** Runs of started / notices / finished, with distinct run ids. */
const traces = fc
  .array(fc.array(fc.string({ maxLength: 40 }), { maxLength: 4 }), { minLength: 1, maxLength: 4 })
  .map((runs) => runs.flatMap((notices, i) => run(`prop-run-${String(i).padStart(4, '0')}`, notices)));

const canonicalSet = (events: readonly RunEvent[]) => new Set(events.map((e) => canonicalJson(e)));

describe('checking an imported trace (properties)', () => {
  it('any trace, reordered and with lines repeated unchanged, imports the same set of events', () => {
    fc.assert(
      fc.property(
        traces.chain((events) => fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }), fc.array(fc.nat(events.length - 1), { maxLength: 6 }))),
        ([events, shuffled, repeats]) => {
          const lines = [...shuffled, ...repeats.map((i) => events[i]!)];
          const checked = check(lines);
          if (!checked.ok) throw new Error(checked.message);
          expect(canonicalSet(checked.events)).toEqual(canonicalSet(events));
          expect(checked.events).toHaveLength(events.length);
          expect(checked.repeats).toBe(repeats.length);
        },
      ),
    );
  });

  it('any change to the content of a repeated event is refused by the later line, naming the earlier', () => {
    const change = fc.constantFrom(
      (e: RunEvent) => ({ ...e, ts: '2027-02-02T00:00:00.000Z' }),
      (e: RunEvent) => (e.type === 'run.notice' ? { ...e, message: `${e.message}!` } : { ...e, invocation_id: 'changed' }),
      (e: RunEvent) => ({ ...e, pattern_member: 'someone#1.1' }),
    );
    fc.assert(
      fc.property(
        traces.chain((events) => fc.tuple(fc.constant(events), fc.nat(events.length - 1), fc.nat(events.length), change)),
        ([events, which, where, alter]) => {
          const original = events[which]!;
          const lines: unknown[] = [...events];
          lines.splice(Math.max(where, which + 1), 0, alter(original));
          const changedLine = Math.max(where, which + 1) + 1;
          const refused = refusal(check(lines));
          expect(refused.at.line).toBe(changedLine);
          expect(refused.problem).toContain(`line ${which + 1}`);
        },
      ),
    );
  });
});
