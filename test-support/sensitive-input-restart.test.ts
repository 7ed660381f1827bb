import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src-shared/contracts/events';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { createKeychainStore } from '../src-main/credentials/keychain-store';
import { keychainSealKeys, type SealKeys } from '../src-main/credentials/seal-keys';
import type { Host } from '../src-main/composition/host-types';
import { hostPage, openTestHost } from './host-session';
import { memorySealKeys, noKeychainSealKeys } from './seal-keys-double';
import { filesHoldingPlanted, MASKED_WRITE, pinGraph, plantedIn, plantedPins, type PlantedPins } from './sensitive-input-workflow';
import { tempFolder } from './temp-folder';

/**
 * Issue 27, the waiting run's checkpoint: a PIN typed at run start, bound for a sensitive argument of
 * a call that waits for a person, is kept sealed on disk (AES-256-GCM, the key in the OS keychain).
 * Every byte of the data folder (history.sqlite, its WAL, any other file) is searched for it while
 * the run waits and after the host stops; a new host on the same folder resumes it and only the
 * tool call gets the real value. A key that is gone, or no keychain at all, ends the run in words.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** The workspace the tool writes the real PIN into: inside the data folder, so left out of the search. */
const WORKSPACE = join('workspaces', 'box');

async function waitingPinRun(dataDir: string, host: Host, pins: PlantedPins) {
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  const box = join(dataDir, WORKSPACE);
  mkdirSync(box, { recursive: true });
  await page.ok('workspaces.register', { workspace: { id: 'box', path: box } });
  await page.ok('effects.set', { server: 'filesystem', tool: 'write_file', effect: MASKED_WRITE });
  const workflow = HostedWorkflowGraph.parse({ ...pinGraph('pin-restart'), workspace: 'box', servers: [{ id: 'fs', server: 'filesystem', tools: ['write_file'] }] });
  await page.ok('workflows.save', { workflow });
  const { run_id } = await page.ok('workflows.run', { id: 'pin-restart', inputs: pins });
  return { page, run_id, card: join(box, `card-${pins.owner}.txt`) };
}

const finishedOf = (events: RunEvent[], runId: string) => events.find((e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished' && e.run_id === runId);

/** A restart: the host stops with the run waiting, a new host opens the same data folder. */
async function parkThenRestart(dataDir: string, keys: { before: SealKeys; after: SealKeys }, pins: PlantedPins) {
  const first = await openTestHost(dataDir, cleanups, { sealKeys: keys.before });
  const { page, run_id, card } = await waitingPinRun(dataDir, first, pins);
  await expect.poll(async () => (await page.ok('interventions.pending', {})).interventions.length, { timeout: 60_000 }).toBe(1);
  const [asked] = (await page.ok('interventions.pending', {})).interventions;
  // Waiting, with the host up (the WAL not yet folded in): no file of the data folder holds the values.
  expect(filesHoldingPlanted(dataDir, pins, [WORKSPACE]), 'the data folder while the run waits').toEqual([]);
  await first.close();
  expect(filesHoldingPlanted(dataDir, pins, [WORKSPACE]), 'the data folder after the host stopped').toEqual([]);
  const second = await openTestHost(dataDir, cleanups, { sealKeys: keys.after });
  const after = hostPage(second, 'page-after');
  await after.ok('events.subscribe', {});
  const [still] = (await after.ok('interventions.pending', {})).interventions;
  expect(still?.id, 'the run still waits after the restart').toBe(asked?.id);
  expect(plantedIn(JSON.stringify(still), pins), 'the waiting list after the restart').toEqual([]);
  await after.ok('interventions.answer', { run_id, intervention_id: asked?.id, answer: { action: 'approve' } });
  await expect.poll(() => finishedOf(after.events, run_id), { timeout: 60_000 }).toBeDefined();
  return { after, run_id, card, finished: finishedOf(after.events, run_id) };
}

// The real keychain: a Secret Service on the session bus (CI runs under dbus-run-session with gnome-keyring).
const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const SERVICE = `steward-test-seal-${randomBytes(6).toString('hex')}`;
afterAll(async () => {
  if (!hasSessionBus) return;
  const store = createKeychainStore({ service: SERVICE });
  for (const name of await store.list()) await store.delete(name);
});

describe('a waiting run holding a sensitive input, across a host restart', () => {
  it.runIf(hasSessionBus)('keeps the PIN sealed under a keychain key on disk, and the approved call after the restart gets the real value', async () => {
    const dataDir = tempFolder('steward-pin-restart-', cleanups);
    const pins = plantedPins();
    // Two instances: the second host reads the key back from the keychain, as a new process would.
    const { after, run_id, card, finished } = await parkThenRestart(dataDir, { before: keychainSealKeys({ service: SERVICE }), after: keychainSealKeys({ service: SERVICE }) }, pins);
    expect(finished?.status, finished?.message).toBe('completed');
    expect(readFileSync(card, 'utf8')).toBe(`PIN ${pins.pin} / code ${pins.code}`);
    expect(plantedIn(JSON.stringify(after.events), pins), 'the page feed').toEqual([]);
    expect(plantedIn(JSON.stringify((await after.ok('runs.events', { run_id })).events), pins), 'runs.events').toEqual([]);
    expect(filesHoldingPlanted(dataDir, pins, [WORKSPACE]), 'the data folder after the run').toEqual([]);
    // Only the key is in the keychain, never the value.
    const entries = await createKeychainStore({ service: SERVICE }).list();
    expect(entries).toHaveLength(1);
    expect(plantedIn(JSON.stringify(await Promise.all(entries.map((e) => createKeychainStore({ service: SERVICE }).get(e)))), pins)).toEqual([]);
  }, 180_000);

  it('ends in words when the key that sealed it is gone, and never calls the tool with a wrong value', async () => {
    const dataDir = tempFolder('steward-pin-lost-', cleanups);
    const pins = plantedPins();
    const keys = memorySealKeys();
    const { after, card, finished } = await parkThenRestart(dataDir, { before: keys, after: { current: () => keys.current(), byId: async (id) => (keys.forget(), keys.byId(id)) } }, pins);
    expect(finished?.status).toBe('failed');
    expect(finished?.message).toMatch(/^This run waited with a sensitive value \(pin, code\) that can no longer be unlocked: the keychain key that locked it \(seal-[0-9a-f]+\) is gone.* Start the run again\.$/);
    expect(existsSync(card), 'the tool was never called').toBe(false);
    expect((await after.ok('interventions.pending', {})).interventions, 'nothing waits any more').toEqual([]);
    const listed = (await after.ok('runs.list', {})) as { runs?: Array<{ run_id: string; status: string }> };
    expect(JSON.stringify(listed)).toContain('"failed"');
    expect(filesHoldingPlanted(dataDir, pins, [WORKSPACE])).toEqual([]);
  }, 180_000);
});

describe('a run holding a sensitive input on a computer with no keychain', () => {
  it('does not wait with the value unsealed: it fails in words, keeps nothing waiting and writes the value nowhere', async () => {
    const dataDir = tempFolder('steward-pin-nokeychain-', cleanups);
    const pins = plantedPins();
    const host = await openTestHost(dataDir, cleanups, { sealKeys: noKeychainSealKeys() });
    const { page, run_id, card } = await waitingPinRun(dataDir, host, pins);
    await expect.poll(() => finishedOf(page.events, run_id), { timeout: 60_000 }).toBeDefined();
    const finished = finishedOf(page.events, run_id);
    expect(finished?.status).toBe('failed');
    expect(finished?.message).toContain('would wait for your answer while holding a sensitive value (pin, code), and there is no keychain to lock that value with');
    expect(finished?.message).toContain('nothing was sent to the tool');
    expect(existsSync(card)).toBe(false);
    expect((await page.ok('interventions.pending', {})).interventions).toEqual([]);
    expect(plantedIn(JSON.stringify(page.events), pins)).toEqual([]);
    await host.close();
    expect(filesHoldingPlanted(dataDir, pins, [WORKSPACE])).toEqual([]);
  }, 180_000);
});
