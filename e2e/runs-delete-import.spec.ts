import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

// Issue 9, "it cannot be shared": a trace file (the CLI's --trace format) imported into the app is
// kept by the host; a run deleted after confirming leaves the host's history and every browser.
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
const contexts: BrowserContext[] = [];

async function openRuns(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await page.evaluate(() => (window.location.hash = '#/runs'));
  return page;
}

/** A finished run as `steward run --trace` writes it: one event a line. */
function traceFile(runId: string): { name: string; mimeType: string; buffer: Buffer } {
  const ts = (s: number) => new Date(Date.UTC(2026, 0, 5, 9, 0, s)).toISOString();
  const envelope = (seq: number) => ({ id: `${runId}:${String(seq).padStart(6, '0')}`, run_id: runId, seq, ts: ts(seq) });
  const events = [
    { type: 'run.started', ...envelope(0), spec_id: 'notes-cleanup', spec_name: 'Tidy the notes folder', task: 'Summarise notes/todo.md', supervision: { enabled: false }, models: { student: 'script', teacher: 'script' } },
    { type: 'run.notice', ...envelope(1), message: 'Imported from a CLI trace.' },
    { type: 'run.finished', ...envelope(2), status: 'completed', output: 'Summarised the notes.', rounds: 0, event_count: 3 },
  ];
  return { name: 'notes.trace.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n') };
}

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-transfer-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  for (const context of contexts.splice(0)) await context.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('import a trace file, see the run; delete it after confirming; after a reload it is gone, and from a second browser too', async ({ browser }) => {
  const runId = 'imported-trace-run-0001';
  const a = await openRuns(browser);
  await expect(a.getByTestId('runs-empty')).toBeVisible();

  // A file with a bad line imports nothing, and says which line.
  const file = traceFile(runId);
  const lines = file.buffer.toString().split('\n');
  lines[1] = '{"type":"round.started","oops":true}';
  await a.getByTestId('import-runs-file').setInputFiles({ ...file, buffer: Buffer.from(lines.join('\n')) });
  await expect(a.getByTestId('runs-action-error')).toContainText('notes.trace.jsonl, line 2');
  await expect(a.getByTestId('runs-action-error')).toContainText('Nothing was imported');
  await expect(a.getByTestId('runs-empty')).toBeVisible();

  await a.getByTestId('import-runs-file').setInputFiles(file);
  await expect(a.getByTestId('runs-action-status')).toContainText('of 1 run');
  const row = (p: Page) => p.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
  await expect(row(a)).toContainText('Tidy the notes folder');

  const b = await openRuns(browser);
  await expect(row(b)).toBeVisible();

  await row(a).getByTestId('select-run').check();
  await expect(a.getByTestId('runs-selected')).toHaveText('1 selected');
  await a.getByTestId('delete-runs').click();
  const dialog = a.getByTestId('delete-runs-dialog');
  await expect(dialog).toContainText('Delete 1 run?');
  await expect(dialog).toContainText('host’s history');
  await shot(a, '60-runs-delete-confirm');
  await dialog.getByTestId('confirm-delete-runs').click();
  await expect(a.getByTestId('runs-empty')).toBeVisible();
  await expect(b.getByTestId('runs-empty')).toBeVisible();

  await a.reload();
  await a.evaluate(() => (window.location.hash = '#/runs'));
  await expect(a.getByTestId('runs-empty')).toBeVisible();
  await expect(row(a)).toHaveCount(0);
});

// Issue 10, "one truth on every screen": a trace written before trace_format (rounds from 0) still
// imports; the run shows its rounds from 1, and Export JSONL writes them from 1 (trace format 2).
const FORMAT_1 = fileURLToPath(new URL('../src-main/learning/fixtures/copied-context-phase1.trace.jsonl', import.meta.url));

test('an old trace (rounds from 0) imports with its rounds numbered from 1, and Export JSONL writes the same numbers, trace format 2', async ({ browser }) => {
  const old = readFileSync(FORMAT_1, 'utf8');
  expect(old).not.toContain('trace_format');
  const runId = (JSON.parse(old.slice(0, old.indexOf('\n'))) as { run_id: string }).run_id;
  const page = await openRuns(browser);
  await page.getByTestId('import-runs-file').setInputFiles(FORMAT_1);
  await expect(page.getByTestId('runs-action-status')).toContainText('of 1 run');
  const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
  await row.getByTestId('select-run').check();

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-runs').click()]);
  type Line = { trace_format?: number; type: string; round?: number; record?: { round: number } };
  const lines = readFileSync((await download.path()) ?? '', 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  expect(lines).toHaveLength(74);
  expect(lines.filter((l) => l.trace_format !== 2)).toEqual([]);
  const completed = lines.filter((l) => l.type === 'round.completed').map((l) => [l.round, l.record?.round]);
  expect(completed).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, n]));

  await row.click();
  await expect(page.locator('.round__title')).toHaveText(['Round 1', 'Round 2', 'Round 3', 'Round 4', 'Round 5', 'Round 6']);
  await shot(page, '61-imported-old-trace-rounds');
});
