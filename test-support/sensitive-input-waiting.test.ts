import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src-shared/contracts/events';
import { MASK } from '../src-shared/util/mask';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { hostPage, openTestHost } from './host-session';
import { MASKED_WRITE, pinGraph, plantedIn, plantedPins } from './sensitive-input-workflow';
import { memorySealKeys } from './seal-keys-double';
import { tempFolder } from './temp-folder';

/**
 * Issue 27 through the host's page API, a run that waits: the protected write asks the person
 * (no teacher), so the question with the PIN in its call waits in the app. The waiting list the page
 * is given (`interventions.pending`) shows the call masked; approved, the tool gets the real value.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('a sensitive input of a run that waits for a person', () => {
  it('is masked in the waiting list the page is given, and the approved call gets the real value', async () => {
    const dataDir = tempFolder('steward-pin-wait-', cleanups);
    // The keychain's stand-in for the key that seals the waiting run's PIN (the real one: sensitive-input-restart.test.ts).
    const host = await openTestHost(dataDir, cleanups, { sealKeys: memorySealKeys() });
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const box = join(dataDir, 'workspaces', 'box');
    mkdirSync(box, { recursive: true });
    await page.ok('workspaces.register', { workspace: { id: 'box', path: box } });
    await page.ok('effects.set', { server: 'filesystem', tool: 'write_file', effect: MASKED_WRITE });
    const workflow = HostedWorkflowGraph.parse({ ...pinGraph('pin-wait'), workspace: 'box', servers: [{ id: 'fs', server: 'filesystem', tools: ['write_file'] }] });
    await page.ok('workflows.save', { workflow });

    const pins = plantedPins();
    const { run_id } = await page.ok('workflows.run', { id: 'pin-wait', inputs: pins });
    await expect.poll(async () => (await page.ok('interventions.pending', {})).interventions.length, { timeout: 60_000 }).toBe(1);
    const { interventions } = await page.ok('interventions.pending', {});
    expect(plantedIn(JSON.stringify(interventions), pins), 'interventions.pending').toEqual([]);
    const [asked] = interventions;
    expect(asked?.decision).toMatchObject({ tool_name: 'write_file', arguments: { path: `card-${pins.owner}.txt`, content: MASK } });

    await page.ok('interventions.answer', { run_id, intervention_id: asked?.id, answer: { action: 'approve' } });
    const finished = () => page.events.find((e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished' && e.run_id === run_id);
    await expect.poll(finished, { timeout: 60_000 }).toBeDefined();
    expect(finished()?.status, finished()?.message).toBe('completed');
    expect(readFileSync(join(box, `card-${pins.owner}.txt`), 'utf8')).toBe(`PIN ${pins.pin} / code ${pins.code}`);
    expect(plantedIn(JSON.stringify(page.events), pins), 'the page feed').toEqual([]);
    expect(plantedIn(JSON.stringify((await page.ok('runs.events', { run_id })).events), pins), 'runs.events').toEqual([]);
  }, 120_000);
});
