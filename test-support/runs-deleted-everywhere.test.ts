import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEvent, eventId } from '../src-shared/contracts/events';
import type { Host } from '../src-main/composition/host-types';
import { EventJournal } from '../src-main/events/event-journal';
import { StewardDb } from '../src-renderer/db/db';
import { createHostClient, type HostClient } from '../src-renderer/host/host-client';
import { runsJsonl } from '../src-renderer/screens/runs/runs-jsonl';
import { importTraceFiles } from '../src-renderer/screens/runs/run-transfer';
import { startHostSession } from '../src-renderer/host/host-session';
import { hostedEcho } from './hosted-workflows';
import { inProcessTransport as inProcess, openTestHost } from './host-session';

/**
 * Issue 9, end to end without a browser: the real host and the page's real session and database
 * (fake-indexeddb). A run deleted on the host (by a person or by retention) leaves every page's
 * database, also one that was away when it happened, and never comes back.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
  vi.useRealTimers();
});

let pages = 0;
function pageDb(): StewardDb {
  const db = new StewardDb(`steward-everywhere-${pages++}-${Math.random().toString(36).slice(2)}`);
  cleanups.push(() => db.delete());
  return db;
}

/** A page session of `db` on `host`; returns how to stop it (as a closed tab would). */
function connect(host: Host, db: StewardDb, id: string): (() => void) & { client: HostClient } {
  const client = createHostClient(inProcess(host, id));
  const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined }, { providerPollMs: 60_000 });
  const stop = () => {
    session.stop();
    client.close();
  };
  cleanups.push(stop);
  return Object.assign(stop, { client });
}

const open = (dataDir: string): Promise<Host> => openTestHost(dataDir, cleanups);

async function call(host: Host, method: string, params: unknown): Promise<unknown> {
  const frame = await host.handle({ kind: 'request', id: 1, method, params }, { id: 'tester', push: () => undefined });
  if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
  return frame.result;
}

const runIds = async (db: StewardDb) => (await db.runs.toArray()).map((r) => r.run_id).sort();

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-everywhere-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a deleted run leaves every page', () => {
  it('a page that held it loses it at once, one that was away loses it when it comes back after a restart, and a fresh page never gets it', async () => {
    const dataDir = folder();
    const host = await open(dataDir);
    await call(host, 'workflows.save', { workflow: hostedEcho('echo') });
    const first = ((await call(host, 'workflows.run', { id: 'echo', inputs: { name: 'one' } })) as { run_id: string }).run_id;
    const second = ((await call(host, 'workflows.run', { id: 'echo', inputs: { name: 'two' } })) as { run_id: string }).run_id;

    const here = pageDb();
    const away = pageDb();
    connect(host, here, 'here');
    const stopAway = connect(host, away, 'away');
    await expect.poll(async () => (await here.runs.toArray()).filter((r) => r.status === 'completed').length, { timeout: 20_000 }).toBe(2);
    await expect.poll(async () => (await away.runs.toArray()).filter((r) => r.status === 'completed').length, { timeout: 20_000 }).toBe(2);
    stopAway();

    expect(await call(host, 'runs.delete', { run_ids: [first] })).toEqual({ deleted: 1 });
    await expect.poll(() => runIds(here)).toEqual([second]);
    expect(await here.events.where('run_id').equals(first).count()).toBe(0);
    expect(await runIds(away)).toEqual([first, second].sort());
    await host.close();

    const again = await open(dataDir);
    connect(again, away, 'away-again');
    await expect.poll(() => runIds(away)).toEqual([second]);
    expect(await away.events.where('run_id').equals(first).count()).toBe(0);
    const fresh = pageDb();
    connect(again, fresh, 'fresh');
    await expect.poll(async () => (await fresh.runs.toArray()).filter((r) => r.status === 'completed').length, { timeout: 20_000 }).toBe(1);
    expect(await runIds(fresh)).toEqual([second]);
  });

  it('a page that was on another data folder\'s host meanwhile (same origin) resumes its cursor in this journal when it comes back: told of the deletions made meanwhile, the other folder\'s run kept', async () => {
    const hostA = await open(folder());
    await call(hostA, 'workflows.save', { workflow: hostedEcho('echo') });
    const first = ((await call(hostA, 'workflows.run', { id: 'echo', inputs: { name: 'one' } })) as { run_id: string }).run_id;
    const second = ((await call(hostA, 'workflows.run', { id: 'echo', inputs: { name: 'two' } })) as { run_id: string }).run_id;
    const page = pageDb();
    const stopA = connect(hostA, page, 'on-a');
    await expect.poll(async () => (await page.runs.toArray()).filter((r) => r.status === 'completed').length, { timeout: 20_000 }).toBe(2);
    stopA();

    // The same page (one origin, one database) on another data folder's host: its latest cursor is now that journal's.
    const hostB = await open(folder());
    await call(hostB, 'workflows.save', { workflow: hostedEcho('echo') });
    const elsewhere = ((await call(hostB, 'workflows.run', { id: 'echo', inputs: { name: 'three' } })) as { run_id: string }).run_id;
    const stopB = connect(hostB, page, 'on-b');
    await expect.poll(() => runIds(page), { timeout: 20_000 }).toEqual([first, second, elsewhere].sort());
    stopB();

    // Meanwhile a run is deleted on A; back on A, the page hears of it (a fresh start from A's beginning would not say).
    expect(await call(hostA, 'runs.delete', { run_ids: [first] })).toEqual({ deleted: 1 });
    connect(hostA, page, 'back-on-a');
    await expect.poll(() => runIds(page), { timeout: 20_000 }).toEqual([second, elsewhere].sort());
    expect(await page.events.where('run_id').equals(first).count()).toBe(0);
  });

  it('a run past its trace profile\'s retention is gone after a restart, from the host and from a page that held it', async () => {
    const dataDir = folder();
    const started = Date.now();
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    const run = (runId: string, days?: number): RunEvent[] => [
      RunEvent.parse({
        type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: new Date(started).toISOString(),
        spec_id: 'lean', spec_name: 'Lean', task: 'tidy up', supervision: { enabled: false }, models: { student: 'script', teacher: 'script' },
        ...(days !== undefined ? { retention: { days } } : {}),
      }),
      RunEvent.parse({ type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts: new Date(started).toISOString(), status: 'completed', rounds: 0, event_count: 2 }),
    ];
    journal.append([...run('lean-run-0001', 30), ...run('kept-run-0001')]);
    journal.close();

    const host = await open(dataDir);
    const page = pageDb();
    const stop = connect(host, page, 'page');
    await expect.poll(() => runIds(page), { timeout: 20_000 }).toEqual(['kept-run-0001', 'lean-run-0001']);
    stop();
    await host.close();

    // 31 days later.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(started + 31 * 86_400_000);
    const later = await open(dataDir);
    expect(((await call(later, 'runs.otlp', { run_id: 'kept-run-0001' })) as { spans: number }).spans).toBeGreaterThan(0);
    await expect(call(later, 'runs.otlp', { run_id: 'lean-run-0001' })).rejects.toThrow(/not_found/);
    connect(later, page, 'page-again');
    await expect.poll(() => runIds(page)).toEqual(['kept-run-0001']);
    expect(await page.events.where('run_id').equals('lean-run-0001').count()).toBe(0);
  });

  it('runs exported as JSONL from one app import into another: the host keeps them and its page shows them; a bad line imports nothing', async () => {
    const from = await open(folder());
    await call(from, 'workflows.save', { workflow: hostedEcho('echo') });
    const runId = ((await call(from, 'workflows.run', { id: 'echo', inputs: { name: 'one' } })) as { run_id: string }).run_id;
    const source = pageDb();
    connect(from, source, 'source');
    await expect.poll(async () => (await source.runs.get(runId))?.status, { timeout: 20_000 }).toBe('completed');
    const text = await runsJsonl(source, [runId]);

    const to = await open(folder());
    const target = pageDb();
    const page = connect(to, target, 'target');
    await expect.poll(() => runIds(target)).toEqual([]);
    const broken = text.split('\n');
    broken[2] = '{"type":"round.started"}';
    const refused = await importTraceFiles(page.client, [{ name: 'broken.jsonl', text: broken.join('\n') }]);
    expect(refused).toMatchObject({ ok: false });
    expect(refused.ok ? '' : refused.message).toMatch(/^broken\.jsonl, line 3: .*Nothing was imported\.$/);

    const progress: Array<[number, number]> = [];
    const outcome = await importTraceFiles(page.client, [{ name: 'runs.jsonl', text }], (done, total) => progress.push([done, total]));
    const count = text.trimEnd().split('\n').length;
    expect(outcome).toEqual({ ok: true, imported: count, repeated: 0, held: 0, runs: 1, repeatedLines: 0, trimmed: 0, masked: 0 });
    expect(progress.at(-1)).toEqual([1, 1]);
    await expect.poll(async () => (await target.runs.get(runId))?.stored_events).toBe(count);
    expect(await importTraceFiles(page.client, [{ name: 'runs.jsonl', text }])).toEqual({ ok: true, imported: 0, repeated: count, held: 0, runs: 1, repeatedLines: 0, trimmed: 0, masked: 0 });
  });
});
