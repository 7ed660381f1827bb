import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { foldOrphanSpools, spoolDir } from './cli-run-spool';
import { openHistory } from './open-history';

/** Issue 26's leftover spools: a live writer is told by a lock, not a pid; a finished run never changes. */

const CHILD = path.resolve(__dirname, '../../test-support/spool-writer-child.ts');
const ts = new Date(0).toISOString();
const step = (run: string, seq: number, text = 'student'): RunEvent => ({ type: 'round.started', id: eventId(run, seq), run_id: run, seq, ts, round: seq, proposer: text === 'student' ? 'student' : 'teacher' });
const end = (run: string, seq: number, status: 'completed' | 'failed'): RunEvent => ({ type: 'run.finished', id: eventId(run, seq), run_id: run, seq, ts, status, rounds: 1, event_count: seq + 1 });

describe('leftover command spools', () => {
  let dir: string;
  const children: Array<ReturnType<typeof spawn>> = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-spools-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function writer(runId: string): Promise<{ name: string; child: ReturnType<typeof spawn> }> {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, runId], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TSX_TSCONFIG_PATH: path.resolve(__dirname, '../../tsconfig.main.json') },
    });
    children.push(child);
    const name = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    return { name, child };
  }

  it('a command still writing keeps its spool, though its pid is not asked; once killed, its run is folded and closed as interrupted', async () => {
    const { child } = await writer('run-spool-live-01');
    const history = openHistory(dir, { log: () => undefined });
    expect(foldOrphanSpools(history, dir, new Set(), () => undefined)).toEqual([]);
    expect(history.hasRun('run-spool-live-01')).toBe(false);

    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    expect(foldOrphanSpools(history, dir, new Set(), () => undefined)).toEqual(['run-spool-live-01']);
    const events = history.runEvents('run-spool-live-01');
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted' });
    expect(fs.readdirSync(spoolDir(dir))).toEqual([]);
    history.close();
  });

  it('a killed command whose pid now belongs to another process is still folded: the lock says it is gone', async () => {
    const { name, child } = await writer('run-spool-reused');
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    // The pid in its name is now a live process's (this one's).
    const renamed = name.replace(/^\d+-/, `${process.ppid}-`);
    fs.renameSync(path.join(spoolDir(dir), name), path.join(spoolDir(dir), renamed));
    fs.renameSync(path.join(dir, 'cli-run-locks', `${name}.lock`), path.join(dir, 'cli-run-locks', `${renamed}.lock`));
    const history = openHistory(dir, { log: () => undefined });
    expect(foldOrphanSpools(history, dir, new Set(), () => undefined)).toEqual(['run-spool-reused']);
    expect(history.run('run-spool-reused')?.run.status).toBe('interrupted');
    history.close();
  });

  it('a spool holding events of a run the history has as finished changes nothing: no doubled steps, no second end', () => {
    const run = 'run-spool-finished';
    const history = openHistory(dir, { log: () => undefined });
    const original = [step(run, 0), step(run, 1), end(run, 2, 'completed')];
    history.append(original);
    // What a leftover spool of the same run holds: other events at its places, and an end saying "failed".
    fs.mkdirSync(spoolDir(dir), { recursive: true });
    const leftover = [{ ...step(run, 1, 'teacher'), id: `${run}:other-1` }, { ...end(run, 2, 'failed'), id: `${run}:other-2` }, end(run, 3, 'failed')];
    fs.writeFileSync(path.join(spoolDir(dir), '999999-0123456789ab.jsonl'), leftover.map((e) => JSON.stringify(e) + '\n').join(''));
    const logs: string[] = [];
    foldOrphanSpools(history, dir, new Set(), (line) => logs.push(line));
    expect(history.runEvents(run)).toEqual(original);
    expect(history.run(run)?.run.status).toBe('completed');
    history.close();
  });
});
