import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { EXIT } from '../cli/cli';
import { channelFile, readChannelAddress } from './channel-address';
import { forwardToHost, type ForwardIo } from './channel-client';
import { spoolDir } from '../../events/cli-run-spool';
import { historyPath } from '../../events/history-db';
import Database from 'better-sqlite3';
import type { RunEvent } from '@shared/contracts/events';

/** Issue 22: while the app holds the data folder, a steward command is handed to it over a local channel. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-channel-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

type Student = Array<{ json: Record<string, unknown> }>;

/** An agent spec on the notes sandbox whose replay student (a test double at the model boundary) plays `student`. */
function specFile(student: Student, latency = 0, extra: Record<string, unknown> = {}): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const file = join(ws.dir, 'spec.json');
  writeFileSync(file, JSON.stringify({ ...askingSpecInput(), script: { latency_ms: latency, student, teacher: [] }, ...extra }));
  return file;
}

const ASKS: Student = [{ json: { decision_type: 'ask_user', question: 'Which note should I summarise?' } }, { json: { decision_type: 'complete', output: 'Summarised the Monday notes.' } }];
const COMPLETES: Student = [{ json: { decision_type: 'complete', output: 'Nothing to do.' } }];

/** A forwarded command and what it printed so far (the output grows while it runs). */
function forward(argv: string[], dataDir: string, extra: Partial<ForwardIo> = {}) {
  const out = { stdout: '', stderr: '' };
  const code = forwardToHost(argv, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t), env: {}, cwd: process.cwd(), ...extra }, dataDir);
  return { out, code };
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the CLI channel of a running host', () => {
  it('a run typed while the app runs is handed to it: it is in the app\'s history with the run id the command printed, and a relative path is read where it was typed', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const file = specFile(COMPLETES);
    const { out, code } = forward(['run', basename(file), '--json'], dataDir, { cwd: dirname(file) });
    expect(await code).toBe(EXIT.ok);
    const result = JSON.parse(out.stdout) as { run_id: string; status: string };
    expect(result.status).toBe('completed');
    expect((await page.ok('runs.known', { run_ids: [result.run_id] })).known).toEqual([result.run_id]);
    // Live: the page that subscribed was pushed the run's events, its end among them.
    await until(() => page.events.some((e) => e.run_id === result.run_id && e.type === 'run.finished'), 'the run pushed to the page');
    // Nothing spooled: the host's own journal writer took the events.
    expect(existsSync(spoolDir(dataDir)) ? readdirSync(spoolDir(dataDir)) : []).toEqual([]);
  });

  it('the app and steward commands writing at once: every run whole in the history, each event once, in its order', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { workflows } = await page.ok('workspace.demo', {});
    // Two runs of the app's own and three commands typed meanwhile, all writing to the one history.
    const appRuns = await Promise.all(workflows.slice(0, 2).map((workflow) => page.ok('run.start', { workflow, overrides: {} })));
    const commands = [0, 1, 2].map(() => forward(['run', specFile(COMPLETES, 30), '--json'], dataDir));
    const codes = await Promise.all(commands.map((c) => c.code));
    expect(codes).toEqual([EXIT.ok, EXIT.ok, EXIT.ok]);
    const runIds = [...appRuns.map((r) => r.run_id), ...commands.map((c) => (JSON.parse(c.out.stdout) as { run_id: string }).run_id)];
    await until(() => runIds.every((id) => page.events.some((e) => e.run_id === id && e.type === 'run.finished')), 'every run to end', 60_000);
    await host.close();
    const stored = journalEvents(dataDir);
    for (const runId of runIds) {
      const events = stored.filter((e) => e.run_id === runId);
      const end = events.at(-1) as Extract<RunEvent, { type: 'run.finished' }>;
      expect(end.type, runId).toBe('run.finished');
      expect(events.map((e) => e.seq), runId).toEqual(events.map((_, i) => i));
      expect(end.event_count, runId).toBe(events.length);
    }
  }, 90_000);

  it('a run that waits stays attached: answered in the app, the command prints the rest and exits 0', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    const { out, code } = forward(['run', specFile(ASKS)], dataDir);
    await until(() => out.stdout.includes('waits for you'), 'the waiting hint');
    const runId = /the run (\S+) waits for you/.exec(out.stdout)?.[1] ?? '';
    expect(out.stderr).toContain('waiting here for the answer');
    const [waiting] = (await page.ok('interventions.pending', {})).interventions;
    expect(waiting).toMatchObject({ run_id: runId, kind: 'ask_user' });
    expect((await page.ok('interventions.answer', { run_id: runId, intervention_id: waiting?.id, answer: { action: 'reply', text: 'The Monday notes.' } })).resumed).toBe(true);
    expect(await code).toBe(EXIT.ok);
    expect(out.stdout).toMatch(/completed · \d+ round\(s\)/);
    expect(out.stdout).toContain('Summarised the Monday notes.');
    const events = await journalOf(host, runId);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  });

  it('Ctrl+C lets go of a waiting run (exit 3); it still waits in the app, and a forwarded steward answer resumes it there', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    const controller = new AbortController();
    const first = forward(['run', specFile(ASKS)], dataDir, { signal: controller.signal });
    await until(() => first.out.stdout.includes('waits for you'), 'the waiting hint');
    const runId = /the run (\S+) waits for you/.exec(first.out.stdout)?.[1] ?? '';
    controller.abort();
    expect(await first.code).toBe(EXIT.waiting);
    expect(first.out.stderr).toContain(`let go of run ${runId}`);
    expect((await page.ok('interventions.pending', {})).interventions.map((i) => i.run_id)).toEqual([runId]);
    // By its first 8 characters, as the app resolves it in its own history.
    const answered = forward(['answer', runId.slice(0, 8), 'reply', 'The Monday notes.'], dataDir);
    expect(await answered.code).toBe(EXIT.ok);
    expect(answered.out.stdout).toContain('Summarised the Monday notes.');
    expect((await page.ok('interventions.pending', {})).interventions).toEqual([]);
  });

  it('runs delete and workflows list typed while the app runs change and read the app\'s own data', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    const ran = forward(['run', specFile(COMPLETES), '--json'], dataDir);
    expect(await ran.code).toBe(EXIT.ok);
    const runId = (JSON.parse(ran.out.stdout) as { run_id: string }).run_id;
    // By its first 8 characters, as `steward run` printed it: the app resolves it in its own history.
    const deleted = forward(['runs', 'delete', runId.slice(0, 8)], dataDir);
    expect(await deleted.code, deleted.out.stderr).toBe(EXIT.ok);
    expect(deleted.out.stdout).toBe('deleted 1 run\n');
    expect((await page.ok('runs.known', { run_ids: [runId] })).known).toEqual([]);
    const listed = forward(['workflows', 'list', '--json'], dataDir);
    expect(await listed.code).toBe(EXIT.ok);
    expect(JSON.parse(listed.out.stdout)).toEqual(expect.any(Array));
  });

  it('a tool confirmation with nobody at the terminal waits in the data folder: exit 3 with the answer line, and the app shows it', async () => {
    const dataDir = tempDir();
    // Reading a note needs the person's yes here (the spec says so): nobody is at this terminal.
    const file = specFile([{ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/meeting-notes.md' } } }, { json: { decision_type: 'complete', output: 'Read it.' } }], 0, {
      tool_effects: { 'fs/read_text_file': { effect: 'read', requires_user_confirmation: true } },
    });
    const run = await cliWith(['run', file, '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits for you/.exec(run.stdout)?.[1] ?? '';
    expect(run.stdout).toMatch(new RegExp(`steward answer ${runId} (yes|approve)`));
    const host = await openTestHost(dataDir, cleanups);
    expect((await hostPage(host).ok('interventions.pending', {})).interventions).toEqual([expect.objectContaining({ run_id: runId })]);
  });

  it('the app stopped: a command\'s run is in the journal, and the app lists it after its next start', async () => {
    const dataDir = tempDir();
    const run = await cliWith(['run', specFile(COMPLETES), '--json', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.ok);
    const runId = (JSON.parse(run.stdout) as { run_id: string }).run_id;
    expect(journalEvents(dataDir).filter((e) => e.run_id === runId).at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    // Written straight into the history: no spool beside it.
    expect(existsSync(spoolDir(dataDir))).toBe(false);
    const host = await openTestHost(dataDir, cleanups);
    expect((await hostPage(host).ok('runs.known', { run_ids: [runId] })).known).toEqual([runId]);
  });

  it('only the user can reach it: the address file and socket are 0600, a wrong token is refused and nothing runs', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const address = readChannelAddress(dataDir);
    expect(address).toBeDefined();
    expect(statSync(channelFile(dataDir)).mode & 0o777).toBe(0o600);
    expect(statSync(address?.path ?? '').mode & 0o777).toBe(0o600);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(address?.path ?? '');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.write(`${JSON.stringify({ kind: 'hello', token: '0'.repeat(64), argv: ['runs', 'delete', 'x'], cwd: '/', env: {}, terminal: false })}\n`);
    });
    expect(JSON.parse(reply.trim())).toMatchObject({ kind: 'refused', message: expect.stringContaining('token') });
    const garbage = await new Promise<string>((resolve) => {
      const socket = connect(address?.path ?? '');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.write('not json\n');
    });
    expect(JSON.parse(garbage.trim())).toMatchObject({ kind: 'refused' });
    // The host goes on serving pages.
    expect((await hostPage(host).ok('host.info', {})).app).toBe('steward');
    await host.close();
    expect(existsSync(channelFile(dataDir))).toBe(false);
    // No host: the command says so by not being forwarded (it runs in-process).
    expect(await forward(['runs', 'waiting'], dataDir).code).toBeUndefined();
  });

  it('a command killed midway has its events in the history already; the next start of the app closes the run as interrupted', async () => {
    ensureBuilt();
    const dataDir = tempDir();
    const file = specFile([{ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/meeting-notes.md' } } }, ...COMPLETES], 30_000);
    const child = spawn(process.execPath, [join(process.cwd(), 'out/main/cli.js'), 'run', file, '--data-dir', dataDir], { stdio: 'ignore' });
    let runId = '';
    await until(() => {
      runId = startedRunId(dataDir) ?? '';
      return runId !== '';
    }, 'the history to hold the run start', 30_000);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const host = await openTestHost(dataDir, cleanups);
    expect((await hostPage(host).ok('runs.known', { run_ids: [runId] })).known).toEqual([runId]);
    const events = await journalOf(host, runId);
    expect(events[0]).toMatchObject({ type: 'run.started', seq: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted', message: expect.stringContaining('steward command') });
    expect(existsSync(spoolDir(dataDir))).toBe(false);
  });
});

/** The run a command started in the data folder's history, read as another process reads it (the command still writes). */
function startedRunId(dataDir: string): string | undefined {
  if (!existsSync(historyPath(dataDir))) return undefined;
  const db = new Database(historyPath(dataDir), { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], { run_id: string }>("SELECT run_id FROM events WHERE type = 'run.started' LIMIT 1").get()?.run_id;
  } catch {
    return undefined; // the command has not made the schema yet
  } finally {
    db.close();
  }
}

/** A run's events as the host's journal holds them, read as a page reads them (the host owns the file). */
async function journalOf(host: Awaited<ReturnType<typeof openTestHost>>, runId: string): Promise<RunEvent[]> {
  const reader = hostPage(host, `reader-${runId}`);
  await reader.ok('events.subscribe', {});
  await until(() => reader.events.some((e) => e.run_id === runId && e.type === 'run.finished'), `the end of run ${runId}`);
  return reader.events.filter((e) => e.run_id === runId);
}
