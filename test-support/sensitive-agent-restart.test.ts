import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src-shared/contracts/events';
import type { HostedWorkflow } from '../src-shared/contracts/hosted-workflow';
import { createKeychainStore } from '../src-main/credentials/keychain-store';
import { keychainSealKeys, type SealKeys } from '../src-main/credentials/seal-keys';
import type { Host } from '../src-main/composition/host-types';
import { hostPage, openTestHost } from './host-session';
import { memorySealKeys, noKeychainSealKeys } from './seal-keys-double';
import { filesHoldingPlanted, MASKED_WRITE, plantedIn } from './sensitive-input-workflow';
import { tempFolder } from './temp-folder';

/**
 * Issue 27, a waiting AGENT run's own sensitive argument: the agent (the Ask a human demo, its models
 * a script — the test double at the model boundary) proposes `write_file` with `content` holding a
 * planted value, `content` is marked sensitive in the registry, and the teacher escalates the call
 * to a person. While the run waits, and after the host stops, no byte of the data folder holds the
 * value (the checkpoint is sealed, its key in the keychain); a new host resumes it, the person
 * approves, and only the tool (the real filesystem MCP server) gets the real value.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const finishedOf = (events: RunEvent[], runId: string) => events.find((e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished' && e.run_id === runId);

/** A long value (masked by value wherever it shows), planted in the call the agent proposes. */
const plantedSecret = () => `pin-${randomBytes(10).toString('hex')}`;

/** The demo's workspace copy inside the data folder, where the tool writes the real value (left out of the search). */
function demoWorkspace(dataDir: string): string {
  const base = join('demo', 'ask-a-human');
  const [folder] = readdirSync(join(dataDir, base));
  if (!folder) throw new Error('no demo workspace copy');
  return join(base, folder);
}

async function waitingAgentRun(host: Host, secret: string) {
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  const { workflows } = (await page.ok('workspace.demo', {})) as { workflows: HostedWorkflow[] };
  const demo = workflows.find((w) => w.id === 'ask-a-human');
  if (!demo?.script) throw new Error('the Ask a human demo has no script');
  // The write's content holds the planted value; the registry marks `content` sensitive.
  const student = demo.script.student.map((reply) => {
    const json = 'json' in reply ? (reply.json as { tool_name?: string; arguments?: Record<string, unknown> }) : undefined;
    return json?.tool_name === 'write_file' ? { ...reply, json: { ...json, arguments: { ...json.arguments, content: `Door PIN: ${secret}\n` } } } : reply;
  });
  const server = demo.servers.find((s) => s.id === 'fs')?.server;
  if (!server) throw new Error('the demo has no fs server');
  await page.ok('effects.set', { server, tool: 'write_file', effect: MASKED_WRITE });
  const { run_id } = await page.ok('run.start', { workflow: { ...demo, script: { ...demo.script, student } }, overrides: {} });
  return { page, run_id };
}

/** Both forms the planted value could be searched in (plantedIn / filesHoldingPlanted take two). */
const asPins = (secret: string) => ({ pin: secret, code: secret });

async function parkThenRestart(dataDir: string, keys: { before: SealKeys; after: SealKeys }, secret: string) {
  const first = await openTestHost(dataDir, cleanups, { sealKeys: keys.before });
  const { page, run_id } = await waitingAgentRun(first, secret);
  await expect.poll(async () => (await page.ok('interventions.pending', {})).interventions.length, { timeout: 60_000 }).toBe(1);
  const [asked] = (await page.ok('interventions.pending', {})).interventions;
  expect(asked?.decision).toMatchObject({ decision_type: 'tool_call', tool_name: 'write_file' });
  const workspace = demoWorkspace(dataDir);
  // Waiting, with the host up (the WAL not yet folded in): no file of the data folder holds the value.
  expect(filesHoldingPlanted(dataDir, asPins(secret), [workspace]), 'the data folder while the agent run waits').toEqual([]);
  await first.close();
  expect(filesHoldingPlanted(dataDir, asPins(secret), [workspace]), 'the data folder after the host stopped').toEqual([]);
  const second = await openTestHost(dataDir, cleanups, { sealKeys: keys.after });
  const after = hostPage(second, 'page-after');
  await after.ok('events.subscribe', {});
  const [still] = (await after.ok('interventions.pending', {})).interventions;
  expect(still?.id, 'the run still waits after the restart').toBe(asked?.id);
  expect(plantedIn(JSON.stringify(still), asPins(secret)), 'the waiting list after the restart').toEqual([]);
  await after.ok('interventions.answer', { run_id, intervention_id: asked?.id, answer: { action: 'approve' } });
  await expect.poll(() => finishedOf(after.events, run_id), { timeout: 60_000 }).toBeDefined();
  return { after, run_id, workspace, finished: finishedOf(after.events, run_id) };
}

const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const SERVICE = `steward-test-seal-agent-${randomBytes(6).toString('hex')}`;
afterAll(async () => {
  if (!hasSessionBus) return;
  const store = createKeychainStore({ service: SERVICE });
  for (const name of await store.list()) await store.delete(name);
});

describe('a waiting agent run whose proposed call holds a sensitive argument, across a host restart', () => {
  it.runIf(hasSessionBus)('keeps the value sealed under a keychain key on disk, and the approved call after the restart gets the real value', async () => {
    const dataDir = tempFolder('steward-agent-secret-restart-', cleanups);
    const secret = plantedSecret();
    // Two instances: the second host reads the key back from the keychain, as a new process would.
    const { after, run_id, workspace, finished } = await parkThenRestart(dataDir, { before: keychainSealKeys({ service: SERVICE }), after: keychainSealKeys({ service: SERVICE }) }, secret);
    expect(finished?.status, finished?.message).toBe('completed');
    expect(readFileSync(join(dataDir, workspace, 'shared.md'), 'utf8')).toBe(`Door PIN: ${secret}\n`);
    expect(plantedIn(JSON.stringify(after.events), asPins(secret)), 'the page feed').toEqual([]);
    expect(plantedIn(JSON.stringify((await after.ok('runs.events', { run_id })).events), asPins(secret)), 'runs.events').toEqual([]);
    expect(filesHoldingPlanted(dataDir, asPins(secret), [workspace]), 'the data folder after the run').toEqual([]);
    // Only the key is in the keychain, never the value.
    const store = createKeychainStore({ service: SERVICE });
    const entries = await store.list();
    expect(entries.length).toBeGreaterThanOrEqual(1);
    expect(plantedIn(JSON.stringify(await Promise.all(entries.map((e) => store.get(e)))), asPins(secret))).toEqual([]);
  }, 180_000);

  it('ends in words when the key that sealed it is gone, and never calls the tool with a wrong value', async () => {
    const dataDir = tempFolder('steward-agent-secret-lost-', cleanups);
    const secret = plantedSecret();
    const keys = memorySealKeys();
    const { after, workspace, finished } = await parkThenRestart(dataDir, { before: keys, after: { current: () => keys.current(), byId: async (id) => (keys.forget(), keys.byId(id)) } }, secret);
    expect(finished?.status).toBe('failed');
    expect(finished?.message).toMatch(/^This run waited with a sensitive value that can no longer be unlocked: the keychain key that locked it \(seal-[0-9a-f]+\) is gone.* Start the run again\.$/);
    expect(existsSync(join(dataDir, workspace, 'shared.md')), 'the tool was never called').toBe(false);
    expect((await after.ok('interventions.pending', {})).interventions, 'nothing waits any more').toEqual([]);
    expect(filesHoldingPlanted(dataDir, asPins(secret), [workspace])).toEqual([]);
  }, 180_000);
});

describe('an agent run whose proposed call holds a sensitive argument, on a computer with no keychain', () => {
  it('does not wait with the value unsealed: it fails in words, keeps nothing waiting and writes the value nowhere', async () => {
    const dataDir = tempFolder('steward-agent-secret-nokeychain-', cleanups);
    const secret = plantedSecret();
    const host = await openTestHost(dataDir, cleanups, { sealKeys: noKeychainSealKeys() });
    const { page, run_id } = await waitingAgentRun(host, secret);
    await expect.poll(() => finishedOf(page.events, run_id), { timeout: 60_000 }).toBeDefined();
    const finished = finishedOf(page.events, run_id);
    expect(finished?.status).toBe('failed');
    expect(finished?.message).toContain('would wait for your answer while holding a sensitive value, and there is no keychain to lock that value with');
    expect(finished?.message).toContain('nothing was sent to the tool');
    const workspace = demoWorkspace(dataDir);
    expect(existsSync(join(dataDir, workspace, 'shared.md'))).toBe(false);
    expect((await page.ok('interventions.pending', {})).interventions).toEqual([]);
    expect(plantedIn(JSON.stringify(page.events), asPins(secret))).toEqual([]);
    await host.close();
    expect(filesHoldingPlanted(dataDir, asPins(secret), [workspace])).toEqual([]);
  }, 180_000);
});
