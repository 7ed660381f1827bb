import 'fake-indexeddb/auto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src-shared/contracts/events';
import { MASK } from '../src-shared/util/mask';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { StewardDb } from '../src-renderer/db/db';
import { createHostClient } from '../src-renderer/host/host-client';
import { startHostSession } from '../src-renderer/host/host-session';
import { hostPage, inProcessTransport, openTestHost } from './host-session';
import { filesHoldingPlanted, MASKED_WRITE, pinGraph, plantedIn, plantedPins } from './sensitive-input-workflow';
import { tempFolder } from './temp-folder';

/**
 * Issue 27 through the host's page API: a stored workflow run from the app (`workflows.run` with
 * its inputs) whose PIN flows, through a template, into `write_file`'s `content`, which the user
 * marked sensitive. The built-in filesystem server writes the real value; the page's feed and its
 * IndexedDB, the history (history.sqlite and its WAL), the run's events, list, OTLP and a replay
 * never see it.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const ACCEPT = { json: { verdict: 'accept', reason_codes: [], explanation: 'Writes the card in the workspace.' } };

describe('a sensitive input of a run the app starts', () => {
  it('reaches the tool and nothing the host keeps, shows or sends', async () => {
    const dataDir = tempFolder('steward-pin-host-', cleanups);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const box = join(dataDir, 'workspaces', 'box');
    mkdirSync(box, { recursive: true });
    await page.ok('workspaces.register', { workspace: { id: 'box', path: box } });
    // Masking an argument is more protection: no person needed.
    expect(await page.ok('effects.set', { server: 'filesystem', tool: 'write_file', effect: MASKED_WRITE })).toEqual({ status: 'done' });
    const graph = pinGraph('pin-host') as { nodes: Array<Record<string, unknown>> };
    const workflow = HostedWorkflowGraph.parse({
      ...graph,
      workspace: 'box',
      servers: [{ id: 'fs', server: 'filesystem', tools: ['write_file'] }],
      // A teacher reviews the protected write (no person to confirm it here).
      nodes: graph.nodes.map((n) => (n.id === 'set' ? { ...n, review: { teacher: { provider: 'script' }, script: { teacher: [ACCEPT] } } } : n)),
    });
    await page.ok('workflows.save', { workflow });

    // The page's own session and database, as the app stores what the host pushes.
    const db = new StewardDb(`steward-pin-${Math.random().toString(36).slice(2)}`);
    cleanups.push(() => db.delete());
    const client = createHostClient(inProcessTransport(host, 'pin-page'));
    const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined, indexing: () => undefined });
    cleanups.push(() => {
      session.stop();
      client.close();
    });

    const pins = plantedPins();
    const { run_id } = await page.ok('workflows.run', { id: 'pin-host', inputs: pins });
    const finished = () => page.events.find((e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished' && e.run_id === run_id);
    await expect.poll(finished, { timeout: 60_000 }).toBeDefined();
    expect(finished()?.status, finished()?.message).toBe('completed');
    // The call itself had the real values.
    expect(readFileSync(join(box, `card-${pins.owner}.txt`), 'utf8')).toBe(`PIN ${pins.pin} / code ${pins.code}`);

    const own = page.events.filter((e) => e.run_id === run_id);
    const started = own.find((e) => e.type === 'workflow.started');
    expect(started?.type === 'workflow.started' && started.inputs).toEqual({ pin: MASK, code: MASK, owner: pins.owner });
    expect(plantedIn(JSON.stringify(page.events), pins), 'the page feed').toEqual([]);

    const { events } = await page.ok('runs.events', { run_id });
    expect(events.length).toBe(own.length);
    expect(plantedIn(JSON.stringify(events), pins), 'runs.events (what Export writes)').toEqual([]);
    expect(plantedIn(JSON.stringify(await page.ok('runs.list', {})), pins), 'runs.list').toEqual([]);
    expect((await page.ok('runs.list', { text: pins.pin })).runs).toEqual([]);
    expect(plantedIn((await page.ok('runs.otlp', { run_id })).json, pins), 'OTLP').toEqual([]);
    // Replayed, it can only give the mask on: a dry run says so, live tools are refused.
    const dry = await page.ok('runs.replay', { run_id, tools: 'dry_run' });
    expect(dry.gaps.join(' ')).toMatch(/inputs pin, code flowed into a sensitive argument and were stored masked/);
    expect(await page.call('runs.replay', { run_id, tools: 'live' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/stored masked/) } });
    await expect.poll(() => page.events.some((e) => e.type === 'run.finished' && e.run_id === dry.run_id), { timeout: 60_000 }).toBe(true);

    await expect.poll(async () => (await db.table('events').where('run_id').equals(run_id).count()) >= own.length, { timeout: 20_000 }).toBe(true);
    const stored = await Promise.all(db.tables.map(async (t) => [t.name, await t.toArray()] as const));
    expect(plantedIn(JSON.stringify(stored), pins), 'the page’s IndexedDB').toEqual([]);

    await host.close();
    // history.sqlite (its WAL too) and every other file the host keeps; the workspace holds the card the tool wrote.
    expect(filesHoldingPlanted(dataDir, pins, [join('workspaces', 'box')])).toEqual([]);
  }, 120_000);
});
