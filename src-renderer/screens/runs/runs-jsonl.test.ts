import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb } from '../../db/db';
import { ingestEvents } from '../../db/ingest-events';
import { eventLog, finishRun, readExecutedRound, startRun } from '../../testing/event-fixtures';
import { importChunks, parseTraceJsonl, runsJsonl } from './runs-jsonl';

function run(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  readExecutedRound(log, 0);
  finishRun(log, 'completed', 1, 'done');
  return log.events;
}
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-jsonl-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('runs as JSONL', () => {
  it('exports the chosen runs one event a line, run after run, each in sequence order, and reads back the same', async () => {
    const a = run('run-jsonl-aaaa');
    const b = run('run-jsonl-bbbb');
    await ingestEvents(db, [...b].reverse().concat([...a].reverse()));
    const text = await runsJsonl(db, ['run-jsonl-bbbb', 'run-jsonl-aaaa']);
    const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line) as { run_id: string; seq: number; trace_format?: number; type: string; round?: number; record?: { round: number } });
    expect(lines.map((e) => [e.run_id, e.seq])).toEqual([...a, ...b].map((e) => [e.run_id, e.seq]));
    // The file is read by people and other tools: trace format 2, the first round is round 1, as the app shows it.
    expect(lines.every((e) => e.trace_format === 2)).toBe(true);
    expect(lines.filter((e) => e.type === 'round.completed').map((e) => [e.round, e.record?.round])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(parseTraceJsonl(text)).toEqual({ ok: true, events: [...a, ...b], lines: [...a, ...b].map((_, i) => i + 1), runs: 2 });
  });

  it('an invalid line is named by its number and nothing is taken; blank lines are fine', () => {
    const events = run('run-jsonl-cccc');
    const text = `${JSON.stringify(events[0])}\n\n${JSON.stringify(events[1])}\n{"type":"round.started","id":"x"}\n`;
    const parsed = parseTraceJsonl(text);
    expect(parsed).toMatchObject({ ok: false, line: 4 });
    expect(parsed.ok ? '' : parsed.problem).toMatch(/round\.started/);
    expect(parseTraceJsonl('not json\n')).toMatchObject({ ok: false, line: 1, problem: 'not JSON' });
    expect(parseTraceJsonl('\n \n')).toMatchObject({ ok: false, line: 0 });
  });

  it('cuts an import into requests under the size and count limits, keeping the order', () => {
    const events = Array.from({ length: 30 }, (_, i) => run(`run-jsonl-${String(i).padStart(4, '0')}`)).flat();
    const size = (chunk: unknown[]) => JSON.stringify(chunk).length;
    const chunks = importChunks(events, { maxBytes: 4_000, maxEvents: 7 });
    expect(chunks.ok).toBe(true);
    if (!chunks.ok) return;
    expect(chunks.chunks.flat()).toEqual(events);
    for (const chunk of chunks.chunks) {
      expect(chunk.length).toBeLessThanOrEqual(7);
      expect(size(chunk)).toBeLessThanOrEqual(4_000);
    }
    const huge = importChunks(events, { maxBytes: 100, maxEvents: 7 });
    expect(huge).toMatchObject({ ok: false, line: 1 });
  });

  it('a trace written before trace_format (rounds as indexes from 0) imports as the same events', () => {
    const events = run('run-jsonl-cli1');
    expect(parseTraceJsonl(jsonl(events))).toEqual({ ok: true, events, lines: events.map((_, i) => i + 1), runs: 1 });
  });
});
