import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { EXIT } from './cli-io';
import { wordCheckWorkflow } from '../../../test-support/word-check-workflow';

// Issue 28: `steward run` of a workflow whose iterate lost an item says so, and does not exit 0.

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** A workflow file in a temp folder: five words, an assert per item that refuses anything but lowercase letters. */
function wordsWorkflow(): { file: string; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-partial-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'words.workflow.json');
  writeFileSync(
    file,
    JSON.stringify(wordCheckWorkflow({ id: 'words', name: 'Words' })),
  );
  return { file, dataDir: join(dir, 'data') };
}

const FIVE = '["apple", "Banana!", "cherry", "date", "elder"]';

describe('steward run: a workflow that completed with failures', () => {
  it('prints "completed · 1 of 5 items failed", names the item as the app does with its reason, and exits 4', async () => {
    const { file, dataDir } = wordsWorkflow();
    const { code, stdout, stderr } = await cliWith(['run', file, '--input', `words=${FIVE}`, '--data-dir', dataDir]);
    expect(stderr).toBe('');
    expect(code).toBe(EXIT.itemsFailed);
    expect(code).toBe(4);
    expect(stdout).toMatch(/^completed · 1 of 5 items failed · \d+ node invocation\(s\)$/m);
    expect(stdout).toContain('  ✗ work · item 2: check 1 (regex): the value does not match /^[a-z]+$/');
    expect(stdout).not.toMatch(/^completed · \d+ node invocation/m);
    // What the other items gave is still there.
    expect(stdout).toContain('"cherry"');
    // The history holds the run with its own status (the app's Runs).
    const finished = journalEvents(dataDir).find((e) => e.type === 'run.finished');
    expect(finished).toMatchObject({ status: 'completed_with_failures', partial: { items_failed: 1, items: 5 } });
  });

  it('--json: status completed_with_failures, the partial failure (counts, where, why) and the message; exit 4', async () => {
    const { file, dataDir } = wordsWorkflow();
    const { code, stdout } = await cliWith(['run', file, '--json', '--input', `words=${FIVE}`, '--data-dir', dataDir]);
    expect(code).toBe(EXIT.itemsFailed);
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      status: 'completed_with_failures',
      outputs: { kept: ['apple', 'cherry', 'date', 'elder'] },
      message: '1 of 5 items failed: work · item 2. The outputs are without what it would have given.',
      partial: { items_failed: 1, items: 5, nodes_failed: 0, failed: [{ invocation_id: 'work[each=1]', where: 'work · item 2', failure: { code: 'assert_failed' } }] },
    });
  });

  it('steward runs list names the status with its counts, and --status completed_with_failures finds it (and not a clean run)', async () => {
    const { file, dataDir } = wordsWorkflow();
    await cliWith(['run', file, '--input', `words=${FIVE}`, '--data-dir', dataDir]);
    await cliWith(['run', file, '--input', 'words=["apple"]', '--data-dir', dataDir]);
    const all = await cliWith(['runs', 'list', '--data-dir', dataDir]);
    expect(all.stdout).toContain('Completed · 1 of 5 items failed');
    const lost = await cliWith(['runs', 'list', '--status', 'completed_with_failures', '--data-dir', dataDir]);
    expect(lost.code).toBe(EXIT.ok);
    expect(lost.stdout.trim().split('\n').filter((l) => l.includes('Words'))).toHaveLength(1);
    expect(lost.stdout).toContain('Completed · 1 of 5 items failed');
  });

  it('every item passing: completed, exit 0', async () => {
    const { file, dataDir } = wordsWorkflow();
    const { code, stdout } = await cliWith(['run', file, '--input', 'words=["apple", "cherry"]', '--data-dir', dataDir]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/^completed · \d+ node invocation\(s\)$/m);
  });

  it('--help documents exit code 4', async () => {
    const { stdout } = await cliWith(['--help']);
    expect(stdout).toMatch(/· 4 a workflow completed with failures/);
  });
});
