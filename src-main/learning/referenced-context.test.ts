import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LearningExportFormat } from '@shared/contracts/learning-export';
import { recordLearningRun } from '../../test-support/learning-run';
import { exportLearning } from './export-learning';
import { readTraceExamples } from './read-trace';

/**
 * Fixtures recorded with the version that copied the student's whole prompt into every
 * `learning.example` (fixtures/copied-context-phase{1,2}.*): the trace, and what `steward learning
 * export` wrote from it. The workspace path is replaced by <WORKSPACE> in all of them.
 */
const FIXTURES = join(import.meta.dirname, 'fixtures');
const fixture = (name: string) => join(FIXTURES, name);

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

async function exported(trace: string, format: LearningExportFormat): Promise<string> {
  let text = '';
  await exportLearning({ trace, format, out: (t) => void (text += t) });
  return text;
}

function writeTemp(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-ctx-'));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const learningLines = (jsonl: string) => jsonl.split('\n').filter((l) => l.includes('"type":"learning.example"'));

describe('learning examples reference their round context instead of copying it', () => {
  for (const phase of [2, 1] as const) {
    it(`a phase-${phase} trace in the old copied form still exports byte for byte what it did`, async () => {
      for (const format of ['sft', 'preference'] as const) {
        expect(await exported(fixture(`copied-context-phase${phase}.trace.jsonl`), format)).toBe(readFileSync(fixture(`copied-context-phase${phase}.${format}.jsonl`), 'utf8'));
      }
    });

    it(`the same phase-${phase} run recorded now exports the same SFT and preference bytes as the copied form`, async () => {
      const run = await recordLearningRun(6, phase);
      const trace = writeTemp('run.jsonl', run.jsonl);
      for (const format of ['sft', 'preference'] as const) {
        expect(await exported(trace, format)).toBe(readFileSync(fixture(`copied-context-phase${phase}.${format}.jsonl`), 'utf8'));
      }
    }, 30_000);

    it(`a phase-${phase} trace stores each prompt message once: its learning examples are smaller than one copied prompt per example`, async () => {
      const run = await recordLearningRun(6, phase);
      const copied = learningLines(readFileSync(fixture(`copied-context-phase${phase}.trace.jsonl`), 'utf8'));
      const now = learningLines(run.jsonl);
      expect(now).toHaveLength(copied.length);
      const bytes = (lines: string[]) => lines.reduce((sum, l) => sum + l.length, 0);
      expect(bytes(now)).toBeLessThan(bytes(copied) / 2);
    }, 30_000);
  }

  it('a trace cut before an example its later prompts refer to reports each of them by line, and exports none with a partial prompt', async () => {
    const run = await recordLearningRun(4);
    const lines = run.jsonl.split('\n');
    const first = lines.findIndex((l) => l.includes('"type":"learning.example"'));
    lines.splice(first, 1);
    const trace = writeTemp('cut.jsonl', lines.join('\n'));
    const read = await readTraceExamples(trace);
    expect(read.examples).toEqual([]);
    expect(read.problems.map((p) => p.message)).toEqual([
      "a learning example whose prompt cannot be rebuilt: its prompt repeats round 1's review example, which is not here (read the run's whole trace)",
      "a learning example whose prompt cannot be rebuilt: its prompt repeats round 2's review example, which is not here (read the run's whole trace)",
      "a learning example whose prompt cannot be rebuilt: its prompt repeats round 3's review example, which is not here (read the run's whole trace)",
    ]);
  }, 30_000);

  it('trace size grows linearly with run length: 4× the rounds is well under 5× the bytes (copied prompts made it 7.7×)', async () => {
    const short = await recordLearningRun(25);
    const long = await recordLearningRun(100);
    const ratio = long.jsonl.length / short.jsonl.length;
    expect(ratio).toBeLessThan(5);
  }, 60_000);
});
