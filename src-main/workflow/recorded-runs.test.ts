import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { WorkflowGraph } from '@shared/workflow/document';
import { EXAMPLES } from '../../test-support/workspace';
import { escalatingWithSlowBranch } from '../../test-support/escalating-workflow';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow';
import { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * The renderer's tests read workflow runs recorded here (src-renderer/testing/recorded/), since the
 * renderer never imports the host. Each test runs the workflow for real (the real filesystem MCP
 * server, replay models) and checks the recording still has the events the host emits now: the
 * same events per type, invocation and status. Re-record with STEWARD_RECORD_FIXTURES=1.
 */
const RECORDED = fileURLToPath(new URL('../../src-renderer/testing/recorded', import.meta.url));
const RECORD = process.env.STEWARD_RECORD_FIXTURES === '1';
const PLACEHOLDER_DIR = '/tmp/steward-recorded';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempCopy(sandbox: string): { dir: string; workspace: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-recorded-'));
  temps.push(dir);
  const workspace = join(dir, sandbox);
  cpSync(join(EXAMPLES, sandbox), workspace, { recursive: true });
  return { dir, workspace };
}

async function record(options: Omit<RunWorkflowOptions, 'ledger' | 'onEvent'>): Promise<{ events: RunEvent[]; result: Awaited<ReturnType<typeof runWorkflow>> }> {
  const events: RunEvent[] = [];
  const result = await runWorkflow({ ...options, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  return { events, result };
}

/** The events with the temp folder written as a fixed path, validated as the app validates pushed events. */
function normalised(events: readonly RunEvent[], dir: string): RunEvent[] {
  return RunEvent.array().parse(JSON.parse(JSON.stringify(events).replaceAll(dir, PLACEHOLDER_DIR)));
}

/** What must stay as recorded: how many events of each type, per invocation and status (timing-free). */
function signature(events: readonly RunEvent[]): string[] {
  return events
    .filter((e) => e.type !== 'run.notice' && e.type !== 'model.retry')
    .map((e) => `${e.type}|${e.invocation_id ?? ''}|${'status' in e ? e.status : ''}`)
    .sort();
}

function keepOrCompare(file: string, events: RunEvent[]): void {
  const path = join(RECORDED, file);
  if (RECORD || !existsSync(path)) {
    writeFileSync(path, `${JSON.stringify(events, null, 1)}\n`);
    if (!RECORD) throw new Error(`${file} was missing and is now recorded: check it in, then run again`);
    return;
  }
  const kept = RunEvent.array().parse(JSON.parse(readFileSync(path, 'utf8')));
  expect(signature(kept), `${file} no longer matches what the host emits: re-record with STEWARD_RECORD_FIXTURES=1`).toEqual(signature(events));
}

describe('workflow runs recorded for the renderer', () => {
  it('folder triage (list → iterate → read → agent classifies → assert → collect → reviewed write) as the host emits it', async () => {
    const graph = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8')));
    const { dir, workspace } = tempCopy(graph.workspace ?? 'triage-sandbox');
    const { events, result } = await record({ graph, specDir: dir, workspace, inputs: {} });
    expect(result.status).toBe('completed');
    keepOrCompare('folder-triage.events.json', normalised(events, dir));
  });

  it.each(['pattern-pipeline', 'pattern-supervisor', 'pattern-debate'])('the %s example (a pattern node: iterations, judgments, a preference pair) as the host emits it', async (name) => {
    const graph = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, `${name}.workflow.json`), 'utf8')));
    const dir = mkdtempSync(join(tmpdir(), 'steward-recorded-'));
    temps.push(dir);
    const { events, result } = await record({ graph, specDir: dir, inputs: {} });
    expect(result.status).toBe('completed');
    keepOrCompare(`${name}.events.json`, normalised(events, dir));
  });

  it('a workflow whose agent node waits for a person beside a running branch, then resumes with the answer', async () => {
    const { dir, workspace } = tempCopy('notes-sandbox');
    const graph = escalatingWithSlowBranch(workspace, 50);
    const persisted: WorkflowCheckpoint[] = [];
    const first = await record({ graph, specDir: dir, workspace, inputs: { name: 'shared.md' }, persistWaiting: (c) => persisted.push(c) });
    expect(first.result.status).toBe('waiting');
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(persisted.at(-1))));
    const intervention = first.result.interventions?.[0]?.intervention;
    if (!intervention) throw new Error('the run did not wait for a person');
    const second = await record({ graph, specDir: dir, workspace, inputs: {}, resume: { checkpoint, answer: { action: 'approve' } } });
    expect(second.result.status).toBe('completed');
    keepOrCompare('share-waiting.events.json', normalised(first.events, dir));
    keepOrCompare('share-resumed.events.json', normalised(second.events, dir));
  });
});
