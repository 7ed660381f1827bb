import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { LEARNING_EXPORT_FORMATS, type LearningExportFormat } from '@shared/contracts/learning-export';
import { toExportLines, toJsonl } from '@shared/learning/export-formats';
import { runCli } from '../src-main/shells/cli/cli';
import { readTraceExamples } from '../src-main/learning/read-trace';
import { StewardDb } from '../src-renderer/db/db';
import { ingestEvents } from '../src-renderer/db/ingest-events';
import { wholeExamples } from '../src-renderer/db/example-prompts';
import { ALL_EXAMPLES, examplesForExport, type LearningFilter } from '../src-renderer/screens/learning/learning-query';
import { recordLearningRun } from './learning-run';

/**
 * Issue 9, "trace size linear in run length": the page stores learning examples by reference, as their
 * events hold them, and rebuilds whole prompts only to show or export them. Real supervised runs through
 * the engine (scripted student and teacher, the real filesystem MCP server); the page's database in
 * fake-indexeddb, as the other data-layer tests.
 */

const dirs: string[] = [];
const dbs: StewardDb[] = [];
afterAll(async () => {
  for (const db of dbs) await db.delete();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function pageWith(events: readonly RunEvent[]): Promise<StewardDb> {
  const db = new StewardDb(`steward-learning-page-${Math.random().toString(36).slice(2)}`);
  dbs.push(db);
  await db.open();
  // As the host sends them: JSON over the wire, validated by the page, in frames.
  const received = RunEvent.array().parse(JSON.parse(JSON.stringify(events)));
  for (let i = 0; i < received.length; i += 500) await ingestEvents(db, received.slice(i, i + 500), { fresh: true });
  return db;
}

const jsonl = (events: readonly RunEvent[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

async function cliExport(format: LearningExportFormat, traces: readonly string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['learning', 'export', '--format', format, '-o', '-', ...traces], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  if (code !== 0) throw new Error(`steward learning export exited ${code}: ${stderr}`);
  return stdout;
}

async function pageExport(db: StewardDb, format: LearningExportFormat, filter: LearningFilter = ALL_EXAMPLES): Promise<string> {
  return toJsonl(toExportLines(format, await examplesForExport(db, filter)).lines);
}

describe('the Learning page’s export of examples stored by reference', () => {
  let traces: string[] = [];
  let db: StewardDb;
  beforeAll(async () => {
    // Phase 2 (the teacher reviews every round, replacing every third) and phase 1 (demonstration + shadow each round).
    const runs = [(await recordLearningRun(20, 2)).events, (await recordLearningRun(12, 1)).events];
    const dir = mkdtempSync(join(tmpdir(), 'steward-learning-page-'));
    dirs.push(dir);
    traces = runs.map((events, i) => {
      const path = join(dir, `run-${i}.jsonl`);
      writeFileSync(path, jsonl(events));
      return path;
    });
    db = await pageWith(runs.flat());
  }, 120_000);

  it('is byte for byte what `steward learning export` writes from the same runs’ traces, in both formats', async () => {
    expect((await db.learning_examples.toArray()).filter((r) => r.context_ref !== undefined).length).toBeGreaterThan(40);
    for (const format of LEARNING_EXPORT_FORMATS) {
      const cli = await cliExport(format, traces);
      expect(cli.split('\n').length).toBeGreaterThan(format === 'sft' ? 30 : 5);
      expect(await pageExport(db, format)).toBe(cli);
    }
  });

  it('filtered to shadow rounds (whose prompts repeat the demonstrations’), the lines the CLI makes of those examples', async () => {
    const shadows = (await readTraceExamples(traces[1] ?? '')).examples.filter((e) => e.kind === 'shadow');
    const expected = toJsonl(toExportLines('preference', shadows).lines);
    expect(expected.split('\n').length).toBeGreaterThan(3);
    expect(await pageExport(db, 'preference', { ...ALL_EXAMPLES, kind: 'shadow' })).toBe(expected);
  });
});

/** Every row of every table of the page's database, as JSON bytes: what the run costs the browser's storage. */
async function storedBytes(db: StewardDb): Promise<{ total: number; learning: number }> {
  let total = 0;
  let learning = 0;
  for (const table of db.tables) {
    const bytes = (await table.toArray()).reduce((n: number, row: unknown) => n + Buffer.byteLength(JSON.stringify(row)), 0);
    total += bytes;
    if (table.name === 'learning_examples') learning += bytes;
  }
  return { total, learning };
}

describe('a long run in the page', () => {
  it('takes storage linear in its rounds: 200 rounds store about 4× what 50 do', async () => {
    const [shortDb, longDb] = [await pageWith((await recordLearningRun(50, 2)).events), await pageWith((await recordLearningRun(200, 2)).events)];
    const [short, long] = [await storedBytes(shortDb), await storedBytes(longDb)];
    expect(long.learning / short.learning).toBeLessThan(4.3);
    expect(long.total / short.total).toBeLessThan(4.3);
    expect(long.total / short.total).toBeGreaterThan(3.7);
    // Stored with their whole prompts (as before), the same examples grow with the square of the rounds.
    const copied = async (db: StewardDb) => Buffer.byteLength(JSON.stringify(await wholeExamples(db, await db.learning_examples.toArray())));
    expect((await copied(longDb)) / (await copied(shortDb))).toBeGreaterThan(12);
  }, 120_000);
});
