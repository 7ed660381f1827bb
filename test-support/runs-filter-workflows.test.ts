import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../src-main/composition/host-types';
import { StewardDb } from '../src-renderer/db/db';
import { createHostClient } from '../src-renderer/host/host-client';
import { startHostSession } from '../src-renderer/host/host-session';
import { RunFilters } from '../src-renderer/screens/runs/RunFilters';
import { NO_FILTER } from '../src-renderer/screens/runs/run-filter';
import { mergeWorkflowChoices, storedWorkflows, workflowsInHistory } from '../src-renderer/screens/runs/filter-workflows';
import { hostedEcho } from './hosted-workflows';
import { inProcessTransport, openTestHost } from './host-session';

/** Issue 22: the Runs list's Workflow filter offers the user's own workflows, not only the demos. Real host, real page session and database. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function call(host: Host, method: string, params: unknown): Promise<unknown> {
  const frame = await host.handle({ kind: 'request', id: 1, method, params }, { id: 'tester', push: () => undefined });
  if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
  return frame.result;
}

describe('the Runs Workflow filter', () => {
  it('lists the workflows the host keeps for the user, the demos, and one only the history knows (deleted since), each once, by name', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-filter-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await openTestHost(dataDir, cleanups);
    await call(host, 'workflows.save', { workflow: hostedEcho('my-digest', { name: 'My digest' }) });
    await call(host, 'workflows.save', { workflow: hostedEcho('old-flow', { name: 'Old flow' }) });
    await call(host, 'workflows.run', { id: 'my-digest', inputs: { name: 'a' } });
    await call(host, 'workflows.run', { id: 'old-flow', inputs: { name: 'b' } });
    await call(host, 'workflows.delete', { id: 'old-flow' });

    const db = new StewardDb(`steward-filter-${Math.random().toString(36).slice(2)}`);
    cleanups.push(() => db.delete());
    const client = createHostClient(inProcessTransport(host, 'page'));
    const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined }, { providerPollMs: 60_000 });
    cleanups.push(() => {
      session.stop();
      client.close();
    });
    await expect.poll(async () => (await db.runs.toArray()).filter((r) => r.status === 'completed').length, { timeout: 20_000 }).toBe(2);
    await expect.poll(() => db.workflows.count(), { timeout: 20_000 }).toBeGreaterThan(0);

    const demos = (await db.workflows.toArray()).map((w) => ({ id: w.id, name: w.name }));
    const stored = await storedWorkflows(client);
    expect(stored.map((w) => w.id)).toEqual(['my-digest']);
    const history = await workflowsInHistory(db);
    expect(history).toEqual(expect.arrayContaining([{ id: 'my-digest', name: 'My digest' }, { id: 'old-flow', name: 'Old flow' }]));

    const choices = mergeWorkflowChoices(stored, demos, history);
    const ids = choices.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['my-digest', 'old-flow', ...demos.map((d) => d.id)]));
    expect(new Set(ids).size).toBe(ids.length);
    expect(choices.map((c) => c.name)).toEqual([...choices.map((c) => c.name)].sort((a, b) => a.localeCompare(b)));

    const html = renderToStaticMarkup(createElement(RunFilters, { filter: NO_FILTER, onChange: () => undefined, workflows: choices }));
    expect(html).toContain('<option value="my-digest">My digest</option>');
    expect(html).toContain('<option value="old-flow">Old flow</option>');
    expect(html).toContain(`<option value="${demos[0]!.id}">`);
  });

  it('names a workflow by what the host keeps now, not by the name an older run recorded', () => {
    const merged = mergeWorkflowChoices([{ id: 'w', name: 'Renamed' }], [], [{ id: 'w', name: 'Before the rename' }, { id: '', name: 'Unknown workflow' }]);
    expect(merged).toEqual([{ id: 'w', name: 'Renamed' }]);
  });
});
