import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { RunManager } from '../engine/run-manager';
import { openFileLedger } from '../mcp/idempotency-ledger';
import { escalatingWithSlowBranch, escalatingWorkflow } from '../../test-support/escalating-workflow';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { waitingStoresIn } from '../../test-support/waiting-stores';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** One host over a data folder; a second one over the same folder is the host after a restart. */
function host(data: string, events: RunEvent[]) {
  return new RunManager({
    ledger: openFileLedger(join(data, 'ledger.jsonl')),
    onEvent: (e) => events.push(e),
    baseDir: data,
    ...waitingStoresIn(data, cleanups),
  });
}

describe('workflow runs in the host', () => {
  it('an agent node waiting for a person survives a host restart; the answer resumes the workflow to its end', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const data = mkdtempSync(join(tmpdir(), 'steward-wf-host-'));
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const events: RunEvent[] = [];
    const before = host(data, events);
    const { run_id } = before.startWorkflow({ graph: escalatingWorkflow(ws.workspace), specDir: ws.dir, workspace: ws.workspace }, { name: 'shared.md' }, { allowed_hosts: [] });
    await expect.poll(() => before.pending().length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => before.activeIds().length).toBe(0);
    expect(existsSync(join(ws.workspace, 'shared.md'))).toBe(false);

    const after = host(data, events);
    const [waiting] = after.pending();
    expect(waiting).toMatchObject({ run_id, kind: 'escalation' });
    expect(after.answer(run_id, waiting?.id ?? '', { action: 'approve' })).toBe(true);
    expect(after.answer(run_id, waiting?.id ?? '', { action: 'approve' })).toBe(false);
    await expect.poll(() => events.some((e) => e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', run_id, status: 'completed', outputs: { said: 'shared it' } });
    expect(readFileSync(join(ws.workspace, 'shared.md'), 'utf8')).toBe('shared');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(after.pending()).toEqual([]);
  });

  it('a workflow with a graph problem or a missing input is refused before it starts', () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const data = mkdtempSync(join(tmpdir(), 'steward-wf-host-'));
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const manager = host(data, []);
    const graph = escalatingWorkflow(ws.workspace);
    expect(() => manager.startWorkflow({ graph, specDir: ws.dir }, {}, { allowed_hosts: [] })).toThrow(/input name is required/);
    expect(() => manager.startWorkflow({ graph: { ...graph, edges: [] }, specDir: ws.dir }, { name: 'x' }, { allowed_hosts: [] })).toThrow(/problem/);
    expect(manager.activeIds()).toEqual([]);
  });

  it('a workflow cancelled while one node waits and another runs leaves no waiting run behind', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const data = mkdtempSync(join(tmpdir(), 'steward-wf-host-'));
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const manager = host(data, []);
    const { run_id } = manager.startWorkflow({ graph: escalatingWithSlowBranch(ws.workspace, 5_000), specDir: ws.dir, workspace: ws.workspace }, { name: 'shared.md' }, { allowed_hosts: [] });
    // Kept at once, while `slow` still runs.
    await expect.poll(() => manager.pending().length, { timeout: 20_000 }).toBe(1);
    expect(manager.cancel(run_id)).toBe(true);
    await expect.poll(() => manager.activeIds().length, { timeout: 20_000 }).toBe(0);
    expect(manager.pending()).toEqual([]);
  });
});
