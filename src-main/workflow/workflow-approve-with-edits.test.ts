import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { RunManager } from '../engine/run-manager';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { escalatingWithSlowBranch, escalatingWorkflow } from '../../test-support/escalating-workflow';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { waitingStoresIn } from '../../test-support/waiting-stores';

/** Approve with edits on an agent node of a workflow: validated against the node's waiting round, recorded as for an agent run. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const data = mkdtempSync(join(tmpdir(), 'steward-wf-edits-'));
  cleanups.push(() => rmSync(data, { recursive: true, force: true }));
  const events: RunEvent[] = [];
  const { checkpoints, workflowCheckpoints: store } = waitingStoresIn(data, cleanups);
  const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: (e) => events.push(e), baseDir: data, checkpoints, workflowCheckpoints: store });
  return { ws, events, store, manager };
}

describe('approve with edits on a waiting workflow node', () => {
  it("a parked workflow runs the person's edited write, recorded in the answer, as the person's decision and as a learning example with the round's prompt", async () => {
    const { ws, events, store, manager } = setup();
    const { run_id } = manager.startWorkflow({ graph: escalatingWorkflow(ws.workspace), specDir: ws.dir, workspace: ws.workspace }, { name: 'shared.md' }, { allowed_hosts: [] });
    await expect.poll(() => manager.pending().length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => manager.activeIds().length, { timeout: 20_000 }).toBe(0);
    const [waiting] = manager.pending();
    const nodeCheckpoint = Object.values(store.get(run_id)?.waiting ?? {})[0]?.checkpoint;
    expect(nodeCheckpoint?.tool_snapshot).toBeDefined();

    const edited = { path: join(ws.workspace, 'draft.md'), content: 'for me first' };
    expect(manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: edited })).toBe(true);
    await expect.poll(() => events.some((e) => e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', run_id, status: 'completed', outputs: { said: 'shared it' } });
    expect(readFileSync(join(ws.workspace, 'draft.md'), 'utf8')).toBe('for me first');
    expect(existsSync(join(ws.workspace, 'shared.md'))).toBe(false);
    expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'approve', arguments: edited } });
    expect(events.find((e) => e.type === 'decision.selected' && e.source === 'human')).toMatchObject({ decision: { tool_name: 'write_file', arguments: edited } });
    const example = events.find((e) => e.type === 'learning.example' && e.rule === 'human_decided');
    expect(example).toMatchObject({ kind: 'review', agreement: false, student_candidate: { arguments: { path: join(ws.workspace, 'shared.md') } }, final_decision: { arguments: edited } });
    expect(example?.type === 'learning.example' ? example.context : []).toEqual(nodeCheckpoint?.prompt);
  });

  it('an invalid edit is refused with the reason, parked or live, and the workflow keeps waiting', async () => {
    const { ws, events, store, manager } = setup();
    // Live: the other branch still runs while the node waits.
    const { run_id } = manager.startWorkflow({ graph: escalatingWithSlowBranch(ws.workspace, 1_500), specDir: ws.dir, workspace: ws.workspace }, { name: 'shared.md' }, { allowed_hosts: [] });
    await expect.poll(() => manager.pending().length, { timeout: 20_000 }).toBe(1);
    const [waiting] = manager.pending();
    const missingContent = { action: 'approve' as const, arguments: { path: join(ws.workspace, 'draft.md') } };
    expect(manager.activeIds()).toEqual([run_id]);
    expect(() => manager.answer(run_id, waiting?.id ?? '', missingContent)).toThrow(/your edited arguments do not pass validation: arguments the tool refuses.*content/);
    // Parked: the run ended waiting, its checkpoint on disk.
    await expect.poll(() => manager.activeIds().length, { timeout: 20_000 }).toBe(0);
    expect(() => manager.answer(run_id, waiting?.id ?? '', missingContent)).toThrow(/your edited arguments do not pass validation/);
    expect(store.get(run_id)).toBeDefined();
    expect(manager.pending().map((i) => i.id)).toEqual([waiting?.id]);
    expect(existsSync(join(ws.workspace, 'draft.md'))).toBe(false);
    expect(events.some((e) => e.type === 'intervention.answered')).toBe(false);
  });
});
