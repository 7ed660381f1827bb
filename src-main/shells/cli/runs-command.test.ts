import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { EventJournal } from '../../events/event-journal';
import { runCli } from './cli';

/** Issue 9: the CLI deletes and imports runs in the data folder's history, the one the app shows. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-runs-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function cli(argv: string[], dataDir?: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, ...(dataDir ? ['--data-dir', dataDir] : [])], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

function run(runId: string): RunEvent[] {
  const ts = new Date(0).toISOString();
  return [
    RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts, spec_id: 'cli', spec_name: 'CLI', task: 'tidy', supervision: { enabled: false }, models: { student: 's', teacher: 't' } }),
    RunEvent.parse({ type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts, status: 'completed', rounds: 0, event_count: 2 }),
  ];
}

function traceFile(dir: string, events: RunEvent[], name = 'trace.jsonl'): string {
  const file = join(dir, name);
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

const heldRuns = (dataDir: string) => {
  const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
  const ids = journal.runsPage({ limit: 1000 }).runs.map((r) => r.run.run_id).sort();
  journal.close();
  return ids;
};

describe('steward runs', () => {
  it('imports a trace of tens of MB a line at a time: checked whole, then in chunks, with progress on the terminal', async () => {
    const dataDir = tempDir();
    // ~17 MB: a run a line of padding (a notice of 480 characters) times many runs.
    const runs = 3_000;
    const lines: string[] = [];
    const ts = new Date(0).toISOString();
    for (let r = 0; r < runs; r++) {
      const runId = `cli-big-${String(r).padStart(6, '0')}`;
      const [started, finished] = run(runId);
      const notices = Array.from({ length: 12 }, (_, i) => ({ type: 'run.notice', id: eventId(runId, i + 1), run_id: runId, seq: i + 1, ts, message: 'n'.repeat(480) }));
      lines.push(JSON.stringify(started), ...notices.map((n) => JSON.stringify(n)), JSON.stringify({ ...finished, id: eventId(runId, 13), seq: 13, event_count: 14 }));
    }
    const file = join(tempDir(), 'big.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const result = await cli(['runs', 'import', file], dataDir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`imported ${(runs * 14).toLocaleString('en-US')} events of ${runs.toLocaleString('en-US')} runs\n`);
    expect(result.stderr).toMatch(/checking big\.jsonl: 10%/);
    expect(result.stderr).toMatch(/importing big\.jsonl: 90%/);
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    expect(journal.count).toBe(runs * 14);
    expect(journal.runCount).toBe(runs);
    journal.close();
  }, 60_000);


  it('imports a --trace file into the data folder (again: nothing new), and the app then shows the run', async () => {
    const dataDir = tempDir();
    const file = traceFile(tempDir(), [...run('cli-run-00001'), ...run('cli-run-00002')]);
    const first = await cli(['runs', 'import', file], dataDir);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(/imported 4 events of 2 runs/);
    expect((await cli(['runs', 'import', file], dataDir)).stdout).toMatch(/imported 0 events of 2 runs; 4 events already there unchanged/);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    await expect.poll(() => new Set(page.events.map((e) => e.run_id)).size).toBe(2);
  });

  it('a file with a bad line imports nothing and names the line', async () => {
    const dataDir = tempDir();
    const dir = tempDir();
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify(run('cli-run-00003')[0])}\n{"type":"run.finished"}\n`);
    const result = await cli(['runs', 'import', file], dataDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.jsonl, line 2: .*nothing was imported/);
    expect(heldRuns(dataDir)).toEqual([]);
  });

  it('a folder, or a file that is not there, named for a trace imports nothing and says so in words', async () => {
    const dataDir = tempDir();
    const dir = tempDir();
    const good = traceFile(dir, run('cli-run-00004'));
    const folder = await cli(['runs', 'import', good, dir], dataDir);
    expect(folder).toMatchObject({ code: 2, stdout: '' });
    expect(folder.stderr).toBe(`steward runs: cannot read ${dir}: it is a folder, not a file; nothing was imported\n`);
    const missing = await cli(['runs', 'import', join(dir, 'gone.jsonl')], dataDir);
    expect(missing.stderr).toBe(`steward runs: cannot read ${join(dir, 'gone.jsonl')}: no such file; nothing was imported\n`);
    expect(heldRuns(dataDir)).toEqual([]);
  });

  it('deletes runs from the data folder\'s history: the app neither lists them after, nor a page that held them keeps them', async () => {
    const dataDir = tempDir();
    await cli(['runs', 'import', traceFile(tempDir(), [...run('cli-run-00004'), ...run('cli-run-00005')])], dataDir);
    const held = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    const cursor = { journal: held.id, after: held.head };
    held.close();
    const result = await cli(['runs', 'delete', 'cli-run-00004', 'cli-run-nothere'], dataDir);
    expect(result).toMatchObject({ code: 1 });
    expect(result.stdout).toMatch(/deleted 1 run/);
    expect(result.stderr).toMatch(/no run "cli-run-nothere"/);
    expect(heldRuns(dataDir)).toEqual(['cli-run-00005']);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', cursor);
    expect(page.deleted).toEqual(['cli-run-00004']);
  });

  it('deletes a run named as `runs list` prints it (its first 8 characters); a start two runs share deletes neither', async () => {
    const dataDir = tempDir();
    const ids = ['7a4eb7df-1352-4f0e-bfa2-ceb4248a0113', 'feedface-0001', 'feedface-0002'];
    await cli(['runs', 'import', traceFile(tempDir(), ids.flatMap(run))], dataDir);
    const shared = await cli(['runs', 'delete', 'feedface'], dataDir);
    expect(shared.code).toBe(1);
    expect(shared.stdout).toBe('deleted 0 runs\n');
    expect(shared.stderr).toContain('"feedface" is the start of 2 runs\' ids; give more of the one you mean:\n  feedface-0001\n  feedface-0002\n(not deleted)');
    const short = await cli(['runs', 'delete', '7a4eb7'], dataDir);
    expect(short.stderr).toContain('at least 8 characters');
    expect(heldRuns(dataDir)).toEqual(ids);

    const named = await cli(['runs', 'delete', '7a4eb7df', 'feedface-0002'], dataDir);
    expect(named).toMatchObject({ code: 0, stdout: 'deleted 2 runs\n', stderr: '' });
    expect(heldRuns(dataDir)).toEqual(['feedface-0001']);
  });

  it('refuses while the app holds the data folder, saying what to do', async () => {
    const dataDir = tempDir();
    await openTestHost(dataDir, cleanups);
    const result = await cli(['runs', 'delete', 'cli-run-00006'], dataDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/in use by .*Runs screen/s);
  });

  it('a data folder that is not there: import makes it (saying so) and imports; delete says there is none, with no raw error', async () => {
    const dir = tempDir();
    const dataDir = join(dir, 'not-yet', 'data');
    const gone = await cli(['runs', 'delete', 'run-x'], join(dir, 'missing'));
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain(`there is no data folder at ${join(dir, 'missing')}`);
    expect(gone.stderr).not.toMatch(/ENOENT/);
    const made = await cli(['runs', 'import', traceFile(dir, run('run-new-folder'))], dataDir);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`made the data folder ${dataDir}`);
    expect(heldRuns(dataDir)).toEqual(['run-new-folder']);
  });

  it('has help, and says what is missing', async () => {
    expect(await cli(['runs', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/steward runs delete RUN_ID/) });
    expect(await cli(['runs', 'delete'], tempDir())).toMatchObject({ code: 2, stderr: expect.stringMatching(/which runs/) });
    expect(await cli(['runs', 'import'], tempDir())).toMatchObject({ code: 2, stderr: expect.stringMatching(/which files/) });
    expect((await cli(['--help'])).stdout).toMatch(/steward runs delete/);
  });
});
