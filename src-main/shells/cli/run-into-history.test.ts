import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { cliWith } from '../../../test-support/cli-capture';
import { historyPath } from '../../events/history-db';
import { runLockDir } from '../../events/run-lock';
import { spoolDir } from '../../events/cli-run-spool';

/**
 * Issue 26: a `steward run` with no app writes its run straight into the history database as it
 * goes. Real processes throughout: the command (cli-main.ts under tsx), the database read from
 * another connection, the host in this process.
 */

const ROOT = resolve(__dirname, '../../..');
const CLI_MAIN = join(ROOT, 'src-main/shells/cli/cli-main.ts');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-run-history-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An agent spec on the notes sandbox whose replay student reads a note `reads` times, `latency` ms per answer, then completes. */
function slowSpec(reads: number, latency: number, maxRounds?: number): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const read = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/meeting-notes.md' } } };
  const student = [...Array.from({ length: reads }, () => read), { json: { decision_type: 'complete', output: 'Read the notes.' } }];
  const file = join(ws.dir, 'spec.json');
  writeFileSync(file, JSON.stringify({ ...askingSpecInput(), ...(maxRounds ? { limits: { max_rounds: maxRounds } } : {}), script: { latency_ms: latency, student, teacher: [] } }));
  return file;
}

interface Command {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exit: Promise<number | null>;
  alive(): boolean;
}

/** `steward run FILE --data-dir DIR` as its own process, with no app on the folder. */
function steward(file: string, dataDir: string): Command {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'run', file, '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.main.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exit;
  });
  return { child, out, exit, alive: () => child.exitCode === null && child.signalCode === null };
}

/** The history as another process reads it: its own read-only connection. */
function reader(dataDir: string) {
  let db: Database.Database | undefined;
  const open = () => {
    if (!db && existsSync(historyPath(dataDir))) db = new Database(historyPath(dataDir), { readonly: true, fileMustExist: true });
    return db;
  };
  cleanups.push(() => {
    db?.close();
  });
  /** Rows of `sql`; none while the command has not made the schema yet. */
  const rows = <T>(sql: string, ...params: string[]): T[] => {
    try {
      return (open()?.prepare(sql).all(...params) as T[] | undefined) ?? [];
    } catch (error) {
      if (error instanceof Error && /no such table/.test(error.message)) return [];
      throw error;
    }
  };
  return {
    events(runId?: string): RunEvent[] {
      const found = runId === undefined ? rows<{ body: string }>('SELECT body FROM events ORDER BY pos') : rows<{ body: string }>('SELECT body FROM events WHERE run_id = ? ORDER BY pos', runId);
      return found.map((row) => JSON.parse(row.body) as RunEvent);
    },
    positions(): number[] {
      return rows<{ pos: number }>('SELECT pos FROM events ORDER BY pos').map((row) => row.pos);
    },
  };
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** The one run the command started, once its start is in the history. */
async function startedRun(history: ReturnType<typeof reader>): Promise<string> {
  let runId = '';
  await until(() => {
    runId = history.events().find((e) => e.type === 'run.started')?.run_id ?? '';
    return runId !== '';
  }, 'the run to start in the history');
  return runId;
}

/** A run whole: its seqs 0…n-1 once each, one end last (with `status`, when given), counting every event. */
function expectWhole(events: readonly RunEvent[], status?: string): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  const end = events.at(-1);
  expect(end).toMatchObject({ type: 'run.finished', event_count: events.length, ...(status === undefined ? {} : { status }) });
  expect(events.filter((e) => e.type === 'run.finished')).toHaveLength(1);
}

const lockFiles = (dataDir: string) => (existsSync(runLockDir(dataDir)) ? readdirSync(runLockDir(dataDir)) : []);

describe('a steward run with no app writes its run into the history as it goes', () => {
  it('its events are in history.sqlite during the run (read from another connection), its run finished at the end, its id printed', async () => {
    const dataDir = tempDir();
    const history = reader(dataDir);
    const command = steward(slowSpec(4, 250), dataDir);
    const runId = await startedRun(history);
    // Mid-run: a round is in the history while the command still runs.
    await until(() => history.events(runId).some((e) => e.type === 'round.completed'), 'a round in the history');
    expect(command.alive()).toBe(true);
    expect(history.events(runId).some((e) => e.type === 'run.finished')).toBe(false);
    expect(await command.exit).toBe(0);
    expect(command.out.stdout).toContain(`run id ${runId}`);
    expectWhole(history.events(runId), 'completed');
    // Nothing left beside it: no spool, no lock.
    expect(existsSync(spoolDir(dataDir))).toBe(false);
    expect(lockFiles(dataDir)).toEqual([]);
  }, 60_000);

  it('killed midway: every event written before the kill stays, and the next host start closes the run as interrupted', async () => {
    const dataDir = tempDir();
    const history = reader(dataDir);
    const command = steward(slowSpec(10, 500), dataDir);
    const runId = await startedRun(history);
    await until(() => history.events(runId).filter((e) => e.type === 'round.completed').length >= 2, 'two rounds in the history');
    const seen = history.events(runId);
    command.child.kill('SIGKILL');
    await command.exit;
    const written = history.events(runId);
    expect(written.slice(0, seen.length)).toEqual(seen);
    expect(lockFiles(dataDir), lockFiles(dataDir).join()).toHaveLength(1);

    const host = await openTestHost(dataDir, cleanups);
    await host.close();
    const after = history.events(runId);
    expect(after.slice(0, -1)).toEqual(written);
    expect(after.at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted', seq: written.length, message: expect.stringContaining('steward command') });
    expect(lockFiles(dataDir)).toEqual([]);
  }, 60_000);

  it('a host started mid-run leaves the run to its command, shows it live on the page, and it ends finished, not interrupted', async () => {
    const dataDir = tempDir();
    const history = reader(dataDir);
    const command = steward(slowSpec(8, 300), dataDir);
    const runId = await startedRun(history);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const atStart = Math.max(...history.events(runId).map((e) => e.seq));
    // Not closed: the command's lock is held.
    expect(history.events(runId).some((e) => e.type === 'run.finished')).toBe(false);
    // Live: the page is pushed events the command writes after the host started, while it still runs.
    await until(() => page.events.some((e) => e.run_id === runId && e.seq > atStart + 2), 'the run pushed to the page live');
    expect(command.alive()).toBe(true);
    const listed = await page.ok('runs.list', {});
    expect(listed.runs.find((run) => run.run_id === runId)?.status).toBe('running');
    // Not deletable while its command writes it.
    expect((await page.call('runs.delete', { run_ids: [runId] })).ok).toBe(false);

    expect(await command.exit).toBe(0);
    await until(() => page.events.some((e) => e.run_id === runId && e.type === 'run.finished'), 'the end pushed to the page');
    const pushed = page.events.filter((e) => e.run_id === runId);
    expectWhole(pushed, 'completed');
    expect(pushed).toEqual(history.events(runId));
    await host.close();
    expectWhole(history.events(runId), 'completed');
  }, 60_000);

  it('a command killed while the host runs: the host sees its lock let go and closes the run as interrupted then, not at its next start', async () => {
    const dataDir = tempDir();
    const history = reader(dataDir);
    const command = steward(slowSpec(10, 500), dataDir);
    const runId = await startedRun(history);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    await until(() => page.events.some((e) => e.run_id === runId && e.type === 'round.completed'), 'a round pushed to the page');
    command.child.kill('SIGKILL');
    await command.exit;
    await until(() => page.events.some((e) => e.run_id === runId && e.type === 'run.finished'), 'the run closed while the host runs');
    expect(page.events.filter((e) => e.run_id === runId).at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted', message: expect.stringContaining('steward command') });
    expectWhole(history.events(runId), 'interrupted');
    expect(lockFiles(dataDir)).toEqual([]);
  }, 60_000);

  it('with no app, steward runs list shows a live command\'s run as running and a killed one\'s as interrupted, never as running', async () => {
    const dataDir = tempDir();
    const history = reader(dataDir);
    // Far longer than the test (killed by the cleanup): under load the list must still find it running.
    const live = steward(slowSpec(400, 500, 200), dataDir);
    const liveRun = await startedRun(history);
    const killed = steward(slowSpec(10, 500), dataDir);
    let killedRun = '';
    await until(() => {
      killedRun = history.events().find((e) => e.type === 'run.started' && e.run_id !== liveRun)?.run_id ?? '';
      return killedRun !== '';
    }, 'the second run to start');
    await until(() => history.events(killedRun).some((e) => e.type === 'round.completed'), 'a round of the second run');
    killed.child.kill('SIGKILL');
    await killed.exit;

    const listed = await cliWith(['runs', 'list', '--json', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    const rows = (JSON.parse(listed.stdout) as { runs: Array<{ run: { run_id: string; status: string } }> }).runs.map((row) => row.run);
    expect(rows.find((r) => r.run_id === liveRun)?.status).toBe('running');
    expect(rows.find((r) => r.run_id === killedRun)?.status).toBe('interrupted');
    expect(listed.stderr).toContain(`run ${killedRun} of a steward command that stopped was closed as interrupted`);
    const shown = await cliWith(['runs', 'show', killedRun, '--data-dir', dataDir]);
    expect(shown.stdout).toMatch(/interrupted/i);
    expect(live.alive()).toBe(true);
    expectWhole(history.events(killedRun), 'interrupted');
  }, 90_000);

  it('the app and a command writing at once: both runs whole, every event once, no position twice', async () => {
    const dataDir = tempDir();
    const history = reader(dataDir);
    const command = steward(slowSpec(8, 150), dataDir);
    const cliRun = await startedRun(history);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { workflows } = await page.ok('workspace.demo', {});
    const appRuns = (await Promise.all(workflows.slice(0, 2).map((workflow) => page.ok('run.start', { workflow, overrides: {} })))).map((r) => r.run_id);
    expect(await command.exit, command.out.stderr + command.out.stdout).toBe(0);
    const runIds = [cliRun, ...appRuns];
    await until(() => runIds.every((id) => page.events.some((e) => e.run_id === id && e.type === 'run.finished')), 'every run to end', 60_000);
    await host.close();

    const stored = history.events();
    expect(new Set(stored.map((e) => e.id)).size).toBe(stored.length);
    expect(new Set(history.positions()).size).toBe(stored.length);
    expectWhole(stored.filter((e) => e.run_id === cliRun), 'completed');
    for (const runId of appRuns) expectWhole(stored.filter((e) => e.run_id === runId));
    // The page was told each event once, in the history's order.
    expect(page.events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
  }, 90_000);
});
