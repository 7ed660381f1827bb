/**
 * bench/history-scale — what a long history costs the host and the CLI (issue 26), against an empty
 * data folder measured in the same run, with the product's own processes and wiring:
 *
 *   history   one real run of the Notes demo (`steward run resources/examples/notes-assistant.json
 *             --trace`, the replay models, the real filesystem server), copied under fresh run ids
 *             until the history holds EVENTS events (default 1,000,000; EVENTS=10000000 for 10M),
 *             written through the host's own history store (history.sqlite in a temp data folder).
 *   start     the built browser-run host (`out/main/server.js`) from process start to its URL line,
 *             and its resident memory (VmRSS) once started: median of SAMPLES starts, empty vs full.
 *   run       `steward run` of the same spec with no app (`out/main/cli.js`): median of SAMPLES.
 *   search    `runs.list {text}` over the host's WebSocket API (what the page asks): p50/p95 of
 *             the first page for words of the demo's task, a word no run has, and a run id prefix.
 *   list      `runs.list` first page and one 1,000-row page, as a fresh profile asks.
 *   open      a 10,000-event run's events read back (`runs.otlp` reads the run by its index).
 *   delete    `runs.delete` of 1,000 runs in one request (a transaction), and the file after.
 *   browser   the built page in headless Chromium with a fresh disk-backed profile (as the app's
 *             browser keeps IndexedDB): from navigation to Runs showing the newest run first (the
 *             first correct page), empty vs full; then a 10,000-event run opened on its Trace tab
 *             (the oldest runs: not among those the page keeps, their events come from the host's
 *             runs.events), to its first trace row on screen and to all of its events in the page:
 *             at once (the page still lists the runs), once every run is listed (the page stores
 *             their events) and once it has indexed everything (a long run each).
 *   import    `steward runs import` of a ~100 MB trace (demo runs) into a fresh folder, against a
 *             ~1 MB one: wall time and peak memory (/usr/bin/time's max RSS), and its progress lines;
 *             each with V8's heap capped at IMPORT_HEAP_MB (64): it completes, so the memory it
 *             holds is bounded whatever the file's size (uncapped, V8 grows its heap lazily).
 *
 * Prints each figure with its ratio to the empty folder's. Needs `npm run build`.
 * Run: npm run bench:history   (EVENTS=200000 for a quick look)
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { traceLineEvent } from '@shared/contracts/trace-line';
import { openHistory } from '../src-main/events/open-history';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost } from '../test-support/host-process';
import { launchDiskProfile } from './disk-profile';
import { profilePage } from './page-profile';

const EVENTS = Number(process.env.EVENTS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const CLI = join(process.cwd(), 'out/main/cli.js');
const SERVER = join(process.cwd(), 'out/main/server.js');
const SPEC = join(process.cwd(), 'resources/examples/notes-assistant.json');
const IMPORT_HEAP_MB = 64;
/** The page's whole indexing is waited for (and a run opened after it) up to this many events: at 10M it would take over an hour. */
const INDEXED_UP_TO = Number(process.env.BENCH_INDEXED_UP_TO ?? 2_000_000);
/**
 * BENCH_ONLY=browser: the history, then the browser figures alone (a quick look while working on the page);
 * BENCH_ONLY=browser-listed: of those, up to the run opened once every run is listed (not the whole indexing);
 * BENCH_ONLY=first-page: of those, only a fresh profile's first correct Runs page, empty and full;
 * BENCH_PROFILE=1: the page's CPU profile from opening until every run is listed (self time, top 25).
 */
const ONLY = process.env.BENCH_ONLY;
const PROFILE = process.env.BENCH_PROFILE === '1';

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'steward-bench-history-'));
const emptyDir = join(dir, 'empty');
const fullDir = join(dir, 'full');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? NaN;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;

/** One real demo run's events, as `steward run --trace` writes them. */
function demoRun(): RunEvent[] {
  const trace = join(dir, 'demo.jsonl');
  const done = spawnSync(process.execPath, [CLI, 'run', SPEC, '--trace', trace, '--data-dir', join(dir, 'demo-data')], { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`the demo run failed (${done.status}): ${done.stderr}`);
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const read = traceLineEvent(line);
      if (!read.ok) throw new Error(`the demo's trace has a bad line: ${read.problem}`);
      return read.event;
    });
}

/** The run again under another id, `minutes` later: identity rewritten on the parsed events, never in text. */
function copyRun(events: readonly RunEvent[], runId: string, minutes: number): RunEvent[] {
  return events.map((event) => {
    const at = new Date(Date.parse(event.ts) - minutes * 60_000).toISOString();
    return { ...event, id: eventId(runId, event.seq), run_id: runId, ts: at } as RunEvent;
  });
}

/** A run of `length` events (a long agent run): the demo's start, then its rounds repeated, then its end. */
function longRun(events: readonly RunEvent[], runId: string, length: number): RunEvent[] {
  const middle = events.slice(1, -1);
  const out: RunEvent[] = [{ ...events[0]!, id: eventId(runId, 0), run_id: runId } as RunEvent];
  for (let seq = 1; seq < length - 1; seq++) out.push({ ...middle[(seq - 1) % middle.length]!, id: eventId(runId, seq), run_id: runId, seq } as RunEvent);
  const end = events.at(-1)!;
  out.push({ ...end, id: eventId(runId, length - 1), run_id: runId, seq: length - 1, ...(end.type === 'run.finished' ? { event_count: length } : {}) } as RunEvent);
  return out;
}

function buildHistory(demo: readonly RunEvent[]): { runIds: string[]; longRunId: string; middleRunId: string; laterRunId: string; seconds: number } {
  const t0 = performance.now();
  const history = openHistory(fullDir, { log: () => undefined });
  const runIds: string[] = [];
  const longRunId = 'ffffffff-0000-4000-8000-000000010000';
  // The oldest run of the history (as a long run from long ago would be): not among those a fresh page keeps.
  history.append(longRun(copyRun(demo, longRunId, EVENTS), longRunId, 10_000), { made: true });
  // Another, opened once the page has indexed everything.
  const laterRunId = 'ffffffff-0000-4000-8000-000000010001';
  history.append(longRun(copyRun(demo, laterRunId, EVENTS + 1), laterRunId, 10_000), { made: true });
  // A third, opened once every run is listed, while the page stores the events.
  const middleRunId = 'ffffffff-0000-4000-8000-000000010002';
  history.append(longRun(copyRun(demo, middleRunId, EVENTS + 2), middleRunId, 10_000), { made: true });
  let written = 30_000;
  let n = 0;
  while (written < EVENTS) {
    const runId = `${n.toString(16).padStart(8, '0')}-bench-4000-8000-${n.toString(16).padStart(12, '0')}`;
    const events = copyRun(demo, runId, n + 1);
    history.append(events, { made: true });
    runIds.push(runId);
    written += events.length;
    n += 1;
    if (n % 2_000 === 0) process.stderr.write(`\r  writing the history: ${written.toLocaleString('en')} of ${EVENTS.toLocaleString('en')} events`);
  }
  history.close();
  process.stderr.write('\n');
  return { runIds, longRunId, middleRunId, laterRunId, seconds: (performance.now() - t0) / 1000 };
}

/** Starts the built host on a folder: ms from process start to its URL, its RSS then, and a client. */
async function startHost(dataDir: string) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dataDir, '--no-open', '--print-url-json'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`host exited (${code}): ${stderr}`)));
  });
  const ms = performance.now() - t0;
  const { port, token, url } = JSON.parse(first) as { port: number; token: string; url: string };
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { ms, rss, port, token, url, stop };
}

interface OpenFigures {
  firstScreen: number;
  whole: number;
}

/**
 * A fresh browser profile on disk opening the app on `dataDir`'s host: ms to the first correct Runs page
 * (the host's newest run first, or the empty state), and with `longRunId`, that run opened on its Trace tab.
 */
async function browserFigures(
  dataDir: string,
  long?: { first: string; middle: string; later: string },
): Promise<{ firstPage: number; open?: OpenFigures; openStoring?: OpenFigures; openIndexed?: OpenFigures; indexed?: number }> {
  const host = await startHost(dataDir);
  const api = await connectHost(host);
  const newest = ((await api.request('runs.list', { limit: 1 })) as { runs: Array<{ run_id: string }> }).runs[0]?.run_id;
  api.close();
  const profile = await launchDiskProfile();
  try {
    const page = await profile.browser.newPage();
    // BENCH_PROFILE=1: where the page's time goes from opening until every run is listed.
    const profiler = PROFILE && long !== undefined ? await profilePage(page) : undefined;
    const t0 = performance.now();
    await page.goto(host.url);
    await page.evaluate(() => (window.location.hash = '#/runs'));
    if (newest === undefined) await page.getByTestId('runs-empty').waitFor({ timeout: 60_000 });
    else await page.waitForFunction((id) => document.querySelector('[data-testid="run-row"]')?.getAttribute('data-run-id') === id, newest, { timeout: 60_000, polling: 'raf' });
    const firstPage = performance.now() - t0;
    // Said at once: the rest of this waits for the page to index the whole history (minutes at 1M).
    console.error(`  (fresh profile: the first correct Runs page after ${firstPage.toFixed(0)} ms, ${long === undefined ? 'empty' : 'full'} folder)`);
    if (long === undefined || ONLY === 'first-page') return { firstPage };
    /** A run opened on its Trace tab: to its first trace row on screen, and to all its events in the page. */
    const openRun = async (runId: string): Promise<OpenFigures> => {
      const t1 = performance.now();
      await page.evaluate((id) => (window.location.hash = `#/runs/${id}/trace`), runId);
      await page.getByTestId('trace-event').first().waitFor({ timeout: 60_000 });
      const firstScreen = performance.now() - t1;
      await page.getByTestId('trace-tab').filter({ hasText: '10000' }).waitFor({ timeout: 120_000 });
      return { firstScreen, whole: performance.now() - t1 };
    };
    // At once: the page is still listing the runs (their summary rows, a page of them at a time).
    const open = await openRun(long.first);
    // Listing every run takes the page about 15 s at 1M events and under 3 minutes at 10M (2026-12-06;
    // it was over 27 minutes before the listed rows lost their search words and the Runs screen its
    // per-write walks): past INDEXED_UP_TO the rest is not waited for.
    if (EVENTS > INDEXED_UP_TO) return { firstPage, open };
    // Once every run is listed, while the page stores the history's events (transactions of up to 2,000).
    await page.evaluate(() => (window.location.hash = '#/runs'));
    await page.getByTestId('runs-indexing').filter({ hasText: 'Every run is listed' }).waitFor({ timeout: 60 * 60_000 });
    console.error(`  (every run listed ${((performance.now() - t0) / 1000).toFixed(0)} s after the page opened)`);
    await profiler?.stop('page profile, opening until every run is listed');
    const openStoring = await openRun(long.middle);
    if (ONLY === 'browser-listed') return { firstPage, open, openStoring };
    // Then the page indexes the whole history (it says so on Runs until it has), and another old run is opened.
    await page.evaluate(() => (window.location.hash = '#/runs'));
    await page.getByTestId('runs-indexing').waitFor({ state: 'detached', timeout: 60 * 60_000 });
    const indexed = performance.now() - t0;
    const openIndexed = await openRun(long.later);
    return { firstPage, open, openStoring, openIndexed, indexed };
  } finally {
    await profile.close();
    await host.stop();
  }
}

async function startFigures(dataDir: string): Promise<{ ms: number; rss: number }> {
  const ms: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const host = await startHost(dataDir);
    ms.push(host.ms);
    rss.push(host.rss);
    await host.stop();
  }
  return { ms: median(ms), rss: median(rss) };
}

function cliRun(dataDir: string): number {
  const t0 = performance.now();
  const done = spawnSync(process.execPath, [CLI, 'run', SPEC, '--json', '--data-dir', dataDir], { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`steward run failed (${done.status}): ${done.stderr}`);
  return performance.now() - t0;
}

async function timed<T>(action: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await action();
  return [performance.now() - t0, value];
}

try {
  process.stderr.write('bench/history-scale: recording one Notes demo run…\n');
  const demo = demoRun();
  const bytes = demo.reduce((n, e) => n + JSON.stringify(e).length, 0);
  // The empty folder gets the same demo copies a first start makes, nothing else.
  cpSync(join(dir, 'demo-data'), emptyDir, { recursive: true });
  cpSync(join(dir, 'demo-data'), fullDir, { recursive: true });
  const { runIds, longRunId, middleRunId, laterRunId, seconds } = buildHistory(demo);
  const file = join(fullDir, 'history.sqlite');
  console.log(`bench/history-scale · ${EVENTS.toLocaleString('en')} events (${runIds.length.toLocaleString('en')} copies of a ${demo.length}-event Notes demo run, ~${Math.round(bytes / demo.length)} B an event, and three 10,000-event runs)`);
  console.log(`  history written in ${seconds.toFixed(0)} s: ${mb(statSync(file).size)} on disk · ${SAMPLES} samples per figure, empty folder measured in the same run`);

  // BENCH_ONLY=first-page goes straight to the browser.
  const emptyStart = ONLY === 'first-page' ? { ms: NaN, rss: NaN } : await startFigures(emptyDir);
  const fullStart = ONLY === 'first-page' ? { ms: NaN, rss: NaN } : await startFigures(fullDir);
  if (ONLY !== 'first-page') console.log(`  host start → URL          empty ${emptyStart.ms.toFixed(0)} ms · full ${fullStart.ms.toFixed(0)} ms · ${ratio(fullStart.ms, emptyStart.ms)}`);
  if (ONLY !== 'first-page') console.log(`  host RSS after start      empty ${mb(emptyStart.rss)} · full ${mb(fullStart.rss)} · ${fullStart.rss >= emptyStart.rss ? '+' : '-'}${mb(Math.abs(fullStart.rss - emptyStart.rss))}`);

  // Before any `steward run` below adds runs newer than the history's.
  const emptyBrowser = await browserFigures(emptyDir);
  const fullBrowser = await browserFigures(fullDir, { first: longRunId, middle: middleRunId, later: laterRunId });
  console.log(`  fresh profile, first page empty ${emptyBrowser.firstPage.toFixed(0)} ms · full ${fullBrowser.firstPage.toFixed(0)} ms · ${ratio(fullBrowser.firstPage, emptyBrowser.firstPage)} (Chromium, disk-backed profile: Runs with the newest run first)`);
  const opened = (o: OpenFigures | undefined) => `first trace row ${o?.firstScreen.toFixed(0)} ms · all 10,000 events ${o?.whole.toFixed(0)} ms`;
  if (fullBrowser.open) {
    console.log(`  open a 10,000-event run   while the page lists runs: ${opened(fullBrowser.open)} (from the host: the page does not keep it)`);
    if (fullBrowser.openStoring) console.log(`                            while it stores their events: ${opened(fullBrowser.openStoring)}`);
    if (fullBrowser.openIndexed) console.log(`                            once indexed (${((fullBrowser.indexed ?? 0) / 1000).toFixed(0)} s after the page opened): ${opened(fullBrowser.openIndexed)}`);
    else if (ONLY === 'browser-listed') console.log('                            once indexed: not measured (BENCH_ONLY=browser-listed)');
    else console.log(`                            once listed and indexed: not measured past ${INDEXED_UP_TO.toLocaleString('en')} events (the page lists about 1,000 runs a second and indexes about 200,000 events in 130 s)`);
  }
  if (ONLY === 'browser' || ONLY === 'browser-listed' || ONLY === 'first-page') {
    // process.exit skips the finally below: the history (11 GB at 10M events) is removed here.
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }

  const emptyRuns: number[] = [];
  const fullRuns: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    emptyRuns.push(cliRun(emptyDir));
    fullRuns.push(cliRun(fullDir));
  }
  console.log(`  steward run, no app       empty ${median(emptyRuns).toFixed(0)} ms · full ${median(fullRuns).toFixed(0)} ms · ${ratio(median(fullRuns), median(emptyRuns))}`);

  const host = await startHost(fullDir);
  const page = await connectHost(host);
  try {
    const words = ['meeting', 'notes', 'tidy', 'action', 'zzzznothing', runIds[Math.floor(runIds.length / 2)]!.slice(0, 8)];
    const searches: number[] = [];
    for (let i = 0; i < 60; i++) searches.push((await timed(() => page.request('runs.list', { text: words[i % words.length]!, limit: 50 })))[0]);
    console.log(`  search, first page        p50 ${median(searches).toFixed(1)} ms · p95 ${p95(searches).toFixed(1)} ms (60 queries: words of the task, a word no run has, a run id's start)`);
    const [firstPage] = await timed(() => page.request('runs.list', { limit: 50 }));
    const [bigPage] = await timed(() => page.request('runs.list', { limit: 1_000 }));
    console.log(`  runs list                 first 50 rows ${firstPage.toFixed(1)} ms · 1,000 rows ${bigPage.toFixed(1)} ms`);
    const [open] = await timed(() => page.request('runs.otlp', { run_id: longRunId }));
    console.log(`  a 10,000-event run read   ${open.toFixed(0)} ms (runs.otlp: read by its index and encoded)`);
    const doomed = runIds.slice(0, 1_000);
    const before = statSync(file).size;
    const [deleted] = await timed(() => page.request('runs.delete', { run_ids: doomed }));
    console.log(`  delete 1,000 runs         ${deleted.toFixed(0)} ms (one request) · history file ${mb(before)} → ${mb(statSync(file).size)}`);
  } finally {
    page.close();
    await host.stop();
  }
  // Import: a ~100 MB trace against a ~1 MB one, each into a fresh folder, as a person runs it.
  const traceOf = (mbWanted: number, name: string) => {
    const file = join(dir, name);
    const perRun = demo.reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
    const copies = Math.ceil((mbWanted * 1024 * 1024) / perRun);
    const parts: string[] = [];
    for (let c = 0; c < copies; c++) parts.push(copyRun(demo, `${c.toString(16).padStart(8, '0')}-trace-4000-8000-${c.toString(16).padStart(12, '0')}`, c + 1).map((e) => JSON.stringify(e)).join('\n'));
    writeFileSync(file, parts.join('\n') + '\n');
    return { file, events: copies * demo.length };
  };
  const importOnce = (trace: { file: string; events: number }, folder: string, capped = true) => {
    const t0 = performance.now();
    const heap = capped ? [`--max-old-space-size=${IMPORT_HEAP_MB}`] : [];
    const done = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, ...heap, CLI, 'runs', 'import', trace.file, '--data-dir', join(dir, folder)], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`steward runs import failed (${done.status}): ${done.stderr}`);
    const kb = Number(/maxrss_kb=(\d+)/.exec(done.stderr)?.[1] ?? NaN);
    return { ms: performance.now() - t0, rss: kb * 1024, progress: done.stderr.split('\n').filter((line) => /checking|importing/.test(line)).length };
  };
  const small = traceOf(1, 'small.trace.jsonl');
  const large = traceOf(100, 'large.trace.jsonl');
  const s1 = importOnce(small, 'import-small');
  const l1 = importOnce(large, 'import-large');
  console.log(`  import 1 MB trace          ${s1.ms.toFixed(0)} ms · peak RSS ${mb(s1.rss)} (${small.events.toLocaleString('en')} events; V8 heap capped at ${IMPORT_HEAP_MB} MB)`);
  console.log(`  import 100 MB trace        ${l1.ms.toFixed(0)} ms · peak RSS ${mb(l1.rss)} (${large.events.toLocaleString('en')} events) · ${ratio(l1.rss, s1.rss)} the memory for ${ratio(statSync(large.file).size, statSync(small.file).size)} the bytes · ${l1.progress} progress lines`);
  // The cap proves the memory is bounded, and near it V8 spends most of the time collecting: the time a person waits is uncapped.
  const l2 = importOnce(large, 'import-large-uncapped', false);
  console.log(`  import 100 MB, uncapped    ${l2.ms.toFixed(0)} ms · peak RSS ${mb(l2.rss)} (the time a person waits; V8 grows its heap as it likes)`);
  writeFileSync(join(dir, 'done'), '');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
