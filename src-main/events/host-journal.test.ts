import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import type { EventsFrame, HostMethod, HostResult, PushFrame } from '@shared/contracts/host-api';
import { hostedEcho } from '../../test-support/hosted-workflows';
import { createHost } from '../composition/create-host';
import type { Host, HostSession } from '../composition/host-types';
import { EventJournal } from './event-journal';

/** Issue 9: the host's journal is the source of truth; every page session reads it with its own cursor. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

interface Page {
  frames: EventsFrame[];
  events: () => RunEvent[];
  ok<M extends HostMethod>(method: M, params: unknown): Promise<HostResult<M>>;
}

let nextRequest = 1;
function page(host: Host, id: string): Page {
  const frames: EventsFrame[] = [];
  // Only the event frames: the host pushes other kinds too (runs.deleted, asks).
  const session: HostSession = { id, push: (frame: PushFrame) => void (frame.kind === 'events' && frames.push(frame)) };
  return {
    frames,
    events: () => frames.flatMap((f) => f.events),
    async ok(method, params) {
      const frame = await host.handle({ kind: 'request', id: nextRequest++, method, params }, session);
      if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
      return frame.result as never;
    },
  };
}

async function openHost(dataDir: string): Promise<Host> {
  const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
  cleanups.push(() => host.close());
  return host;
}

async function runEcho(p: Page, name: string): Promise<string> {
  await p.ok('workflows.save', { workflow: hostedEcho(name) });
  const { run_id } = await p.ok('workflows.run', { id: name, inputs: { name } });
  await expect.poll(() => p.events().some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 20_000 }).toBe(true);
  return run_id;
}

/** A host in a fresh data folder, a page subscribed to it, and one finished run. */
async function hostWithOneRun() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-journal-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const host = await openHost(dataDir);
  const a = page(host, 'a');
  const { journal } = await a.ok('events.subscribe', {});
  await runEcho(a, 'first');
  return { dataDir, host, a, journal };
}

const idsOf = (events: RunEvent[]) => events.map((e) => e.id);
const lastPosition = (p: Page) => p.frames.at(-1)?.cursor?.position ?? 0;

describe("the host's event journal, read by every page with its own cursor", () => {
  it('two sessions each receive every event, and an ack from one drops nothing for the other or for a later one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-journal-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await openHost(dataDir);
    const a = page(host, 'a');
    const b = page(host, 'b');
    await a.ok('events.subscribe', {});
    await b.ok('events.subscribe', {});
    const first = await runEcho(a, 'first');
    await expect.poll(() => b.events().some((e) => e.type === 'run.finished' && e.run_id === first)).toBe(true);
    expect(idsOf(b.events())).toEqual(idsOf(a.events()));
    // An old page acknowledging everything it stored:
    await a.ok('events.ack', { ids: idsOf(a.events()) });

    const second = await runEcho(a, 'second');
    await expect.poll(() => b.events().some((e) => e.type === 'run.finished' && e.run_id === second)).toBe(true);
    expect(idsOf(b.events())).toEqual(idsOf(a.events()));

    // A new page with nothing stored gets the whole journal, both runs, each event once.
    const c = page(host, 'c');
    const started = await c.ok('events.subscribe', {});
    expect(started).toMatchObject({ after: 0, head: a.events().length });
    await expect.poll(() => c.events().length).toBe(a.events().length);
    expect(idsOf(c.events())).toEqual(idsOf(a.events()));
    expect(new Set(idsOf(c.events())).size).toBe(c.events().length);
  }, 60_000);

  it('a session subscribing with a cursor gets exactly what follows it; frames chain position to position', async () => {
    const { host, a, journal } = await hostWithOneRun();
    const cut = lastPosition(a);
    const before = a.events().length;
    await runEcho(a, 'second');

    const b = page(host, 'b');
    expect(await b.ok('events.subscribe', { journal, after: cut })).toMatchObject({ journal, after: cut, head: lastPosition(a) });
    await expect.poll(() => lastPosition(b)).toBe(lastPosition(a));
    expect(idsOf(b.events())).toEqual(idsOf(a.events().slice(before)));
    // Each frame starts where the previous one ended, so a page can tell a gap from a continuation.
    let at = cut;
    for (const frame of b.frames) {
      expect(frame.cursor).toMatchObject({ journal, after: at });
      at = frame.cursor?.position ?? -1;
    }

    // A cursor from another journal (another data folder) means nothing here: everything is sent.
    const c = page(host, 'c');
    expect(await c.ok('events.subscribe', { journal: 'another-journal', after: cut })).toMatchObject({ journal, after: 0 });
    await expect.poll(() => c.events().length).toBe(a.events().length);
  }, 60_000);

  it("after a host restart the journal's events and their positions are the same, and new ones continue after them", async () => {
    const { dataDir, host, a, journal } = await hostWithOneRun();
    await host.close();

    const again = await openHost(dataDir);
    const b = page(again, 'b');
    expect(await b.ok('events.subscribe', {})).toMatchObject({ journal, head: lastPosition(a) });
    await expect.poll(() => b.events().length).toBe(a.events().length);
    expect(b.events()).toEqual(a.events());
    expect(lastPosition(b)).toBe(lastPosition(a));

    const resumed = page(again, 'resumed');
    await resumed.ok('events.subscribe', { journal, after: lastPosition(a) });
    await runEcho(resumed, 'second');
    expect(resumed.frames[0]?.cursor?.after).toBe(lastPosition(a));
    expect(idsOf(resumed.events()).some((id) => idsOf(a.events()).includes(id))).toBe(false);
  }, 60_000);

  it('a page subscribing with a window is sent the next frames only as it says (events.cursor) what it stored', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-journal-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // 1,200 events behind the page: three frames of the host's 500.
    const prefilled = EventJournal.open(join(dataDir, 'history.sqlite'));
    prefilled.append(Array.from({ length: 1_200 }, (_, seq): RunEvent => ({ type: 'round.started', id: eventId('run-window', seq), run_id: 'run-window', seq, ts: new Date(0).toISOString(), round: seq, proposer: 'student' })));
    const journal = prefilled.id;
    prefilled.close();
    const host = await openHost(dataDir);
    const p = page(host, 'p');
    await p.ok('events.subscribe', { window: 1 });
    await expect.poll(() => p.frames.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(p.frames.length).toBe(1);
    expect(await p.ok('events.cursor', { journal, position: 500 })).toEqual({ acknowledged: true });
    await expect.poll(() => p.frames.length).toBe(2);
    await p.ok('events.cursor', { journal, position: 1_000 });
    // The host closed the run it found open (interrupted): one more event, sent as well.
    await expect.poll(() => lastPosition(p)).toBe(1_201);
    expect(p.events().map((e) => e.seq)).toEqual(Array.from({ length: 1_201 }, (_, i) => i));
  }, 60_000);
});
