import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, RunEvent } from '@shared/contracts/events';
import { EventJournal, type JournalRemoval } from './event-journal';
import { RunHistory, retainAfterRunsFinish } from './run-history';

/** Issue 9 leftovers: "keep N runs" after each run rewrites the journal only when a run is actually pruned, in batches. */

const ts = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
function run(runId: string, i: number, retention: { runs?: number } = { runs: 1 }): RunEvent[] {
  return [
    RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: ts(i), spec_id: 'kept', spec_name: 'kept', task: 't', supervision: { enabled: false }, models: { student: 's', teacher: 't' }, retention }),
    RunEvent.parse({ type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts: ts(i), status: 'completed', rounds: 0, event_count: 2 }),
  ];
}
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 100));

describe('retention after runs finish', () => {
  let dir: string;
  let journal: EventJournal;
  let stop: () => void;
  const removals: JournalRemoval[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-retention-'));
    journal = EventJournal.open(path.join(dir, 'history.sqlite'), { log: () => undefined });
    journal.onRemoved((removal) => removals.push(removal));
    const history = new RunHistory(journal, { activeIds: () => [], waitingRunIds: () => new Set() });
    stop = retainAfterRunsFinish(journal, history, () => undefined);
  });
  afterEach(() => {
    stop();
    journal.close();
    removals.length = 0;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a finished run with nothing due leaves the journal file in place: no rewrite', async () => {
    journal.append(run('keep-run-0001', 1, { runs: 5 }));
    const inode = fs.statSync(journal.path).ino;
    journal.append(run('keep-run-0002', 2, { runs: 5 }));
    await settle();
    expect(removals).toEqual([]);
    expect(fs.statSync(journal.path).ino).toBe(inode);
  });

  it('runs finishing together are pruned in one rewrite, not one each, and the newest N stay', async () => {
    for (let i = 1; i <= 4; i++) journal.append(run(`keep-run-000${i}`, i));
    await expect.poll(() => removals.length).toBeGreaterThan(0);
    await settle();
    expect(removals).toHaveLength(1);
    expect(removals[0]!.run_ids.sort()).toEqual(['keep-run-0001', 'keep-run-0002', 'keep-run-0003']);
    expect(journal.runsPage({ limit: 1000 }).runs.map((r) => r.run.run_id)).toEqual(['keep-run-0004']);
  });
});
