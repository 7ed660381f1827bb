import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayJudgedWorkflow } from '../../../test-support/human-judged-pattern';
import { cliWith } from '../../../test-support/cli-capture';
import { EXIT } from './cli';

/**
 * A pattern node's human judgment from the command line: with nobody at a terminal the run parks
 * (exit 3) and prints the `steward answer` commands; at a terminal the person is asked there. Models
 * are replay scripts (the double at the model boundary).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'steward-judgment-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'judged.workflow.json');
  writeFileSync(file, JSON.stringify(replayJudgedWorkflow()));
  return { file, dataDir: join(dir, 'data') };
}

describe('a person’s judgment of a pattern node in the CLI', () => {
  it('parks with exit 3 and the answer commands; steward answer reject --feedback resumes it to the next judgment, approve completes it', async () => {
    const { file, dataDir } = setUp();
    const run = await cliWith(['run', file, '--input', 'topic=caching', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /steward answer (\S+) approve/.exec(run.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(run.stdout).toContain(`steward answer ${runId} reject --feedback 'WHAT TO FIX'`);
    expect(run.stdout).toContain(`steward answer ${runId} escalate`);

    const noFeedback = await cliWith(['answer', String(runId), 'reject', '--data-dir', dataDir]);
    expect(noFeedback.code).toBe(EXIT.badInput);
    expect(noFeedback.stderr).toContain('a rejection needs its feedback');

    const rejected = await cliWith(['answer', String(runId), 'reject', '--feedback', 'Add the risks.', '--data-dir', dataDir]);
    expect(rejected.code).toBe(EXIT.waiting);
    expect(rejected.stdout).toContain('iteration 2 of 3');

    const approved = await cliWith(['answer', String(runId), 'approve', '--cite', 'draft#2', '--data-dir', dataDir]);
    expect(approved.code).toBe(EXIT.ok);
    expect(approved.stdout).toMatch(/completed/i);
  }, 60_000);

  it('at a terminal the judgment is shown and asked for; the feedback goes into the next iteration', async () => {
    const { file, dataDir } = setUp();
    const typed = ['reject', 'Add the risks.', 'approve'];
    let said = '';
    const run = await cliWith(['run', file, '--input', 'topic=caching', '--data-dir', dataDir], { line: async () => typed.shift(), stderr: (t) => (said += t) });
    expect(run.code).toBe(EXIT.ok);
    expect(said).toContain('[draft#1] draft:\n    Draft 1');
    expect(said).toContain('it addresses: ');
    expect(said).toContain('[draft#2] draft:\n    Draft 2, with the risks');
    expect(typed).toEqual([]);
  }, 60_000);
});
