import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { MASK } from '@shared/util/mask';
import { RunRow } from '@shared/history/run-summary';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { RequestError } from '../registry/request-error';
import { EventJournal } from './event-journal';
import { RunHistory } from './run-history';

/** Issue 26: the host refuses a chunk that contradicts its history, and stores imported events trimmed and masked. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-import-check-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function history(dataDir = dataFolder()): { journal: EventJournal; history: RunHistory } {
  const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
  const runs = new RunHistory(journal, { activeIds: () => [], waitingRunIds: () => new Set() });
  cleanups.push(() => {
    runs.dispose();
    journal.close();
  });
  return { journal, history: runs };
}

const TS = '2026-01-05T09:00:00.000Z';
const notice = (runId: string, seq: number, message: string): RunEvent => RunEvent.parse({ type: 'run.notice', id: eventId(runId, seq), run_id: runId, seq, ts: TS, message });
function run(runId: string, task = 'tidy'): RunEvent[] {
  return [
    RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: TS, spec_id: 'cli', spec_name: 'CLI', task, supervision: { enabled: false }, models: { student: 's', teacher: 't' } }),
    notice(runId, 1, 'step one'),
    RunEvent.parse({ type: 'run.finished', id: eventId(runId, 2), run_id: runId, seq: 2, ts: TS, status: 'completed', rounds: 0, event_count: 3 }),
  ];
}

const refusal = (act: () => unknown): RequestError => {
  try {
    act();
  } catch (err) {
    if (err instanceof RequestError) return err;
    throw err;
  }
  throw new Error('the chunk was taken');
};

describe('RunHistory.import against what the history holds', () => {
  it('refuses a chunk with an event whose id the history holds with other content, naming run and seq; nothing of it is stored', () => {
    const { journal, history: h } = history();
    h.import('first', run('held-run-0001'));
    const before = journal.count;
    const fresh = run('new-run-00001');
    const err = refusal(() => h.import('second', [...fresh, notice('held-run-0001', 1, 'step one, edited')]));
    expect(err.code).toBe('conflict');
    expect(err.message).toMatch(/^run "held-run-0001", seq 1: the history holds a different event with this id \("run\.notice" of run "held-run-0001", seq 1\).*nothing of this part of the import was imported$/);
    expect(journal.count).toBe(before);
    expect(journal.hasRun('new-run-00001')).toBe(false);
    expect(journal.eventAt('held-run-0001', 1)).toMatchObject({ message: 'step one' });
  });

  it('refuses a different event at a place the history holds (another id, same run and seq)', () => {
    const { journal, history: h } = history();
    h.import('first', run('held-run-0002'));
    const other = { ...notice('held-run-0002', 1, 'step one'), id: 'held-run-0002:renamed' };
    const err = refusal(() => h.import('second', [other]));
    expect(err).toMatchObject({ code: 'conflict' });
    expect(err.message).toMatch(/^run "held-run-0002", seq 1: the history holds a different event at this place \("run\.notice", id "held-run-0002:000001"\)/);
    expect(journal.eventById('held-run-0002:renamed')).toBeUndefined();
  });

  it('refuses a chunk that contradicts itself (invalid_params), and a second end of a run it imports', () => {
    const { journal, history: h } = history();
    const events = run('self-run-0001');
    expect(refusal(() => h.import('one', [...events, { ...events[1]!, message: 'other' } as RunEvent])).code).toBe('invalid_params');
    const twice = { ...events[2]!, id: eventId('self-run-0001', 3), seq: 3 };
    expect(refusal(() => h.import('one', [...events, twice])).message).toMatch(/^run "self-run-0001", seq 3: the chunk ends this run twice \(also at seq 2\)/);
    h.import('one', events);
    expect(refusal(() => h.import('one', [twice])).message).toMatch(/the history holds this run already ended at another seq/);
    expect(journal.runEvents('self-run-0001')).toHaveLength(3);
  });

  it('reports honestly: an identical event is a harmless repeat, a held run\'s new events are left out', () => {
    const { history: h } = history();
    const held = run('held-run-0003');
    h.import('first', held.slice(0, 2));
    const later = [...held, notice('other-run-001', 0, 'hello')];
    // held-run-0003's two events are there unchanged; its end is new but the run was held before this import.
    expect(h.import('second', later)).toEqual({ imported: 1, repeated: 2, held: 1, skipped: 3 });
  });

  it('a raw key planted in an imported event never reaches the stored history: it is masked', () => {
    const dataDir = dataFolder();
    const { journal, history: h } = history(dataDir);
    const key = `sk-proj-${'k3yK3yk3y9'.repeat(4)}`;
    expect(h.import('keyed', run('keyed-run-0001', `call it with ${key} please`))).toMatchObject({ imported: 3 });
    const json = JSON.stringify(journal.read(0, 100).events);
    expect(json).not.toContain(key.slice(8));
    expect(journal.eventAt('keyed-run-0001', 0)).toMatchObject({ task: `call it with ${MASK} please` });
    // Nor anywhere in the database's files (its search words included).
    journal.close();
    for (const file of readdirSync(dataDir)) expect(readFileSync(join(dataDir, file)).includes(key.slice(8))).toBe(false);
  });
});

describe('runs.import', () => {
  it('answers a conflicting chunk with a conflict that names run and seq', async () => {
    const host = await openTestHost(dataFolder(), cleanups);
    const p = hostPage(host, 'p');
    const events = run('wire-run-0001');
    await p.ok('runs.import', { import_id: 'one', events });
    const frame = await p.call('runs.import', { import_id: 'two', events: [{ ...events[1]!, message: 'edited' }] });
    expect(frame).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(frame.ok ? '' : frame.error.message).toMatch(/^run "wire-run-0001", seq 1: /);
  });
});

describe('a run from an imported trace is named as imported wherever a page learns of it (it never ran here)', () => {
  it('in the slice subscribers are told, in a backfill read and in what another connection appended; a run that ran here is not', () => {
    const dir = dataFolder();
    const { journal, history: h } = history(dir);
    const told: Array<{ runs: string[]; imported?: string[] }> = [];
    journal.subscribe((slice) => told.push({ runs: [...new Set(slice.events.map((e) => e.run_id))], ...(slice.imported ? { imported: slice.imported } : {}) }));
    journal.append(run('ran-here-0001'));
    h.import('one', [...run('from-file-0001'), ...run('from-file-0002')]);
    expect(told).toEqual([{ runs: ['ran-here-0001'] }, { runs: ['from-file-0001', 'from-file-0002'], imported: ['from-file-0001', 'from-file-0002'] }]);
    // A page far behind reads the history from its start: the same word, per slice.
    expect(journal.read(0, 4)).toMatchObject({ imported: ['from-file-0001'] });
    expect(journal.read(0, 3).imported).toBeUndefined();
    expect(journal.read(3, 100).imported).toEqual(['from-file-0001', 'from-file-0002']);
    // A second connection (steward runs import with another host on the folder): this one notices it, imported.
    const second = history(dir);
    second.history.import('two', run('from-file-0003'));
    told.length = 0;
    journal.catchUp();
    expect(told).toEqual([{ runs: ['from-file-0003'], imported: ['from-file-0003'] }]);
  });

  it('in the frames a page is pushed and in the host\'s runs.list rows, which a fresh profile lists from', async () => {
    const host = await openTestHost(dataFolder(), cleanups);
    const frames: Array<{ imported?: string[] }> = [];
    const session = { id: 'watcher', push: (frame: { kind: string; imported?: string[] }) => void (frame.kind === 'events' && frames.push({ ...(frame.imported ? { imported: frame.imported } : {}) })) };
    await host.handle({ kind: 'request', id: 1, method: 'events.subscribe', params: {} }, session);
    const p = hostPage(host, 'p');
    await p.ok('runs.import', { import_id: 'one', events: run('wire-import-01') });
    await vi.waitFor(() => expect(frames).toContainEqual({ imported: ['wire-import-01'] }));
    const listed = await p.ok('runs.list', {});
    expect(listed.runs.map((row) => [row.run_id, row.imported])).toEqual([['wire-import-01', true]]);
    expect(RunRow.parse(listed.runs[0])).toMatchObject({ spec_name: 'CLI', imported: true });
    // The list of the imported runs alone (what a profile that indexed them before asks once), and of the others.
    expect((await p.ok('runs.list', { imported: true })).runs.map((row) => row.run_id)).toEqual(['wire-import-01']);
    expect((await p.ok('runs.list', { imported: false })).runs).toEqual([]);
  });
});
