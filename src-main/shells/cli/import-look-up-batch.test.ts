import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { tempFolder } from '../../../test-support/temp-folder';
import { checkTraceStreams, type HistoryLookUp } from './import-traces';

/** Pass 1 of `steward runs import` looks lines up in the history a batch at a time, one read transaction each, and still names the first problem by line. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const TS = new Date(0).toISOString();
const notice = (runId: string, seq: number, message = `step ${seq}`) => RunEvent.parse({ type: 'run.notice', id: eventId(runId, seq), run_id: runId, seq, ts: TS, message });

function traceFile(lines: readonly unknown[]): string {
  const file = join(tempFolder('steward-import-batch-', cleanups), 'trace.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

/** A history holding `held`, counting its read transactions and the look-ups made outside one. */
function historyHolding(held: readonly RunEvent[]) {
  const byId = new Map(held.map((e) => [e.id, e]));
  let inside = false;
  const counts = { transactions: 0, outside: 0 };
  const history: HistoryLookUp = {
    eventById: (id) => {
      if (!inside) counts.outside += 1;
      return byId.get(id);
    },
    eventAt: (runId, seq) => {
      if (!inside) counts.outside += 1;
      return held.find((e) => e.run_id === runId && e.seq === seq);
    },
    reading: (look) => {
      counts.transactions += 1;
      inside = true;
      try {
        return look();
      } finally {
        inside = false;
      }
    },
  };
  return { history, counts };
}

describe('steward runs import checks a trace against the history in batches', () => {
  it('looks 2,500 lines up in three read transactions, none outside one', async () => {
    const { history, counts } = historyHolding([]);
    const checked = await checkTraceStreams([traceFile(Array.from({ length: 2_500 }, (_, i) => notice('run-batch', i)))], history, () => undefined);
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(checked.counts.events).toBe(2_500);
      checked.memory.close();
    }
    expect(counts).toEqual({ transactions: 3, outside: 0 });
  });

  it('names the first problem by line: a conflict with the history on line 2 before a broken line 5', async () => {
    const { history } = historyHolding([notice('run-batch', 1, 'what the history holds')]);
    const file = traceFile([notice('run-batch', 0), notice('run-batch', 1, 'something else'), notice('run-batch', 2), notice('run-batch', 3), '{"not": "an event"']);
    const checked = await checkTraceStreams([file], history, () => undefined);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.message).toMatch(/line 2: the history holds a different event with the id "run-batch:000001"/);
  });

  it('still names a broken line when the lines before it agree with the history', async () => {
    const { history } = historyHolding([notice('run-batch', 1)]);
    const checked = await checkTraceStreams([traceFile([notice('run-batch', 0), notice('run-batch', 1), '{"not": "an event"'])], history, () => undefined);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.message).toMatch(/line 3/);
    expect(checked.ok ? '' : checked.message).not.toMatch(/holds a different event/);
  });
});
