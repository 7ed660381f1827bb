import { describe, expect, it } from 'vitest';
import type { JournalRunFacts } from './event-journal';
import { runsPastRetention } from './retention';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const at = (daysAgo: number) => new Date(NOW - daysAgo * DAY).toISOString();
function run(run_id: string, startedDaysAgo: number, finished: boolean, retention?: JournalRunFacts['retention'], spec_id = 'w'): JournalRunFacts {
  return { run_id, spec_id, started_at: at(startedDaysAgo), ...(finished ? { finished_at: at(startedDaysAgo) } : {}), ...(retention ? { retention } : {}) };
}

describe('retention', () => {
  it('keep N days: a run finished longer ago goes; a younger one, one without retention, an open one (running, waiting) and a kept one stay', () => {
    const runs = [run('old', 40, true, { days: 30 }), run('young', 10, true, { days: 30 }), run('forever', 400, true), run('open', 400, false, { days: 1 }), run('kept', 400, true, { days: 1 })];
    expect(runsPastRetention(runs, NOW, new Set(['kept']))).toEqual(['old']);
  });

  it('keep N runs: a run with N newer runs of its workflow goes, whatever state the newer ones are in; other workflows do not count', () => {
    const runs = [
      run('a1', 5, true, { runs: 2 }),
      run('a2', 4, true, { runs: 2 }),
      run('a3', 3, false, { runs: 2 }),
      run('b1', 10, true, { runs: 2 }, 'other'),
      run('a4', 2, false, { runs: 2 }),
    ];
    expect(runsPastRetention(runs, NOW, new Set())).toEqual(['a1', 'a2']);
  });

  it('a child run is never chosen nor counted on its own: its parent decides (the host removes a parent with its children)', () => {
    const child = (id: string, daysAgo: number, parent: string): JournalRunFacts => ({ ...run(id, daysAgo, true, { days: 1, runs: 1 }, 'child-flow'), parent_run_id: parent });
    const runs = [run('p1', 40, true, { days: 30 }), child('p1:n', 40, 'p1'), run('p2', 3, true, { days: 30 }), child('p2:n', 3, 'p2'), run('c-alone', 2, true, { runs: 1 }, 'child-flow')];
    expect(runsPastRetention(runs, NOW, new Set())).toEqual(['p1']);
  });
});
