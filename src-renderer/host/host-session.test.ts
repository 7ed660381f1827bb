import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientFrame } from '@shared/contracts/host-api';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { StewardDb } from '../db/db';
import { createHostClient } from './host-client';
import { FEED_WINDOW, startHostSession } from './host-session';
import { inForeground } from './foreground';
import { readEventCursor } from '../db/event-cursor';
import { FakeTransport } from '../testing/fake-transport';
import { eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound } from '../testing/event-fixtures';

const demo = HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id: 'demo-read', name: 'Demo read', instructions: 'Read.', task: 'Read a file.' });

const JOURNAL = 'journal-under-test';

/** Answers like the host would; records acked ids (a page should send none: the journal keeps everything). */
function hostAnswers(acked: string[][]) {
  return (frame: ClientFrame): unknown => {
    switch (frame.method) {
      case 'host.info':
        return { app: 'steward', version: '0.1.0', shell: 'browser', demo: true };
      case 'workspace.demo':
        return { workflows: [demo] };
      case 'providers.status':
        return { script: { available: true, label: 'replay' }, ollama: { host: 'http://127.0.0.1:11434', reachable: false, models: [] } };
      case 'events.subscribe':
        return { journal: JOURNAL, after: (frame.params as { after?: number }).after ?? 0, head: 0 };
      case 'events.cursor':
        return { acknowledged: true };
      case 'runs.list':
        return { runs: [], total: 0, head: 0 };
      case 'profiles.list':
        return { profiles: [], workflow_choices: [] };
      case 'profiles.save':
        return { added: 0, choices_taken: 0, conflicts: [] };
      case 'events.ack': {
        const ids = (frame.params as { ids: string[] }).ids;
        acked.push(ids);
        return { acked: ids.length };
      }
      default:
        return undefined;
    }
  };
}

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-session-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

/** `answer` may answer a method differently; what it leaves (undefined) is answered as hostAnswers does. */
function setup(answer?: (frame: ClientFrame) => unknown) {
  const acked: string[][] = [];
  const problems: Array<string | undefined> = [];
  const base = hostAnswers(acked);
  const transport = new FakeTransport((frame) => answer?.(frame) ?? base(frame));
  const client = createHostClient(transport);
  const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: (p) => problems.push(p) }, { resubscribeMs: 10 });
  return { transport, client, session, acked, problems };
}

async function settle(session: { done(): Promise<void> }) {
  // Responses arrive as microtasks; a few rounds of done() let each step's follow-up request go out.
  for (let i = 0; i < 5; i++) await session.done();
}

describe('host session', () => {
  it('on connect asks for host info, then seeds the demo workspace and asks how far the history is (side by side), then subscribes', async () => {
    const { transport, session } = setup();
    transport.setState('open');
    await settle(session);
    // Profile exchanges (profile-sync.test.ts) come and go with changes; they are left out here.
    const methods = transport.methods().filter((m) => m !== 'providers.status' && !m.startsWith('profiles.'));
    expect(methods[0]).toBe('host.info');
    expect(methods.slice(1, 3).sort()).toEqual(['runs.list', 'workspace.demo']);
    expect(methods.slice(3)).toEqual(['events.subscribe']);
    expect((await db.workflows.toArray()).map((w) => [w.id, w.source])).toEqual([['demo-read', 'demo']]);
    session.stop();
  });

  it('stores each frame with its journal position as the cursor, sends no acks, and resumes from that cursor after a reconnect', async () => {
    const { transport, session, acked } = setup();
    transport.setState('open');
    await settle(session);
    expect(transport.sent.find((f) => f.method === 'events.subscribe')?.params).toEqual({ window: FEED_WINDOW });
    const log = eventLog('run-session-001');
    startRun(log);
    readExecutedRound(log, 0);
    finishRun(log, 'completed', 1, 'done');
    const half = Math.floor(log.events.length / 2);

    transport.push({ kind: 'events', events: log.events.slice(0, half), cursor: { journal: JOURNAL, after: 0, position: half } });
    transport.push({ kind: 'events', events: log.events.slice(half), cursor: { journal: JOURNAL, after: half, position: log.events.length } });
    await settle(session);
    expect(await db.events.count()).toBe(log.events.length);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: log.events.length });
    expect(acked).toEqual([]);

    transport.setState('connecting');
    transport.setState('open');
    await settle(session);
    expect(transport.sent.filter((f) => f.method === 'events.subscribe').at(-1)?.params).toEqual({ journal: JOURNAL, after: log.events.length, window: FEED_WINDOW });
    // Every connect asks for the demo workspace (a newer host may ship more demos); nothing is added twice.
    expect(transport.methods().filter((m) => m === 'workspace.demo')).toHaveLength(2);
    expect(await db.workflows.count()).toBe(1);
    expect((await db.runs.get(log.runId))?.stored_events).toBe(log.events.length);
    session.stop();
  });

  it('a frame that does not follow its cursor is not stored; the page subscribes again from what it stored', async () => {
    const { transport, session } = setup();
    transport.setState('open');
    await settle(session);
    const log = eventLog('run-session-003');
    startRun(log);
    readExecutedRound(log, 0);
    transport.push({ kind: 'events', events: log.events.slice(0, 2), cursor: { journal: JOURNAL, after: 0, position: 2 } });
    // Positions 3–4 never arrived (a frame lost): this one would leave a hole behind the cursor.
    transport.push({ kind: 'events', events: log.events.slice(4), cursor: { journal: JOURNAL, after: 4, position: log.events.length } });
    await settle(session);
    expect(await db.events.count()).toBe(2);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: 2 });
    await expect.poll(() => transport.sent.filter((f) => f.method === 'events.subscribe').length).toBe(2);
    expect(transport.sent.filter((f) => f.method === 'events.subscribe').at(-1)?.params).toEqual({ journal: JOURNAL, after: 2, window: FEED_WINDOW });
    session.stop();
  });

  it('events it could not store leave the cursor where it was, and it subscribes again from there', async () => {
    const { transport, session, problems } = setup();
    transport.setState('open');
    await settle(session);
    const log = eventLog('run-session-002');
    startRun(log);
    db.close();
    const original = console.warn;
    console.warn = () => undefined;
    try {
      transport.push({ kind: 'events', events: log.events, cursor: { journal: JOURNAL, after: 0, position: log.events.length } });
      await settle(session);
      await db.open();
      expect(await readEventCursor(db)).toBeUndefined();
      expect(problems.at(-1)).toMatch(/Could not store run events/);
      await expect.poll(() => transport.sent.filter((f) => f.method === 'events.subscribe').length).toBe(2);
    } finally {
      console.warn = original;
    }
    expect(transport.sent.filter((f) => f.method === 'events.subscribe').at(-1)?.params).toEqual({ window: FEED_WINDOW });
    session.stop();
  });

  it('runs the host says were deleted leave this database, after the events that came before the news', async () => {
    const { transport, session } = setup();
    transport.setState('open');
    await settle(session);
    const gone = eventLog('run-session-gone');
    startRun(gone);
    finishRun(gone, 'completed', 0, 'done');
    const kept = eventLog('run-session-kept');
    startRun(kept);
    transport.push({ kind: 'events', events: gone.events, cursor: { journal: JOURNAL, after: 0, position: 2 } });
    transport.push({ kind: 'runs.deleted', journal: JOURNAL, run_ids: [gone.runId] });
    transport.push({ kind: 'events', events: kept.events, cursor: { journal: JOURNAL, after: 2, position: 3 } });
    await settle(session);
    expect((await db.runs.toArray()).map((r) => r.run_id)).toEqual([kept.runId]);
    expect(await db.events.where('run_id').equals(gone.runId).count()).toBe(0);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: 3 });
    session.stop();
  });

  it('frames that arrive while a store is in progress are stored together, in one transaction, and acknowledged once', async () => {
    const writes: string[][] = [];
    db.close(); // middleware joins at open
    db.use({
      stack: 'dbcore',
      name: 'count-writes',
      create: (down) => ({
        ...down,
        transaction: (stores, mode, options) => {
          if (mode === 'readwrite' && stores.includes('events')) writes.push([...stores]);
          return down.transaction(stores, mode, options);
        },
      }),
    });
    await db.open();
    const { transport, session } = setup();
    transport.setState('open');
    await settle(session);
    writes.length = 0; // what seeding wrote
    const log = eventLog('run-session-004');
    startRun(log);
    readExecutedRound(log, 0);
    writeReplacedRound(log, 1);
    finishRun(log, 'completed', 2, 'done');
    const cuts = [0, 3, 7, 12, log.events.length];
    for (let i = 0; i + 1 < cuts.length; i++) {
      transport.push({ kind: 'events', events: log.events.slice(cuts[i], cuts[i + 1]), cursor: { journal: JOURNAL, after: cuts[i]!, position: cuts[i + 1]! } });
    }
    await settle(session);
    expect(writes).toHaveLength(1);
    expect(await db.events.count()).toBe(log.events.length);
    expect((await db.runs.get(log.runId))?.stored_events).toBe(log.events.length);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: log.events.length });
    // It subscribed with a window, and says once what it stored (the host sends more as it does).
    expect(transport.sent.find((f) => f.method === 'events.subscribe')?.params).toMatchObject({ window: expect.any(Number) });
    expect(transport.sent.filter((f) => f.method === 'events.cursor').map((f) => f.params)).toEqual([{ journal: JOURNAL, position: log.events.length }]);

    // One that arrives while that store is in progress waits, and the ones after it go with it.
    const next = eventLog('run-session-005');
    startRun(next);
    readExecutedRound(next, 0);
    finishRun(next, 'completed', 1, 'done');
    const base = log.events.length;
    const frame = (from: number, to: number) => ({ kind: 'events', events: next.events.slice(from, to), cursor: { journal: JOURNAL, after: base + from, position: base + to } });
    transport.push(frame(0, 2));
    await Promise.resolve();
    transport.push(frame(2, 5));
    transport.push(frame(5, next.events.length));
    await settle(session);
    expect(writes.length).toBeLessThanOrEqual(3);
    expect(await db.events.count()).toBe(base + next.events.length);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: base + next.events.length });
    session.stop();
  });

  it('events that arrive while a person opens a run are stored once its first page is shown, not before (issue 26)', async () => {
    const { transport, session } = setup();
    transport.setState('open');
    await settle(session);
    const log = eventLog('run-session-006');
    startRun(log);
    readExecutedRound(log, 0);
    finishRun(log, 'completed', 1, 'done');
    let shown!: () => void;
    const opening = inForeground(new Promise<void>((resolve) => (shown = resolve)));
    transport.push({ kind: 'events', events: log.events, cursor: { journal: JOURNAL, after: 0, position: log.events.length } });
    await new Promise((r) => setTimeout(r, 50));
    expect(await db.events.count()).toBe(0);
    expect(await readEventCursor(db)).toBeUndefined();
    shown();
    await opening;
    await settle(session);
    expect(await db.events.count()).toBe(log.events.length);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: log.events.length });
    session.stop();
  });

  it('a page far behind lists the runs a page at a time, and asks for the next page only once a run being opened is shown (issue 26)', async () => {
    const listed = (run_id: string, started_at: string) => ({
      run_id,
      workflow_id: 'demo-read',
      spec_name: 'Demo read',
      status: 'completed',
      started_at,
      rounds: 1,
      models: { student: 's', teacher: 't' },
      supervision_enabled: true,
      stored_events: 5,
      event_count: 5,
    });
    let shown!: () => void;
    const opening = inForeground(new Promise<void>((resolve) => (shown = resolve)));
    const { transport, session } = setup((frame) => {
      if (frame.method !== 'runs.list') return undefined;
      const after = (frame.params as { after?: unknown }).after;
      // Far behind: the head is past CATCH_UP_EVENTS, two runs in two pages.
      return after === undefined
        ? { runs: [listed('run-listed-new', '2026-12-02T00:00:00.000Z')], next: { started_at: '2026-12-02T00:00:00.000Z', run_id: 'run-listed-new' }, total: 2, head: 5_000 }
        : { runs: [listed('run-listed-old', '2026-12-01T00:00:00.000Z')], total: 2, head: 5_000 };
    });
    transport.setState('open');
    await vi.waitFor(() => expect(transport.sent.filter((f) => f.method === 'runs.list')).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 100));
    // Only the first page was asked, and nothing of it stored, while the run is being opened.
    expect(transport.sent.filter((f) => f.method === 'runs.list')).toHaveLength(1);
    expect(await db.runs.count()).toBe(0);
    shown();
    await opening;
    await settle(session);
    expect(transport.sent.filter((f) => f.method === 'runs.list')).toHaveLength(2);
    expect((await db.runs.toArray()).map((r) => r.run_id).sort()).toEqual(['run-listed-new', 'run-listed-old']);
    session.stop();
  });

  it('a host from before windows (it refuses the parameter) is subscribed without one and told nothing of what is stored', async () => {
    const answers = hostAnswers([]);
    const transport: FakeTransport = new FakeTransport((frame) => {
      if (frame.method !== 'events.subscribe' || (frame.params as { window?: number }).window === undefined) return answers(frame);
      queueMicrotask(() => transport.push({ kind: 'response', id: frame.id, ok: false, error: { code: 'invalid_params', message: 'invalid params for events.subscribe: (root): Unrecognized key: "window"' } }));
      return undefined;
    });
    const client = createHostClient(transport);
    const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined });
    transport.setState('open');
    await settle(session);
    expect(transport.sent.filter((f) => f.method === 'events.subscribe').map((f) => f.params)).toEqual([{ window: FEED_WINDOW }, {}]);
    const log = eventLog('run-session-006');
    startRun(log);
    transport.push({ kind: 'events', events: log.events, cursor: { journal: JOURNAL, after: 0, position: log.events.length } });
    await settle(session);
    expect(await readEventCursor(db)).toEqual({ journal: JOURNAL, position: log.events.length });
    expect(transport.methods()).not.toContain('events.cursor');
    session.stop();
  });

  it('asks for the providers again within seconds while Ollama does not answer, and at the poll interval once it does', async () => {
    let reachable = false;
    const answers = hostAnswers([]);
    const transport = new FakeTransport((frame) =>
      frame.method === 'providers.status' ? { script: { available: true, label: 'replay' }, ollama: { host: 'http://127.0.0.1:11434', reachable, models: [] } } : answers(frame),
    );
    const seen: boolean[] = [];
    const listener = { connection: () => undefined, info: () => undefined, providers: (p: { ollama: { reachable: boolean } }) => void seen.push(p.ollama.reachable), problem: () => undefined };
    const session = startHostSession(createHostClient(transport), db, listener, { providerPollMs: 5_000, unreachableProviderPollMs: 30 });
    const asked = () => transport.methods().filter((m) => m === 'providers.status').length;
    transport.setState('open');
    await settle(session);
    // Not answering: asked again and again (every 30 ms), where the interval alone would wait 5 s.
    await expect.poll(asked, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    // Started: the next answer says so; from then on the next ask is the interval's, 5 s away.
    reachable = true;
    await expect.poll(() => seen.at(-1), { timeout: 5_000 }).toBe(true);
    const after = asked();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(asked()).toBe(after);
    session.stop();
  });

  it('stops asking for the providers when the session stops, even while Ollama does not answer', async () => {
    const transport = new FakeTransport(hostAnswers([]));
    const session = startHostSession(createHostClient(transport), db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined }, { unreachableProviderPollMs: 30 });
    const asked = () => transport.methods().filter((m) => m === 'providers.status').length;
    transport.setState('open');
    await settle(session);
    await expect.poll(asked, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    session.stop();
    await session.done();
    const stopped = asked();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(asked()).toBe(stopped);
  });
});
