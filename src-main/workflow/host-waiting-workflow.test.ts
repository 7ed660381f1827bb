import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { ResponseFrame } from '@shared/contracts/host-api';
import { createHost } from '../composition/create-host';
import type { HostSession } from '../composition/host-types';
import { EventJournal } from '../events/event-journal';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { escalatingWorkflow } from '../../test-support/escalating-workflow';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runWorkflow } from './run-workflow';
import { waitingStoresIn } from '../../test-support/waiting-stores';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('the host with a workflow run waiting for a person', () => {
  it('lists it after a restart, does not close it as interrupted, and the answer resumes it to its end', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-wf-host-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

    // The host before its restart: the run's events reached the journal, then its checkpoint was kept.
    const before: RunEvent[] = [];
    const store = waitingStoresIn(dataDir, cleanups).workflowCheckpoints;
    const first = await runWorkflow({ graph: escalatingWorkflow(ws.workspace), specDir: ws.dir, workspace: ws.workspace, inputs: { name: 'shared.md' }, ledger: createMemoryLedger(), onEvent: (e) => before.push(e), persistWaiting: (c) => store.save(c) });
    expect(first.status).toBe('waiting');
    const outbox = EventJournal.open(join(dataDir, 'history.sqlite'));
    outbox.append(before);
    outbox.close();

    const host = await createHost({ dataDir, shell: 'browser' });
    cleanups.push(() => host.close());
    const events: RunEvent[] = [];
    const session: HostSession = { id: 'page', push: (frame) => (frame.kind === 'events' ? events.push(...frame.events) : 0) };
    let nextId = 1;
    const call = async (method: string, params: unknown): Promise<unknown> => {
      const frame: ResponseFrame = await host.handle({ kind: 'request', id: nextId++, method, params }, session);
      if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
      return frame.result;
    };
    await call('events.subscribe', {});
    const { interventions } = (await call('interventions.pending', {})) as { interventions: Intervention[] };
    expect(interventions).toHaveLength(1);
    expect(interventions[0]).toMatchObject({ run_id: first.run_id, kind: 'escalation' });
    expect(events.some((e) => e.type === 'run.finished')).toBe(false);

    await call('interventions.answer', { run_id: first.run_id, intervention_id: interventions[0]?.id, answer: { action: 'approve' } });
    await expect.poll(() => events.some((e) => e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({ run_id: first.run_id, status: 'completed', outputs: { said: 'shared it' } });
    expect(readFileSync(join(ws.workspace, 'shared.md'), 'utf8')).toBe('shared');
  });
});
