import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunCheckpoint } from '../engine/checkpoint';
import { waitingRunsDir, waitingWorkflowsDir } from '../engine/waiting-stores';
import type { WorkflowCheckpoint } from '../workflow/workflow-checkpoint';
import { escalatedAgentRun, escalatedWorkflowRun, writeLegacyCheckpoint } from '../../test-support/legacy-waiting-runs';
import { tempFolder } from '../../test-support/temp-folder';
import { waitingStoresIn } from '../../test-support/waiting-stores';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { historyPath, openHistoryDb, SCHEMA_VERSION } from './history-db';

/**
 * Issue 26: the checkpoints an older Steward kept as JSON files move into the history database at
 * the first open, each file once, the files kept as `.migrated` backups; a move killed half-way
 * goes on at the next open and never brings back a run answered meanwhile.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

let agent: RunCheckpoint;
let workflow: WorkflowCheckpoint;

beforeAll(async () => {
  const ws = tempNotesWorkspace();
  agent = (await escalatedAgentRun(ws.dir, ws.workspace)).checkpoint;
  workflow = (await escalatedWorkflowRun(ws.dir, ws.workspace)).checkpoint;
  return () => ws.cleanup();
}, 60_000);

const names = (dir: string) => readdirSync(dir).sort();

describe('moving the JSON checkpoints of an older Steward into the history database', () => {
  it('moves agent and workflow checkpoints into the table as they were, keeps each file as .migrated, and says so once', () => {
    const dataDir = tempFolder('steward-moved-', cleanups);
    const agentFile = writeLegacyCheckpoint(dataDir, agent);
    const workflowFile = writeLegacyCheckpoint(dataDir, workflow);
    const logs: string[] = [];
    const stores = waitingStoresIn(dataDir, cleanups, (line) => logs.push(line));
    expect(stores.checkpoints.list()).toEqual([agent]);
    expect(stores.workflowCheckpoints.list()).toEqual([workflow]);
    expect(names(waitingRunsDir(dataDir))).toEqual([`${agent.run_id}.json.migrated`]);
    expect(names(waitingWorkflowsDir(dataDir))).toEqual([`${workflow.run_id}.json.migrated`]);
    // The backups are the files as they were.
    expect(JSON.parse(readFileSync(`${agentFile}.migrated`, 'utf8'))).toEqual(agent);
    expect(existsSync(workflowFile)).toBe(false);
    expect(logs.filter((l) => l.startsWith('moved 1 waiting run(s) from'))).toHaveLength(2);
    // Opened again: nothing more to move, nothing said.
    logs.length = 0;
    waitingStoresIn(dataDir, cleanups, (line) => logs.push(line));
    expect(logs).toEqual([]);
  });

  it('killed after a file was moved but before it was renamed, the next open only renames it: a run answered meanwhile does not come back', () => {
    const dataDir = tempFolder('steward-moved-', cleanups);
    const file = writeLegacyCheckpoint(dataDir, agent);
    const { checkpoints } = waitingStoresIn(dataDir, cleanups);
    // The run is answered: its checkpoint is claimed and spent.
    checkpoints.claim(agent.run_id)?.remove();
    expect(checkpoints.list()).toEqual([]);
    // What a kill between the move's commit and the rename leaves: the file under its old name.
    copyFileSync(`${file}.migrated`, file);
    const again = waitingStoresIn(dataDir, cleanups);
    expect(again.checkpoints.list()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.migrated`)).toBe(true);
  });

  it('a claim left by a process that ended is moved as waiting; one a live process holds, a half-written file and the backups are left alone', () => {
    const dataDir = tempFolder('steward-moved-', cleanups);
    const plain = writeLegacyCheckpoint(dataDir, agent);
    const dead = writeLegacyCheckpoint(dataDir, { ...workflow }, `${workflow.run_id}.json.claimed-999999999-abc123`);
    const live = writeLegacyCheckpoint(dataDir, { ...agent, run_id: `${agent.run_id.slice(0, 30)}-live` }, `${agent.run_id.slice(0, 30)}-live.json.claimed-${process.pid}-abc123`);
    const partial = join(waitingRunsDir(dataDir), `${agent.run_id}.json.${process.pid}.tmp`);
    writeFileSync(partial, '{"version":');
    const logs: string[] = [];
    const stores = waitingStoresIn(dataDir, cleanups, (line) => logs.push(line));
    expect(stores.checkpoints.list()).toEqual([agent]);
    expect(stores.workflowCheckpoints.list()).toEqual([workflow]);
    expect(existsSync(`${plain}.migrated`) && existsSync(`${dead}.migrated`)).toBe(true);
    expect(existsSync(live) && existsSync(partial)).toBe(true);
    expect(logs.join('\n')).toMatch(/is being resumed by process \d+ \(an older Steward\): left as it is/);
  });

  it('a file that is not a checkpoint is not moved: it is kept as .invalid and named in the log', () => {
    const dataDir = tempFolder('steward-moved-', cleanups);
    const broken = join(waitingRunsDir(dataDir), 'broken.json');
    writeLegacyCheckpoint(dataDir, agent);
    writeFileSync(broken, '{"version":1');
    const logs: string[] = [];
    const { checkpoints } = waitingStoresIn(dataDir, cleanups, (line) => logs.push(line));
    expect(checkpoints.list()).toEqual([agent]);
    expect(readFileSync(`${broken}.invalid`, 'utf8')).toBe('{"version":1');
    expect(logs.join('\n')).toContain(`waiting run ${broken} could not be read`);
  });

  it('a history of schema 2 (before the waiting table) is upgraded at its first open', () => {
    const dataDir = tempFolder('steward-moved-', cleanups);
    const before = openHistoryDb(historyPath(dataDir));
    before.exec('DROP TABLE waiting');
    before.pragma('user_version = 2');
    before.close();
    writeLegacyCheckpoint(dataDir, agent);
    expect(waitingStoresIn(dataDir, cleanups).checkpoints.list()).toEqual([agent]);
    const after = new Database(historyPath(dataDir), { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    after.close();
  });
});
