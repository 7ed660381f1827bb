/**
 * bench/idb-listing — what listing a long history's runs costs a fresh browser profile's IndexedDB,
 * with and without the search words' multi-entry index filled (issue 26). A mechanism bench: raw
 * IndexedDB in headless Chromium with a disk-backed profile (as the app's browser keeps it), the
 * `runs` store with the indexes of the page's schema (db.ts, v8), rows put 250 a transaction with a
 * read of each first, as `mergeSummaries` does. The rows are the host's row of one real demo run
 * (`steward run` of the Notes demo, folded by the shared `summarize`), under fresh ids and times.
 *
 *   words      every row put with its ~80 search words (the page before: `*words` filled for every run)
 *   listed     the rows put without them (the page now: only runs it holds events of have words)
 *
 * Prints ms a row for each slice of 10,000 rows, and each mode's last slice against its first (how
 * the cost grows with the rows already there) and the last slices' ratio; and after each slice of the
 * listed rows, what counting them costs (the Runs screen's total): by the store, by an index; and what listing
 * the workflows the runs are of costs (the Runs filter's list, a unique-key cursor). The real page's listing
 * of a whole history is measured by bench/history-scale (BENCH_ONLY=browser-listed).
 * Run: npx tsx --tsconfig tsconfig.test.json bench/idb-listing.ts   (ROWS=60000 by default; needs `npm run build`;
 * ROWS=170000 IDB_MODES=listed: a 10M-event history's runs, the page's way only)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunEvent } from '@shared/contracts/events';
import { traceLineEvent } from '@shared/contracts/trace-line';
import { summarize, type RunRow } from '@shared/history/run-summary';
import { runWords } from '@shared/history/search-words';
import { ensureBuilt } from '../test-support/ensure-built';
import { launchDiskProfile } from './disk-profile';
import { runMain } from './run-main';

const ROWS = Number(process.env.ROWS ?? 60_000);
const SLICE = 10_000;
const BATCH = 250;

/** The host's row of one real run of the Notes demo (what `runs.list` gives a page), words apart. */
function demoRow(): RunRow {
  const dir = mkdtempSync(join(tmpdir(), 'steward-bench-idb-'));
  try {
    const trace = join(dir, 'demo.jsonl');
    const done = spawnSync(process.execPath, ['out/main/cli.js', 'run', 'resources/examples/notes-assistant.json', '--trace', trace, '--data-dir', join(dir, 'data')], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`the demo run failed (${done.status}): ${done.stderr}`);
    const events: RunEvent[] = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const read = traceLineEvent(line);
        if (!read.ok) throw new Error(`the demo's trace has a bad line: ${read.problem}`);
        return read.event;
      });
    const row = summarize(undefined, events, events.length);
    if (!row) throw new Error('the demo run folded to no row');
    const { words: _words, ...listed } = row;
    return listed;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Counted {
  store: number;
  index: number;
  /** The workflows the runs are of (the Runs filter's list): a `nextunique` key cursor on workflow_id, as Dexie's uniqueKeys walks it. */
  workflows: number;
}

/**
 * ms a row for each slice of SLICE rows, putting ROWS rows into a fresh disk-backed profile; and after
 * each slice, ms to count the rows by the store and by its `started_at` index.
 */
async function list(origin: string, row: RunRow, withWords: boolean): Promise<{ slices: number[]; counts: Counted[] }> {
  const profile = await launchDiskProfile();
  try {
    const page = await profile.browser.newPage();
    await page.goto(origin);
    await page.evaluate(async () => {
      await new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('bench', 1);
        open.onupgradeneeded = () => {
          const runs = open.result.createObjectStore('runs', { keyPath: 'run_id' });
          for (const key of ['workflow_id', 'started_at', 'status']) runs.createIndex(key, key);
          runs.createIndex('[started_at+run_id]', ['started_at', 'run_id']);
          runs.createIndex('[status+started_at+run_id]', ['status', 'started_at', 'run_id']);
          runs.createIndex('[workflow_id+started_at+run_id]', ['workflow_id', 'started_at', 'run_id']);
          runs.createIndex('words', 'words', { multiEntry: true });
        };
        open.onsuccess = () => {
          (globalThis as { benchDb?: IDBDatabase }).benchDb = open.result;
          resolve();
        };
        open.onerror = () => reject(open.error);
      });
    });
    const words = runWords(row);
    const slices: number[] = [];
    const counts: Counted[] = [];
    let sliceStart = performance.now();
    for (let done = 0; done < ROWS; done += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) => {
        const n = (done + i).toString(16).padStart(12, '0');
        return { ...row, run_id: `${n.slice(0, 8)}-bench-4000-8000-${n}`, started_at: new Date(Date.UTC(2026, 0, 1) + (done + i) * 1000).toISOString(), stored_events: 0, ...(withWords ? { words } : {}) };
      });
      await page.evaluate(async (rows) => {
        const db = (globalThis as { benchDb?: IDBDatabase }).benchDb!;
        await new Promise<void>((resolve, reject) => {
          const tx = db.transaction('runs', 'readwrite');
          const runs = tx.objectStore('runs');
          for (const r of rows) runs.get(r.run_id);
          for (const r of rows) runs.put(r);
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        });
      }, batch);
      if ((done + BATCH) % SLICE === 0) {
        const now = performance.now();
        slices.push((now - sliceStart) / SLICE);
        // What the Runs screen's count of the runs costs at this size: the store's count against its start index's.
        counts.push(
          // (No named functions inside: the bench's transpiler would wrap them in a helper the page lacks.)
          await page.evaluate(async () => {
            const db = (globalThis as { benchDb?: IDBDatabase }).benchDb!;
            const ms: number[] = [];
            for (const index of [undefined, 'started_at']) {
              const store = db.transaction('runs').objectStore('runs');
              const t0 = performance.now();
              await new Promise<void>((resolve, reject) => {
                const request = index === undefined ? store.count() : store.index(index).count();
                request.onsuccess = () => resolve();
                request.onerror = () => reject(request.error);
              });
              ms.push(performance.now() - t0);
            }
            const store = db.transaction('runs').objectStore('runs');
            const t0 = performance.now();
            await new Promise<void>((resolve, reject) => {
              const cursor = store.index('workflow_id').openKeyCursor(null, 'nextunique');
              cursor.onsuccess = () => (cursor.result ? cursor.result.continue() : resolve());
              cursor.onerror = () => reject(cursor.error);
            });
            return { store: ms[0]!, index: ms[1]!, workflows: performance.now() - t0 };
          }),
        );
        sliceStart = performance.now();
        process.stderr.write(`\r  ${withWords ? 'words ' : 'listed'}: ${(done + BATCH).toLocaleString('en')} rows`);
      }
    }
    process.stderr.write('\n');
    return { slices, counts };
  } finally {
    await profile.close();
  }
}

async function main() {
  ensureBuilt();
  const row = demoRow();
  const server = createServer((_, res) => res.end('<!doctype html><title>bench</title>')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  try {
    // IDB_MODES=listed: the page's way alone (the words' way takes hours at 172,000 rows).
    const both = process.env.IDB_MODES !== 'listed';
    const withoutWords = await list(origin, row, false);
    const withWords = both ? await list(origin, row, true) : { slices: withoutWords.slices.map(() => NaN), counts: [] };
    const [words, listed] = [withWords.slices, withoutWords.slices];
    console.log(`bench/idb-listing — ${ROWS.toLocaleString('en')} rows of ${JSON.stringify(row).length} bytes, ${runWords(row).length} search words each; headless Chromium, disk-backed profile`);
    console.log('');
    console.log('| rows already there | with the words index (before) | listed without words (now) | then a count: by the store · by the started_at index | the workflows (unique keys) |');
    console.log('|---:|---:|---:|---:|---:|');
    words.forEach((ms, i) => {
      const counted = withoutWords.counts[i]!;
      console.log(`| ${(i * SLICE).toLocaleString('en')} | ${both ? `${ms.toFixed(2)} ms a row` : 'not measured'} | ${listed[i]!.toFixed(2)} ms a row | ${counted.store.toFixed(1)} · ${counted.index.toFixed(1)} ms | ${counted.workflows.toFixed(1)} ms |`);
    });
    console.log('');
    console.log(`growth, the last ${SLICE.toLocaleString('en')} rows against the first: ${both ? `with words ${(words.at(-1)! / words[0]!).toFixed(2)}×, ` : ''}listed ${(listed.at(-1)! / listed[0]!).toFixed(2)}×`);
    if (both) console.log(`the last ${SLICE.toLocaleString('en')} rows, listed against with words: ${(listed.at(-1)! / words.at(-1)!).toFixed(2)}× the time`);
  } finally {
    server.close();
  }
}

runMain(main);
