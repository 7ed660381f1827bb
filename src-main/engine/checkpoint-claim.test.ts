import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import { historyPath } from '../events/history-db';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { waitingStoresIn } from '../../test-support/waiting-stores';
import type { RunCheckpoint } from './checkpoint';
import { runAgent } from './run-agent';
import { RunManager } from './run-manager';

/** Two hosts (or a crash) around one waiting run: only one may ever resume it. The checkpoints are rows of the history database. */

const CHILD = resolve(__dirname, '../../test-support/claim-waiting-child.ts');
const tsxEnv = { ...process.env, TSX_TSCONFIG_PATH: resolve(__dirname, '../../tsconfig.main.json') };

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

let waiting: RunCheckpoint;
let workspaceDir: string;

beforeAll(async () => {
  const ws = tempNotesWorkspace();
  workspaceDir = ws.dir;
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'claim-test',
    name: 'Claim test',
    instructions: 'Work in ${workspace}.',
    task: 'Share the notes.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision: { phase: 3, on_escalate: 'human' },
  });
  const result = await runAgent({
    spec,
    specDir: ws.dir,
    workspace: ws.workspace,
    script: {
      latency_ms: 0,
      student: [{ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, 'shared.md'), content: 'x' } } }],
      teacher: [{ json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person decides.' } }],
    },
    ledger: createMemoryLedger(),
    onEvent: () => undefined,
  });
  if (!result.checkpoint) throw new Error('expected a waiting run');
  waiting = result.checkpoint;
  return () => ws.cleanup();
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-claim-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The `waiting` table's rows as another connection reads them: claimed ones too. */
function rows(dir: string): Array<{ run_id: string; claimed_by: string | null }> {
  const db = new Database(historyPath(dir), { readonly: true });
  try {
    return db.prepare('SELECT run_id, claimed_by FROM waiting ORDER BY run_id').all() as Array<{ run_id: string; claimed_by: string | null }>;
  } finally {
    db.close();
  }
}

/** A claim as a process left it: `claimed_by` names its pid. */
function claimAs(dir: string, runId: string, pid: number, at = new Date()): void {
  const db = new Database(historyPath(dir));
  try {
    db.prepare('UPDATE waiting SET claimed_by = ?, claimed_at = ? WHERE run_id = ?').run(`${pid}:abc123`, at.toISOString(), runId);
  } finally {
    db.close();
  }
}

/** A process that waits at `ready`, claims `runIds` on a line from stdin, prints what it got, and holds it until killed. */
function claimer(dir: string, runIds: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, ...runIds], { stdio: ['pipe', 'pipe', 'pipe'], env: tsxEnv });
  cleanups.push(() => void child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const lines = new Promise<string[]>((resolveLines, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const got = out.split('\n');
      if (got.length >= 3) resolveLines(got);
    });
    child.once('exit', (code) => reject(new Error(`the claimer ended (${code}): ${err}`)));
  });
  const ready = new Promise<void>((resolveReady, reject) => {
    child.stdout.on('data', () => out.startsWith('ready\n') && resolveReady());
    child.once('exit', (code) => reject(new Error(`the claimer ended (${code}): ${err}`)));
  });
  return {
    ready,
    go: () => child.stdin.write('go\n'),
    claimed: lines.then((got) => JSON.parse(got[1] ?? '[]') as string[]),
    kill: () =>
      new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGKILL');
      }),
  };
}

describe('claiming a waiting run', () => {
  it('of two stores on one folder, exactly one claims the checkpoint; the run is no longer listed as waiting', () => {
    const dir = folder();
    const a = waitingStoresIn(dir, cleanups).checkpoints;
    const b = waitingStoresIn(dir, cleanups).checkpoints;
    a.save(waiting);
    const claimed = a.claim(waiting.run_id);
    expect(claimed?.checkpoint).toEqual(waiting);
    expect(b.claim(waiting.run_id)).toBeUndefined();
    expect(b.list()).toEqual([]);
    expect(b.get(waiting.run_id)).toBeUndefined();
    claimed?.remove();
    expect(rows(dir)).toEqual([]);
  });

  it('of two processes claiming the same forty runs at once, each run goes to exactly one; claims left by the killed processes are given back at the next open', async () => {
    const dir = folder();
    const store = waitingStoresIn(dir, cleanups).checkpoints;
    const runIds = Array.from({ length: 40 }, (_, i) => `${waiting.run_id.slice(0, 24)}-${String(i).padStart(4, '0')}`);
    for (const run_id of runIds) store.save({ ...waiting, run_id });
    // One claims in order, the other from the end: they meet in the middle, at the same time.
    const racers = [claimer(dir, runIds), claimer(dir, [...runIds].reverse())];
    await Promise.all(racers.map((r) => r.ready));
    for (const r of racers) r.go();
    const [first, second] = await Promise.all(racers.map((r) => r.claimed));
    expect([...first!, ...second!].sort()).toEqual(runIds);
    expect(first!.filter((id) => second!.includes(id))).toEqual([]);
    expect(store.list()).toEqual([]);
    expect(rows(dir).every((r) => r.claimed_by !== null)).toBe(true);

    // Both die holding their claims, before resuming anything: every run is still waiting.
    await Promise.all(racers.map((r) => r.kill()));
    const logs: string[] = [];
    const reopened = waitingStoresIn(dir, cleanups, (line) => logs.push(line)).checkpoints;
    expect(reopened.list().map((c) => c.run_id)).toEqual(runIds);
    expect(logs.filter((l) => /^gave back the waiting run .* ended before resuming it$/.test(l))).toHaveLength(40);
    expect(rows(dir).every((r) => r.claimed_by === null)).toBe(true);
  }, 60_000);

  it('a claim given back (the resume could not start) leaves the run waiting as before', () => {
    const dir = folder();
    const store = waitingStoresIn(dir, cleanups).checkpoints;
    store.save(waiting);
    store.claim(waiting.run_id)?.restore();
    expect(store.list().map((c) => c.run_id)).toEqual([waiting.run_id]);
    expect(rows(dir)).toEqual([{ run_id: waiting.run_id, claimed_by: null }]);
  });

  it('a checkpoint saved again while claimed (the resumed run waits again) is the one kept: the old claim neither removes nor restores over it', () => {
    const dir = folder();
    const store = waitingStoresIn(dir, cleanups).checkpoints;
    store.save(waiting);
    const first = store.claim(waiting.run_id);
    const again = { ...waiting, next_round: waiting.next_round + 1 };
    store.save(again);
    first?.remove();
    expect(store.get(waiting.run_id)).toEqual(again);
    const second = store.claim(waiting.run_id);
    store.save(waiting);
    second?.restore();
    expect(store.list()).toEqual([waiting]);
  });

  it('a claim left by a process that died before it resumed is given back when the folder is opened again', () => {
    const dir = folder();
    waitingStoresIn(dir, cleanups).checkpoints.save(waiting);
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    claimAs(dir, waiting.run_id, dead);
    expect(rows(dir)).toEqual([{ run_id: waiting.run_id, claimed_by: `${dead}:abc123` }]);
    const logs: string[] = [];
    expect(
      waitingStoresIn(dir, cleanups, (line) => logs.push(line))
        .checkpoints.list()
        .map((c) => c.run_id),
    ).toEqual([waiting.run_id]);
    expect(logs.join('\n')).toMatch(new RegExp(`gave back the waiting run ${waiting.run_id}: the process that took it \\(pid ${dead}\\) ended`));
  });

  it('a claim older than a minute is given back even when its pid is alive (a pid is reused); a fresh one of a live process is not', () => {
    const dir = folder();
    waitingStoresIn(dir, cleanups).checkpoints.save(waiting);
    claimAs(dir, waiting.run_id, process.pid);
    expect(waitingStoresIn(dir, cleanups).checkpoints.list()).toEqual([]);
    claimAs(dir, waiting.run_id, process.pid, new Date(Date.now() - 2 * 60_000));
    expect(waitingStoresIn(dir, cleanups).checkpoints.list().map((c) => c.run_id)).toEqual([waiting.run_id]);
  });

  it('a run another host is resuming is not resumed again by this one', () => {
    const dir = folder();
    const other = waitingStoresIn(dir, cleanups).checkpoints;
    other.save(waiting);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: workspaceDir, checkpoints: waitingStoresIn(dir, cleanups).checkpoints });
    // The other host has claimed it and is starting the resumed run.
    const claimed = other.claim(waiting.run_id);
    expect(claimed).toBeDefined();
    expect(manager.answer(waiting.run_id, waiting.intervention.id, { action: 'stop' })).toBe(false);
    expect(manager.activeIds()).toEqual([]);
    claimed?.restore();
  });

  it('an answer resumes the run once and consumes its checkpoint', async () => {
    const dir = folder();
    const { checkpoints } = waitingStoresIn(dir, cleanups);
    checkpoints.save(waiting);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: workspaceDir, checkpoints });
    expect(manager.answer(waiting.run_id, waiting.intervention.id, { action: 'stop' })).toBe(true);
    expect(manager.answer(waiting.run_id, waiting.intervention.id, { action: 'stop' })).toBe(false);
    await manager.closeAll();
    expect(rows(dir)).toEqual([]);
  });

  it('an answer the intervention does not offer is refused and the run stays waiting', () => {
    const dir = folder();
    const { checkpoints } = waitingStoresIn(dir, cleanups);
    checkpoints.save(waiting);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: workspaceDir, checkpoints });
    const offered = waiting.intervention.options;
    const notOffered = (['approve', 'reject', 'takeover', 'stop'] as const).find((a) => !offered.includes(a));
    if (notOffered) expect(() => manager.answer(waiting.run_id, waiting.intervention.id, { action: notOffered })).toThrow(/not one of the answers/);
    expect(manager.answer(waiting.run_id, 'some-other-intervention', { action: 'stop' })).toBe(false);
    expect(checkpoints.list().map((c) => c.run_id)).toEqual([waiting.run_id]);
    expect(rows(dir)).toEqual([{ run_id: waiting.run_id, claimed_by: null }]);
  });

  it('a checkpoint that is not valid is refused when saved, by a typed error, and nothing is stored', () => {
    const dir = folder();
    const { checkpoints } = waitingStoresIn(dir, cleanups);
    expect(() => checkpoints.save({ ...waiting, next_round: -1 })).toThrow(expect.objectContaining({ name: 'CheckpointError', code: 'checkpoint_invalid' }));
    expect(rows(dir)).toEqual([]);
  });
});
