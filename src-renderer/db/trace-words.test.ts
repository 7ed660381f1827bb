import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import fc from 'fast-check';
import { MAX_RUN_WORDS, MAX_TRACE_WORDS, traceWords } from '@shared/history/search-words';
import { queryRuns } from '../screens/runs/run-query';
import { NO_FILTER } from '../screens/runs/run-filter';
import { eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';
import { finishRound, scsStart } from '../testing/scs-fixtures';

/** Twelve rounds of 200 distinct words each: more than MAX_TRACE_WORDS. */
function wordyRun(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  for (let round = 0; round < 12; round++) {
    log.add({ type: 'round.started', round, proposer: 'student' });
    const args = { path: `notes/${round}.md`, lines: Array.from({ length: 200 }, (_, i) => `w${round}x${i}`) };
    log.add({ type: 'decision.selected', round, source: 'student', decision: { decision_type: 'tool_call', tool_name: 'write_file', arguments: args } });
  }
  finishRun(log, 'completed', 12, 'Wrote twelve notes');
  return log;
}

let db: StewardDb;
let dbCount = 0;

beforeEach(async () => {
  db = new StewardDb(`steward-trace-words-${++dbCount}-${Math.random().toString(36).slice(2)}`);
  await db.open();
});

afterEach(async () => {
  await db.delete();
});

const found = async (text: string) => (await queryRuns(db, { ...NO_FILTER, text }, 100)).map((r) => r.run_id);

describe('a run is found by the words of its trace', () => {
  it('by its teacher’s explanation, the arguments of its tool calls and its monitor’s reasons, once it stops running', async () => {
    const log = eventLog('trace-words-01');
    scsStart(log);
    readExecutedRound(log, 0);
    writeReplacedRound(log, 1);
    finishRound(log, 2, { decision: 'finish_allowed', confidence: 0.9, evidence: [], reason: 'Every owner is listed in the drafted summary.', next_required_action: 'finish' });
    // In batches, as the live path pushes them: the first batch's words stay after the next ones.
    const half = Math.floor(log.events.length / 2);
    await ingestEvents(db, log.events.slice(0, half));
    await ingestEvents(db, log.events.slice(half));
    // While it runs, its row indexes its own words only (every batch rewrites every indexed word of the row).
    expect(await found('outside workspace')).toEqual([]);
    expect(await found('summarise')).toEqual([log.runId]);
    await ingestEvents(db, [finishRun(log, 'completed', 3, 'Done.')]);
    // The teacher's explanation (write_replaced: "Writes outside the workspace; write the summary file instead.").
    expect(await found('outside workspace')).toEqual([log.runId]);
    // A tool call's argument (the replacement writes notes/summary.md with "- buy milk") and the tool's name.
    expect(await found('milk')).toEqual([log.runId]);
    expect(await found('write_file')).toEqual([log.runId]);
    // The monitor's reason, and the committee's reason for approving the plan.
    expect(await found('drafted owner')).toEqual([log.runId]);
    expect(await found('criteria observable')).toEqual([log.runId]);
    // A word the run never said finds nothing.
    expect(await found('zanzibar')).toEqual([]);
  });

  it('a replayed batch changes nothing: the words are the same row for the same events', async () => {
    const log = eventLog('trace-words-02');
    startRun(log);
    writeReplacedRound(log, 0);
    finishRun(log, 'completed', 1, 'Summary written');
    await ingestEvents(db, log.events);
    const once = await db.runs.get(log.runId);
    await ingestEvents(db, log.events);
    expect((await db.runs.get(log.runId))?.words).toEqual(once?.words);
  });

  it('keeps at most MAX_TRACE_WORDS words from the trace, after the task’s, output’s and message’s', async () => {
    const log = wordyRun('trace-words-03');
    await ingestEvents(db, log.events);
    const row = await db.runs.get(log.runId);
    expect(row?.words?.length).toBeLessThanOrEqual(MAX_RUN_WORDS + MAX_TRACE_WORDS);
    expect(row?.trace_words?.length).toBe(MAX_TRACE_WORDS);
    for (const w of ['summarise', 'twelve', 'w0x0']) expect(row?.words).toContain(w);
    // The earliest said are kept, whatever order the events came in.
    const reversed = new StewardDb(`${db.name}-reversed`);
    for (const e of [...log.events].reverse()) await ingestEvents(reversed, [e]);
    expect((await reversed.runs.get(log.runId))?.words).toEqual(row?.words);
    await reversed.delete();
    // First come: the last round's words did not fit.
    expect(row?.words).not.toContain('w11x199');
  });

  it('the same events give the same trace words in any batches and any order, the cap included (property)', () => {
    const events = wordyRun('trace-words-04').events;
    const whole = traceWords(undefined, events);
    fc.assert(
      fc.property(fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1 }), (order, sizes) => {
        let words: ReturnType<typeof traceWords>;
        let i = 0;
        for (let k = 0; i < order.length; k++) {
          const size = sizes[k % sizes.length]!;
          words = traceWords(words, order.slice(i, i + size));
          i += size;
        }
        expect(words).toEqual(whole);
      }),
      { numRuns: 40 },
    );
  });
});
