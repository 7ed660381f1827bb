import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { HOST_METHODS } from '@shared/contracts/host-api';
import { LEARNING_EXPORT_FORMATS, type LearningExportFormat } from '@shared/contracts/learning-export';
import { toExportLines, toJsonl } from '@shared/learning/export-formats';
import { runCli } from '../src-main/shells/cli/cli';
import { readTraceExamples } from '../src-main/learning/read-trace';
import { openHistory } from '../src-main/events/open-history';
import { ALL_EXAMPLES, examplesForExport, type AskExamples, type LearningFilter } from '../src-renderer/screens/learning/learning-query';
import { hostPage, openTestHost } from './host-session';
import { recordLearningRun } from './learning-run';

/**
 * Issue 9, "trace size linear in run length": learning examples are recorded by reference, as their
 * events hold them, and whole prompts are rebuilt only to show or export them; since issue 26 the host
 * rebuilds them from its history and the Learning page asks it. Real supervised runs through the engine
 * (scripted student and teacher, the real filesystem MCP server); the real host on a data folder.
 */

const dirs: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()?.();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A host whose history holds these events, and the page's way to ask it for learning examples. */
async function hostWith(events: readonly RunEvent[]): Promise<AskExamples> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-learning-host-'));
  dirs.push(dataDir);
  const history = openHistory(dataDir, { log: () => undefined });
  history.append(events);
  history.close();
  const page = hostPage(await openTestHost(dataDir, cleanups));
  // As the page's client takes it: JSON over the wire, validated on arrival.
  return async (params) => HOST_METHODS['learning.examples'].result.parse(JSON.parse(JSON.stringify(await page.ok('learning.examples', params))));
}

const jsonl = (events: readonly RunEvent[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

async function cliExport(format: LearningExportFormat, traces: readonly string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['learning', 'export', '--format', format, '-o', '-', ...traces], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  if (code !== 0) throw new Error(`steward learning export exited ${code}: ${stderr}`);
  return stdout;
}

async function pageExport(ask: AskExamples, format: LearningExportFormat, filter: LearningFilter = ALL_EXAMPLES): Promise<string> {
  return toJsonl(toExportLines(format, await examplesForExport(ask, filter)).lines);
}

describe('the Learning page’s export of examples stored by reference', () => {
  let traces: string[] = [];
  let runs: RunEvent[][] = [];
  let ask: AskExamples;
  beforeAll(async () => {
    // Phase 2 (the teacher reviews every round, replacing every third) and phase 1 (demonstration + shadow each round).
    runs = [(await recordLearningRun(20, 2)).events, (await recordLearningRun(12, 1)).events];
    const dir = mkdtempSync(join(tmpdir(), 'steward-learning-page-'));
    dirs.push(dir);
    traces = runs.map((events, i) => {
      const path = join(dir, `run-${i}.jsonl`);
      writeFileSync(path, jsonl(events));
      return path;
    });
    ask = await hostWith(runs.flat());
  }, 120_000);

  it('is byte for byte what `steward learning export` writes from the same runs’ traces, in both formats', async () => {
    expect(runs.flat().filter((e) => e.type === 'learning.example' && e.context_ref !== undefined).length).toBeGreaterThan(40);
    for (const format of LEARNING_EXPORT_FORMATS) {
      const cli = await cliExport(format, traces);
      expect(cli.split('\n').length).toBeGreaterThan(format === 'sft' ? 30 : 5);
      expect(await pageExport(ask, format)).toBe(cli);
    }
  });

  it('filtered to shadow rounds (whose prompts repeat the demonstrations’), the lines the CLI makes of those examples', async () => {
    const shadows = (await readTraceExamples(traces[1] ?? '')).examples.filter((e) => e.kind === 'shadow');
    const expected = toJsonl(toExportLines('preference', shadows).lines);
    expect(expected.split('\n').length).toBeGreaterThan(3);
    expect(await pageExport(ask, 'preference', { ...ALL_EXAMPLES, kind: 'shadow' })).toBe(expected);
  });
});

/** The bytes of a run's events as recorded (JSONL, as its trace and the history hold them), and of its learning examples. */
function recordedBytes(events: readonly RunEvent[]): { total: number; learning: number } {
  let total = 0;
  let learning = 0;
  for (const e of events) {
    const bytes = Buffer.byteLength(JSON.stringify(e));
    total += bytes;
    if (e.type === 'learning.example') learning += bytes;
  }
  return { total, learning };
}

describe('a long run', () => {
  it('is recorded in bytes linear in its rounds (200 rounds about 4× 50), while the whole prompts the export rebuilds grow with their square', async () => {
    const [shortRun, longRun] = [(await recordLearningRun(50, 2)).events, (await recordLearningRun(200, 2)).events];
    const [short, long] = [recordedBytes(shortRun), recordedBytes(longRun)];
    expect(long.learning / short.learning).toBeLessThan(4.3);
    expect(long.total / short.total).toBeLessThan(4.3);
    expect(long.total / short.total).toBeGreaterThan(3.7);
    // Rebuilt whole by the host (as the export asks), the same examples grow with the square of the rounds.
    const whole = async (events: readonly RunEvent[]) => Buffer.byteLength(JSON.stringify(await examplesForExport(await hostWith(events), ALL_EXAMPLES)));
    expect((await whole(longRun)) / (await whole(shortRun))).toBeGreaterThan(12);
  }, 120_000);
});
