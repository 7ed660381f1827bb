import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { tempFolder } from '../../test-support/temp-folder';
import { EventJournal } from './event-journal';
import { MIN_RUN_ID_START, runNamedBy, type RunNamed } from './run-named-by';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function started(runId: string): RunEvent {
  return RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: new Date(0).toISOString(), spec_id: 'w', spec_name: 'W', task: 't', supervision: { enabled: false }, models: { student: 's', teacher: 't' } });
}

/** A real history holding runs under these ids. */
function historyWith(runIds: readonly string[]): EventJournal {
  const journal = EventJournal.open(join(tempFolder('steward-run-named-', cleanups), 'history.sqlite'), { log: () => undefined });
  cleanups.push(() => journal.close());
  if (runIds.length > 0) journal.append(runIds.map(started));
  return journal;
}

const PARENT = '7a4eb7df-1352-4f0e-bfa2-ceb4248a0113';

describe('a run named by its id or its start (steward runs show, delete, replay)', () => {
  it('the whole id names its run, and so does its first 8 characters when no other run starts so', () => {
    const journal = historyWith([PARENT, 'e743ff1c-4ff5-4fdf-8720-b1f7033526c7']);
    expect(runNamedBy(journal.connection, PARENT)).toEqual({ kind: 'run', runId: PARENT });
    expect(runNamedBy(journal.connection, '7a4eb7df')).toEqual({ kind: 'run', runId: PARENT });
    expect(runNamedBy(journal.connection, '7a4eb7df-1352')).toEqual({ kind: 'run', runId: PARENT });
  });

  it('a start under 8 characters names nothing (and says so); a start no run has names nothing', () => {
    const journal = historyWith([PARENT]);
    expect(runNamedBy(journal.connection, '7a4eb7d')).toEqual({ kind: 'none', short: true });
    expect(runNamedBy(journal.connection, 'deadbeef')).toEqual({ kind: 'none', short: false });
  });

  it("a run's child runs share its start: the start names the run they are part of, a child's own id names the child", () => {
    const children = [`${PARENT}:summarise`, `${PARENT}:summarise>read_text_file`, `${PARENT}:map#2`];
    const journal = historyWith([PARENT, ...children, ...Array.from({ length: 20 }, (_, i) => `${PARENT}:item-${i}`)]);
    expect(runNamedBy(journal.connection, '7a4eb7df')).toEqual({ kind: 'run', runId: PARENT });
    expect(runNamedBy(journal.connection, `${PARENT}:summarise>read_text_file`)).toEqual({ kind: 'run', runId: `${PARENT}:summarise>read_text_file` });
    // Typed past the parent's id: the child runs that start so.
    expect(runNamedBy(journal.connection, `${PARENT}:ma`)).toEqual({ kind: 'run', runId: `${PARENT}:map#2` });
    expect(runNamedBy(journal.connection, `${PARENT}:summ`)).toEqual({ kind: 'ambiguous', runIds: [`${PARENT}:summarise`, `${PARENT}:summarise>read_text_file`], more: false });
  });

  it('a start two runs share names neither: both are listed, and past ten, that there are more', () => {
    const journal = historyWith(['feedface-0001', 'feedface-0002', ...Array.from({ length: 12 }, (_, i) => `abcdef01-${String(i).padStart(2, '0')}`)]);
    expect(runNamedBy(journal.connection, 'feedface')).toEqual({ kind: 'ambiguous', runIds: ['feedface-0001', 'feedface-0002'], more: false });
    const many = runNamedBy(journal.connection, 'abcdef01');
    expect(many).toMatchObject({ kind: 'ambiguous', more: true });
    expect(many.kind === 'ambiguous' && many.runIds.length).toBe(10);
  });

  it("what a pattern would read as a wildcard ('%', '_') is matched as typed", () => {
    const journal = historyWith(['run_0001-aaaa', 'runX0001-bbbb', 'run%0001-cccc']);
    expect(runNamedBy(journal.connection, 'run_0001')).toEqual({ kind: 'run', runId: 'run_0001-aaaa' });
    expect(runNamedBy(journal.connection, 'run%0001')).toEqual({ kind: 'run', runId: 'run%0001-cccc' });
  });

  it('agrees with reading every id, for any ids and any start typed', () => {
    const id = fc.stringMatching(/^[0-9a-f]{8,10}(-[0-9a-z]{1,3})?(:[a-z>#0-9]{1,4}){0,2}$/);
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 14 }), fc.nat(), fc.nat({ max: 14 }), (ids, pick, cut) => {
        const journal = historyWith(ids);
        const source = ids.length > 0 ? ids[pick % ids.length]! : 'deadbeef00';
        const typed = source.slice(0, Math.max(1, source.length - cut));
        expect(runNamedBy(journal.connection, typed)).toEqual(byReadingEvery(ids, typed));
      }),
      { numRuns: 60 },
    );
  });
});

/** The same rule, the slow way: every id read and compared. */
function byReadingEvery(ids: readonly string[], typed: string): RunNamed {
  if (ids.includes(typed)) return { kind: 'run', runId: typed };
  if (typed.length < MIN_RUN_ID_START) return { kind: 'none', short: true };
  const starting = ids.filter((id) => id.startsWith(typed)).sort();
  const top = starting.filter((id) => !id.includes(':'));
  const candidates = (top.length > 0 ? top : starting).slice(0, 11);
  if (candidates.length === 0) return { kind: 'none', short: false };
  if (candidates.length === 1) return { kind: 'run', runId: candidates[0]! };
  const root = candidates.find((c) => candidates.every((other) => other === c || other.startsWith(`${c}:`)));
  if (root !== undefined) return { kind: 'run', runId: root };
  return { kind: 'ambiguous', runIds: candidates.slice(0, 10), more: candidates.length > 10 };
}
