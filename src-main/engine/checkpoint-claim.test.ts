import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { CheckpointStore, type RunCheckpoint } from './checkpoint';
import { runAgent } from './run-agent';
import { RunManager } from './run-manager';

/** Two hosts (or a crash) around one waiting run: only one may ever resume it. */

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

describe('claiming a waiting run', () => {
  it('of two stores on one folder, exactly one claims the checkpoint; the run is no longer listed as waiting', () => {
    const dir = folder();
    const a = new CheckpointStore(dir);
    const b = new CheckpointStore(dir);
    a.save(waiting);
    const claimed = a.claim(waiting.run_id);
    expect(claimed?.checkpoint.run_id).toBe(waiting.run_id);
    expect(b.claim(waiting.run_id)).toBeUndefined();
    expect(b.list()).toEqual([]);
    claimed?.remove();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a claim given back (the resume could not start) leaves the run waiting as before', () => {
    const dir = folder();
    const store = new CheckpointStore(dir);
    store.save(waiting);
    store.claim(waiting.run_id)?.restore();
    expect(store.list().map((c) => c.run_id)).toEqual([waiting.run_id]);
  });

  it('a claim left by a process that died before it resumed is given back when the folder is opened again', () => {
    const dir = folder();
    new CheckpointStore(dir).save(waiting);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const [file] = readdirSync(dir);
    renameSync(join(dir, file ?? ''), join(dir, `${file}.claimed-${dead}-abc123`));
    const logs: string[] = [];
    expect(new CheckpointStore(dir, (line) => logs.push(line)).list().map((c) => c.run_id)).toEqual([waiting.run_id]);
    expect(logs.join('\n')).toMatch(/gave back/);
  });

  it('a run another host is resuming is not resumed again by this one', () => {
    const dir = folder();
    const other = new CheckpointStore(dir);
    other.save(waiting);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: workspaceDir, checkpoints: new CheckpointStore(dir) });
    // The other host has claimed it and is starting the resumed run.
    const claimed = other.claim(waiting.run_id);
    expect(claimed).toBeDefined();
    expect(manager.answer(waiting.run_id, waiting.intervention.id, { action: 'stop' })).toBe(false);
    expect(manager.activeIds()).toEqual([]);
    claimed?.restore();
  });

  it('an answer resumes the run once and consumes its checkpoint', async () => {
    const dir = folder();
    const checkpoints = new CheckpointStore(dir);
    checkpoints.save(waiting);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: workspaceDir, checkpoints });
    expect(manager.answer(waiting.run_id, waiting.intervention.id, { action: 'stop' })).toBe(true);
    expect(manager.answer(waiting.run_id, waiting.intervention.id, { action: 'stop' })).toBe(false);
    await manager.closeAll();
    expect(existsSync(dir) && readdirSync(dir)).toEqual([]);
  });

  it('an answer the intervention does not offer is refused and the run stays waiting', () => {
    const dir = folder();
    const checkpoints = new CheckpointStore(dir);
    checkpoints.save(waiting);
    const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: () => undefined, baseDir: workspaceDir, checkpoints });
    const offered = waiting.intervention.options;
    const notOffered = (['approve', 'reject', 'takeover', 'stop'] as const).find((a) => !offered.includes(a));
    if (notOffered) expect(() => manager.answer(waiting.run_id, waiting.intervention.id, { action: notOffered })).toThrow(/not one of the answers/);
    expect(manager.answer(waiting.run_id, 'some-other-intervention', { action: 'stop' })).toBe(false);
    expect(checkpoints.list().map((c) => c.run_id)).toEqual([waiting.run_id]);
  });
});
