import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunEvent, RunEventOf } from '../src-shared/contracts/events';
import type { HostedWorkflowInput } from '../src-shared/contracts/hosted-workflow';
import type { InspectedTool } from '../src-shared/contracts/host-api';
import { createHost } from '../src-main/composition/create-host';
import type { ConfirmRequest } from '../src-main/composition/host-types';
import { createKeychainStore } from '../src-main/credentials/keychain-store';
import { hostPage } from './host-session';
import { tempFolder } from './temp-folder';

/**
 * A host as the desktop app runs it, for the third-party MCP server tests: its own data folder, the
 * real OS keychain (under a service name of its own, emptied afterwards; CI runs every test inside a
 * D-Bus session with gnome-keyring), and a person who approves every confirmation in the native
 * dialog. Servers are registered, inspected and run through the host's requests, as the page does.
 */
export async function thirdPartyHost(cleanups: Array<() => Promise<void> | void>) {
  const dataDir = tempFolder('steward-third-party-', cleanups);
  const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
  const credentials = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
  const asked: ConfirmRequest[] = [];
  const host = await createHost({ dataDir, shell: 'electron', log: () => undefined, credentials, confirm: { kind: 'dialog', ask: async (r) => (asked.push(r), true) } });
  cleanups.push(async () => {
    await host.close();
    if (hasSessionBus) for (const name of await credentials.list()) await credentials.delete(name);
  });
  const page = hostPage(host);
  await page.ok('events.subscribe', {});

  /** Starts the workflow, waits for its end; its events in order and how it finished. */
  const run = async (workflow: HostedWorkflowInput) => {
    const { run_id } = await page.ok('run.start', { workflow, overrides: {} });
    await expect.poll(() => page.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), { timeout: 14_000, interval: 50 }).toBe(true);
    const events = page.events.filter((e) => e.run_id === run_id);
    const finished = events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished');
    if (!finished) throw new Error('the run did not finish');
    return { run_id, events, finished, executions: executions(events) };
  };

  const inspect = async (server: string, workspace?: string): Promise<InspectedTool[]> =>
    (await page.ok('mcp.inspect', { server, ...(workspace ? { workspace } : {}) })).tools;

  return { dataDir, hasSessionBus, asked, page, run, inspect };
}

/** The tool executions of a run, in order. */
export function executions(events: readonly RunEvent[]) {
  return events.filter((e): e is RunEventOf<'tool.executed'> => e.type === 'tool.executed').map((e) => e.execution);
}

/** Every file under `dir` as text (binary files too: a SQLite page holds its strings as bytes), for leak checks. */
export function everyFileText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'))
    .join('\n');
}

/** A scripted teacher verdict (the model boundary double). */
export const accept = (explanation: string) => ({ json: { verdict: 'accept', reason_codes: [], explanation } });
