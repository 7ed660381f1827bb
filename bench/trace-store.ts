/// <reference lib="dom" />
/**
 * bench/trace-store — the live path host → page → Dexie, and what the host's journal costs a run.
 *
 * (1) backfill: a data folder whose journal holds EVENTS events (the events of real supervised runs
 *     through the engine — scripted student and teacher, the real filesystem MCP server — copied
 *     under new run ids), the real browser-run host (in this process) and the built page in
 *     headless Chromium; timed from opening the page (about a second of it) until the page's stored
 *     cursor (the `event-cursor` row of IndexedDB 'steward') reaches the journal's head, and from the
 *     first frame it stored (the path itself, after its start: scripts, the run summaries listed first).
 *     pairs: PAIRS times a fresh disk-backed profile's backfill and a fresh profile's raw puts of the
 *       same events, alternating which goes first, each closed before the next: the ratio's median.
 *     Then the measure in detail, in one more fresh profile, and its baselines in the same browser:
 *       raw event puts   the same events put with plain `indexedDB` into a store with db.ts's key
 *                        and indexes, one transaction per BATCH (the feed's frame size)
 *       raw stored rows  every row the page stored (events, run rows, learning examples — their
 *                        prompts by reference since database v6 —, promotion rows…) copied into a
 *                        database with the same stores and indexes, BATCH rows per transaction: what
 *                        the page writes, without Dexie or the derivations; its bytes per store
 *       raw puts, fresh  the raw event puts again, first, in a disk-backed profile of their own (a blank
 *                        loopback page): later in the page's profile its own 70 MB may still be compacting
 *     and the CPU each used: the host (this process) and Chromium's processes by type (/proc, Linux),
 *     since on a machine of few cores the path's processes share them.
 *     live: LIVE_RUNS one-round supervised runs (replay provider, no servers, ~16 events each)
 *     started back to back through the host's API while the page is subscribed: when the host had
 *     appended the last event, and how long after that the page had stored it.
 * (2) host overhead: a supervised run of ROUNDS rounds with a 50 ms model, its round time (first
 *     round.started to run.finished) with the host's journal path (the host's writer → EventJournal
 *     with fsync → JournalFeed → a session serialising each frame) against the same run with events
 *     dropped (bare). Alternated, median of SAMPLES each.
 * Ratios are measured in the same run.
 * Run: npm run bench:trace-store (builds nothing: run `npm run build` first; BENCH_STATIC_DIR for
 * another renderer build; BENCH_EVENTS, BENCH_LIVE, BENCH_ROUNDS, BENCH_SAMPLES to change the sizes,
 * BENCH_PART=1 or 2 for one part, BENCH_PAIRS for the backfill and raw-puts pairs (3; 0 for none), BENCH_PROFILE=1 to print where the page spent the backfill)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Page } from '@playwright/test';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { createHost } from '../src-main/composition/create-host';
import { EventJournal } from '../src-main/events/event-journal';
import { historyPath } from '../src-main/events/history-db';
import { openHistory } from '../src-main/events/open-history';
import { JournalFeed } from '../src-main/events/journal-feed';
import { createJournalWriter } from '../src-main/events/journal-writer';
import { runBrowserShell } from '../src-main/shells/browser/run-browser-shell';
import { recordLearningRun } from '../test-support/learning-run';
import { connectHost } from '../test-support/host-process';
import { HostedWorkflow, type HostedWorkflowInput } from '@shared/contracts/hosted-workflow';
import { median } from './timed-median';
import { launchDiskProfile } from './disk-profile';
import { profilePage } from './page-profile';
import { processesCpuByType } from './proc-cpu';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const LIVE = Number(process.env.BENCH_LIVE ?? 5_000);
const BATCH = 500; // the feed's backfill frame (create-host PUSH_BATCH)
const ROUND_EVENTS = 12;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const MODEL_MS = 50;
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Backfill and raw-puts pairs for the ratio's median, before the measure in detail. */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const STATIC_DIR = process.env.BENCH_STATIC_DIR ?? fileURLToPath(new URL('../out/renderer', import.meta.url));

/** Chromium's processes (browser, renderer, GPU, utility), by command name. */
const CHROMIUM = /^(chrom|headless_shell)/;
/** Chromium's CPU seconds by process type since `before`. */
const cpuSince = (before: Record<string, number>) => Object.fromEntries(Object.entries(processesCpuByType(CHROMIUM)).map(([type, s]) => [type, s - (before[type] ?? 0)]));
const ratio = (x: number) => `${x.toFixed(2)}×`;
const perSecondValue = (events: number, ms: number) => (events * 1000) / ms;
const perSecond = (events: number, ms: number) => `${Math.round(perSecondValue(events, ms))} events/s`;

/** At least `count` events: the template runs' events again and again, each copy a whole run of its own (so none is left open). */
function copies(template: readonly RunEvent[][], count: number, prefix: string): RunEvent[] {
  const out: RunEvent[] = [];
  for (let copy = 0; out.length < count; copy++) {
    const run = template[copy % template.length]!;
    const runId = `${prefix}-${String(copy).padStart(5, '0')}`;
    // One run after another, a minute apart, as a history grows.
    const shift = copy * 60_000;
    for (const e of run) {
      out.push({ ...e, run_id: runId, id: eventId(runId, e.seq), ts: new Date(Date.parse(e.ts) + shift).toISOString() } as RunEvent);
    }
  }
  return out;
}

/**
 * The page's stored cursor (position 0 before the first frame is stored). One connection is kept open between
 * polls once the page's database has its tables (opening one is a round trip through the browser's IndexedDB
 * backend: the poll should not cost the path it measures); it is closed when the page upgrades the database.
 */
function storedCursor(page: Page): Promise<{ journal: string; position: number }> {
  // No named functions inside: the bench's transform would wrap them in a helper the page does not have.
  return page.evaluate(async () => {
    const none = { journal: '', position: 0 };
    const w = window as unknown as { __benchCursorDb?: IDBDatabase };
    w.__benchCursorDb ??= await new Promise<IDBDatabase | undefined>((resolve) => {
      const open = indexedDB.open('steward');
      open.onerror = () => resolve(undefined);
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('settings')) {
          db.close();
          return resolve(undefined);
        }
        db.onversionchange = () => {
          db.close();
          w.__benchCursorDb = undefined;
        };
        resolve(db);
      };
    });
    const db = w.__benchCursorDb;
    if (!db) return none;
    return new Promise<{ journal: string; position: number }>((resolve) => {
      const get = db.transaction('settings', 'readonly').objectStore('settings').get('event-cursor');
      get.onsuccess = () => resolve((get.result as { value?: { journal: string; position: number } } | undefined)?.value ?? none);
      get.onerror = () => resolve(none);
    });
  });
}

/**
 * Polls every `pollMs` until the page's cursor is at `head`; when it first saw a stored frame (performance.now())
 * and up to where. A backfill polls seldom (the poll's read waits behind the page's writes); the live runs' lag,
 * a fraction of a second, more often.
 */
async function untilStored(page: Page, head: number, timeoutMs: number, pollMs = 100): Promise<{ firstAt: number; firstPosition: number }> {
  const deadline = performance.now() + timeoutMs;
  let first: { firstAt: number; firstPosition: number } | undefined;
  for (;;) {
    const { position } = await storedCursor(page);
    if (position > 0 || position >= head) first ??= { firstAt: performance.now(), firstPosition: position };
    if (first && position >= head) return first;
    if (performance.now() > deadline) throw new Error(`the page stored up to ${position} of ${head} events in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Raw IndexedDB in the page: the events given to it (window.__bench), put `batch` per transaction into a fresh database. */
async function rawPuts(page: Page, batch: number): Promise<number> {
  return page.evaluate(async (size) => {
    const events = (window as unknown as { __bench: unknown[] }).__bench;
    const name = `bench-raw-${Math.random().toString(36).slice(2)}`;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => {
        // The key and indexes of db.ts's events table: 'id, run_id, [run_id+seq], type'.
        const store = open.result.createObjectStore('events', { keyPath: 'id' });
        store.createIndex('run_id', 'run_id');
        store.createIndex('[run_id+seq]', ['run_id', 'seq']);
        store.createIndex('type', 'type');
      };
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const t = performance.now();
    for (let i = 0; i < events.length; i += size) {
      const tx = db.transaction('events', 'readwrite');
      const store = tx.objectStore('events');
      for (const e of events.slice(i, i + size)) store.put(e);
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
    }
    const ms = performance.now() - t;
    db.close();
    indexedDB.deleteDatabase(name);
    return ms;
  }, batch);
}

/** Every row of the page's database put again, raw, into a fresh one with the same stores and indexes: ms, and what was written. */
async function rawPutsOfStored(page: Page, batch: number): Promise<{ ms: number; rows: number; stores: number; bytes: number; byStore: Record<string, number> }> {
  // tsx names the helpers below with its own __name(): the page has none.
  await page.evaluate('globalThis.__name = (f) => f');
  return page.evaluate(async (size) => {
    const done = (r: IDBRequest | IDBTransaction) =>
      new Promise<void>((resolve, reject) => {
        if (r instanceof IDBTransaction) {
          r.oncomplete = () => resolve();
          r.onerror = () => reject(r.error);
        } else {
          r.addEventListener('success', () => resolve());
          r.addEventListener('error', () => reject(r.error));
        }
      });
    const openDb = (name: string, version?: number, upgrade?: (db: IDBDatabase) => void) =>
      new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name, version);
        if (upgrade) open.onupgradeneeded = () => upgrade(open.result);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
    const source = await openDb('steward');
    const names = Array.from(source.objectStoreNames);
    const tx = source.transaction(names, 'readonly');
    const schema = names.map((name) => {
      const store = tx.objectStore(name);
      return { name, keyPath: store.keyPath, autoIncrement: store.autoIncrement, indexes: Array.from(store.indexNames).map((i) => store.index(i)).map((i) => ({ name: i.name, keyPath: i.keyPath, multiEntry: i.multiEntry, unique: i.unique })) };
    });
    const rows: Array<[string, unknown]> = [];
    let bytes = 0;
    const byStore: Record<string, number> = {};
    for (const name of names) {
      const all = tx.objectStore(name).getAll();
      await done(all);
      for (const row of all.result as unknown[]) {
        const length = JSON.stringify(row).length;
        bytes += length;
        byStore[name] = (byStore[name] ?? 0) + length;
        rows.push([name, row]);
      }
    }
    source.close();
    const copy = `bench-stored-${Math.random().toString(36).slice(2)}`;
    const db = await openDb(copy, 1, (target) => {
      for (const s of schema) {
        const store = target.createObjectStore(s.name, { keyPath: s.keyPath, autoIncrement: s.autoIncrement });
        for (const i of s.indexes) store.createIndex(i.name, i.keyPath, { multiEntry: i.multiEntry, unique: i.unique });
      }
    });
    const t = performance.now();
    for (let i = 0; i < rows.length; i += size) {
      const write = db.transaction(names, 'readwrite');
      for (const [name, row] of rows.slice(i, i + size)) write.objectStore(name).put(row);
      await done(write);
    }
    const ms = performance.now() - t;
    db.close();
    indexedDB.deleteDatabase(copy);
    return { ms, rows: rows.length, stores: names.length, bytes, byStore };
  }, batch);
}

async function giveToPage(page: Page, events: readonly RunEvent[]): Promise<void> {
  await page.evaluate(() => ((window as unknown as { __bench: unknown[] }).__bench = []));
  for (let i = 0; i < events.length; i += 2_000) {
    await page.evaluate((chunk) => (window as unknown as { __bench: unknown[] }).__bench.push(...chunk), events.slice(i, i + 2_000));
  }
}

/**
 * Raw puts of `events` in a fresh disk-backed profile of their own, on a blank page of a loopback origin: the
 * baseline without the page's database beside it (later in the page's profile, its own writes may still be
 * compacting). Ms, and Chromium's CPU by process type meanwhile.
 */
async function rawPutsInFreshProfile(events: readonly RunEvent[]): Promise<{ ms: number; cpu: Record<string, number> }> {
  const server = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>raw</title>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const profile = await launchDiskProfile();
  try {
    const page = await profile.browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await giveToPage(page, events);
    const before = processesCpuByType(CHROMIUM);
    const ms = await rawPuts(page, BATCH);
    return { ms, cpu: cpuSince(before) };
  } finally {
    await profile.close();
    server.close();
  }
}

/** "browser 11.2 s, renderer 3.5 s": the processes that used a noticeable share. */
const cpuWords = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .filter(([, s]) => s >= 0.05)
    .map(([type, s]) => `${type} ${s.toFixed(1)} s`)
    .join(', ');

/** A backfill as the page opens the host at `url`: whole (from its open), its start (to the first frame seen stored), and the rest. */
interface Backfill {
  ms: number;
  startMs: number;
  /** The path itself, after the page's start (its scripts, the host's run summaries listed first). */
  streamMs: number;
  streamed: number;
}

async function timeBackfill(page: Page, url: string, events: number): Promise<Backfill> {
  const t = performance.now();
  await page.goto(url);
  const { firstAt, firstPosition } = await untilStored(page, events, 30 * 60_000);
  const end = performance.now();
  return { ms: end - t, startMs: firstAt - t, streamMs: end - firstAt, streamed: events - firstPosition };
}

/** The backfill after the page's start against raw puts of all `events` in `rawMs`, as rates. */
const afterStart = (b: Backfill, events: number, rawMs: number) => perSecondValue(b.streamed, b.streamMs) / perSecondValue(events, rawMs);

/** One backfill into a fresh disk-backed profile, closed after. */
async function backfillInFreshProfile(url: string, events: number): Promise<Backfill> {
  const profile = await launchDiskProfile();
  try {
    return await timeBackfill(await profile.browser.newPage(), url, events);
  } finally {
    await profile.close();
  }
}

/**
 * PAIRS pairs, each a fresh profile's backfill of the host at `url` and a fresh profile's raw puts of the same events,
 * alternating which goes first, every profile closed before the next starts (a profile that just wrote keeps
 * compacting in the background): this machine's speed drifts by a fifth from minute to minute, so one pair's
 * ratio is not a figure; the median of the pairs is.
 */
async function backfillPairs(url: string, events: readonly RunEvent[]): Promise<void> {
  const pairs: { whole: number; stream: number }[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const rawFirst = i % 2 === 1;
    const rawBefore = rawFirst ? (await rawPutsInFreshProfile(events)).ms : undefined;
    const page = await backfillInFreshProfile(url, events.length);
    const rawMs = rawBefore ?? (await rawPutsInFreshProfile(events)).ms;
    const pair = { whole: rawMs / page.ms, stream: afterStart(page, events.length, rawMs) };
    pairs.push(pair);
    console.log(`  pair ${i + 1} (${rawFirst ? 'raw puts first' : 'page first'}): backfill ${(page.ms / 1000).toFixed(1)} s, raw puts ${(rawMs / 1000).toFixed(1)} s → ${ratio(pair.whole)}; after the page's start ${ratio(pair.stream)}`);
  }
  const range = (xs: number[]) => `${ratio(Math.min(...xs))}–${ratio(Math.max(...xs))}`;
  console.log(
    `  → over ${pairs.length} pairs: backfill ${ratio(median(pairs.map((p) => p.whole)))} raw puts (median; ${range(pairs.map((p) => p.whole))}); after the page's start ${ratio(median(pairs.map((p) => p.stream)))} (${range(pairs.map((p) => p.stream))})`,
  );
}

async function livePath(template: RunEvent[][]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-store-'));
  const backfill = copies(template, EVENTS, 'bench-backfill');
  // First, before anything else writes to disk: the same events put raw in a profile of their own.
  const fresh = await rawPutsInFreshProfile(backfill);
  const live = copies(template, LIVE * 2, 'bench-live'); // the raw baseline's live events (as many as the runs appended)
  // The journal as the host left it: written before the host starts.
  const journal = openHistory(dataDir);
  for (let i = 0; i < backfill.length; i += 5_000) journal.append(backfill.slice(i, i + 5_000));
  journal.close();

  let stdout = '';
  const shell = await runBrowserShell(
    ['--port', '0', '--data-dir', dataDir, '--no-open', '--print-url-json'],
    { stdout: (text) => (stdout += text), stderr: (text) => (/^steward: (workflow )?run .* completed/.test(text) ? undefined : process.stderr.write(text)), env: process.env, platform: process.platform },
    // The live events come from the host's own journal: the bench appends to it as a run would.
    { staticDir: STATIC_DIR, createHost: (options) => createHost(options), openBrowser: () => undefined },
  );
  if (shell.kind !== 'running') throw new Error(`the browser shell did not start (exit ${shell.code})`);
  const { url } = JSON.parse(stdout.split('\n')[0] ?? '{}') as { url: string };
  console.log(`(1) live path host → page → Dexie, ${backfill.length} events (${BATCH} per frame), real Chromium, disk-backed profiles`);
  if (PAIRS > 0) await backfillPairs(url, backfill);
  // The measure in detail, in one more fresh profile: where the CPU went, what the page wrote, the live runs after.
  // A disk-backed profile, as the app's browser has: IndexedDB on disk for the page and the raw baselines alike.
  const profile = await launchDiskProfile();
  const browser = profile.browser;
  try {
    const page = await browser.newPage();
    const profiler = PROFILE ? await profilePage(page) : undefined;
    const hostCpu0 = process.cpuUsage();
    const browserCpu0 = processesCpuByType(CHROMIUM);
    const timed = await timeBackfill(page, url, backfill.length);
    const backfillMs = timed.ms;
    const hostCpu = process.cpuUsage(hostCpu0);
    const browserCpu = cpuSince(browserCpu0);
    await profiler?.stop('page profile of the backfill');

    const { port, token } = JSON.parse(stdout.split('\n')[0] ?? '{}') as { port: number; token: string };
    console.log(`  backfill  page: ${(backfillMs / 1000).toFixed(1)} s (${perSecond(backfill.length, backfillMs)})`);
    // On a machine with few cores the path's processes share them: where its CPU went says what would speed it up.
    console.log(`  CPU during the backfill: host (this process) ${((hostCpu.user + hostCpu.system) / 1e6).toFixed(1)} s, Chromium's processes ${cpuWords(browserCpu)}, over ${(backfillMs / 1000).toFixed(1)} s on ${availableParallelism()} cores`);
    // The page's own rows, copied before the live runs add theirs: the baseline of what it writes. Printed as measured (a browser lost later keeps them).
    const stored = await rawPutsOfStored(page, BATCH);
    await giveToPage(page, backfill);
    const rawCpu0 = processesCpuByType(CHROMIUM);
    const rawMs = await rawPuts(page, BATCH);
    const rawCpu = cpuSince(rawCpu0);
    await page.evaluate(() => ((window as unknown as { __bench: unknown[] }).__bench = []));
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    const largest = Object.entries(stored.byStore).sort((a, b) => b[1] - a[1]);
    console.log(`  raw IndexedDB puts of the same events (${BATCH} per transaction, db.ts's indexes), after the backfill in the page's profile: ${(rawMs / 1000).toFixed(1)} s (${perSecond(backfill.length, rawMs)})`);
    console.log(`  → backfill ${ratio(rawMs / backfillMs)} raw event puts; Chromium's CPU during them: ${cpuWords(rawCpu)}`);
    console.log(`  the same raw puts first, in a fresh profile of their own: ${(fresh.ms / 1000).toFixed(1)} s (${perSecond(backfill.length, fresh.ms)}); Chromium's CPU: ${cpuWords(fresh.cpu)}`);
    console.log(`  → backfill ${ratio(fresh.ms / backfillMs)} those (issue 26's measure: the baseline undisturbed by the page's own writes)`);
    console.log(
      `  after the page's start (${(timed.startMs / 1000).toFixed(1)} s to its first stored frame: scripts, run summaries): ${timed.streamed} events in ${(timed.streamMs / 1000).toFixed(1)} s (${perSecond(timed.streamed, timed.streamMs)}) → ${ratio(afterStart(timed, backfill.length, fresh.ms))} the fresh profile's raw puts`,
    );
    console.log(
      `  raw IndexedDB puts of every row the page stored (${stored.rows} rows in ${stored.stores} stores, ${mb(stored.bytes)} as JSON: ${largest.map(([name, bytes]) => `${name} ${mb(bytes)}`).join(', ')}; ${BATCH} rows per transaction): ${(stored.ms / 1000).toFixed(1)} s  → backfill ${ratio(stored.ms / backfillMs)} of that`,
    );
    const { ms: liveMs, appendedMs, events: liveEvents } = await liveRuns(page, { port, token });
    await giveToPage(page, live.slice(0, liveEvents));
    const rawLiveMs = await rawPuts(page, ROUND_EVENTS);
    console.log(
      `  live: ${liveEvents} events of ${LIVE_RUNS} one-round runs started back to back; the host appended them in ${(appendedMs / 1000).toFixed(1)} s (${perSecond(liveEvents, appendedMs)}), the page had stored them ${Math.max(0, liveMs - appendedMs).toFixed(0)} ms after the last (${perSecond(liveEvents, liveMs)}); raw puts per ${ROUND_EVENTS}: ${perSecond(liveEvents, rawLiveMs)}`,
    );
  } finally {
    await profile.close();
    await shell.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const LIVE_RUNS = Math.ceil(LIVE / ROUND_EVENTS);
/** A one-round supervised run on the replay provider, no servers: about a round's events, appended live. */
const oneRound: HostedWorkflowInput = {
  format: 'steward/v1',
  kind: 'agent',
  id: 'bench-live',
  name: 'Bench live',
  instructions: 'Answer.',
  task: 'Say you are done.',
  supervision: { phase: 2, rules: { complete: true } },
  script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'done' } }], teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }] },
};

/**
 * Live: LIVE_RUNS runs started back to back through the host's API while the page is subscribed;
 * ms until the page's cursor is at the journal's head once they all finished.
 */
async function liveRuns(page: Page, host: { port: number; token: string }): Promise<{ ms: number; appendedMs: number; events: number }> {
  const client = await connectHost(host);
  const runAll = async (count: number) => {
    for (let i = 0; i < count; i++) await client.request('run.start', { workflow: HostedWorkflow.parse(oneRound), overrides: {} });
    for (;;) {
      const { run_ids } = (await client.request('runs.active', {})) as { run_ids: string[] };
      if (run_ids.length === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    // A second session, from where the page stands: it sees exactly the live events, so it knows the head.
    const stored = await storedCursor(page);
    await client.request('events.subscribe', { journal: stored.journal, after: stored.position });
    const t = performance.now();
    await runAll(LIVE_RUNS);
    while (client.events.filter((e) => e.type === 'run.finished').length < LIVE_RUNS) await new Promise((r) => setTimeout(r, 20));
    const appendedMs = performance.now() - t;
    const head = stored.position + client.events.length;
    await untilStored(page, head, 5 * 60_000, 20);
    return { ms: performance.now() - t, appendedMs, events: client.events.length };
  } finally {
    client.close();
  }
}

/** (2) A supervised run's round time with the host's journal path against the same run with events dropped. */
async function hostOverhead(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-bench-round-'));
  const journal = EventJournal.open(historyPath(dir));
  const feed = new JournalFeed(journal, { batch: BATCH });
  let sent = 0;
  feed.attach('page', (frame) => (sent += JSON.stringify({ kind: 'events', ...frame }).length), {});
  const writer = createJournalWriter(journal);
  const roundsMs = async (onEvent: (e: RunEvent) => void, flush: () => void): Promise<number> => {
    let first = 0;
    let last = 0;
    await recordLearningRun(ROUNDS, 2, {
      latencyMs: MODEL_MS,
      onEvent: (e) => {
        if (e.type === 'round.started' && first === 0) first = performance.now();
        onEvent(e);
        if (e.type === 'run.finished') last = performance.now();
      },
    });
    flush();
    return (last - first) / ROUNDS;
  };
  const bare: number[] = [];
  const journalled: number[] = [];
  let stored = 0;
  try {
    await roundsMs(() => undefined, () => undefined); // warm-up
    for (let i = 0; i < SAMPLES; i++) {
      bare.push(await roundsMs(() => undefined, () => undefined));
      journalled.push(await roundsMs(writer.onEvent, writer.flush));
    }
    stored = journal.count;
  } finally {
    feed.close();
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const b = median(bare);
  const j = median(journalled);
  console.log(`(2) host overhead of a supervised round, ${MODEL_MS} ms model, ${ROUNDS} rounds, median of ${SAMPLES}`);
  console.log(`  bare ${b.toFixed(1)} ms/round, journal path ${j.toFixed(1)} ms/round  → ${ratio(j / b)} (${stored} events journalled, ${(sent / 1e6).toFixed(1)} MB sent)`);
}

async function main() {
  const part = process.env.BENCH_PART; // '1' or '2': only that part
  if (part !== '2') await livePath([(await recordLearningRun(20, 2)).events, (await recordLearningRun(12, 1)).events]);
  if (part !== '1') await hostOverhead();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
