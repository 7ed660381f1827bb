/**
 * The app's host as bench/boundary.ts and bench/boundary-profile.ts drive it: a real host on a data
 * folder on disk, one page subscribed, runs of the Notes demo's read made with a scripted model (a
 * TEST DOUBLE at the model boundary); and a bare loop on the same filesystem server package.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RunEvent } from '@shared/contracts/events';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { Workspace } from '@shared/contracts/host-registry';
import type { PushFrame } from '@shared/contracts/host-api';
import { SupervisionSpec } from '@shared/contracts/spec';
import { createHost } from '../src-main/composition/create-host';
import type { Host, HostSession } from '../src-main/composition/host-types';
import { resolvePackageBin } from '../src-main/mcp/server-launch';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The app's host on a data folder of its own, with one page subscribed to its events (as the app's page is). `onRoundEnd`: each round's end as the page receives it. */
export async function openAppHost(options: { onRoundEnd?: () => void } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-host-'));
  const host: Host = await createHost({ dataDir, shell: 'browser', cliChannel: false, log: () => undefined });
  // Each round's end, as the page receives it (durable first), by run.
  const waiters = new Map<string, (event: RunEvent, at: number) => void>();
  const session: HostSession = {
    id: 'bench-page',
    push(frame: PushFrame) {
      if (frame.kind !== 'events') return;
      const at = performance.now();
      for (const event of frame.events) waiters.get(event.run_id)?.(event, at);
    },
  };
  const request = async (method: string, params: unknown) => {
    const response = await host.handle({ kind: 'request', id: 1, method, params }, session);
    if (!response.ok) throw new Error(`${method}: ${response.error.message}`);
    return response.result;
  };
  await request('events.subscribe', {});
  const { workflows } = (await request('workspace.demo', {})) as { workflows: HostedWorkflow[] };
  const notes = workflows.find((w) => w.id === 'notes-assistant');
  if (!notes?.workspace) throw new Error('the notes demo is missing');
  const { workspaces } = (await request('workspaces.list', {})) as { workspaces: Workspace[] };
  const folder = workspaces.find((w) => w.id === notes.workspace)?.path;
  if (!folder) throw new Error('the notes demo workspace is not registered');
  const file = join(folder, 'bench.md');
  writeFileSync(file, 'x'.repeat(1024));

  /**
   * One run of `rounds` rounds of the same read; resolves with when each round's end reached the
   * page (the run's start, its server launch, is not a round's cost: rounds are timed end to end).
   */
  async function run(rounds: number, opts: { phase: 2 | 3; latencyMs: number; write?: boolean }): Promise<number[]> {
    const read = opts.write
      ? { json: { decision_type: 'tool_call', tool_name: 'edit_file', arguments: { path: '${workspace}/bench.md', edits: [{ oldText: 'x', newText: 'y' }], dryRun: true } } }
      : { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/bench.md' } } };
    const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'ok' } };
    const workflow: HostedWorkflow = {
      ...notes!,
      // The write case offers edit_file beside the demo's tools.
      servers: opts.write ? notes!.servers.map((server) => ({ ...server, ...(server.tools ? { tools: [...server.tools, 'edit_file'] } : {}) })) : notes!.servers,
      supervision: SupervisionSpec.parse({ enabled: true, phase: opts.phase, on_block: 'fail' }),
      limits: { ...notes!.limits, max_rounds: rounds, max_consecutive_failures: 1 },
      script: { latency_ms: opts.latencyMs, student: Array.from({ length: rounds }, () => read), teacher: opts.phase === 2 || opts.write ? Array.from({ length: rounds }, () => accept) : [], committee: [], monitor: [] },
    };
    const { run_id } = (await request('run.start', { workflow, overrides: {} })) as { run_id: string };
    const ends: number[] = [];
    await new Promise<void>((resolve, reject) => {
      waiters.set(run_id, (event, at) => {
        if (event.type === 'round.completed') {
          if (event.record.outcome !== 'executed') reject(new Error(`bench run broke: round ${event.round} ${event.record.outcome}: ${event.record.message ?? event.record.reason ?? ''}`));
          ends.push(at);
          options.onRoundEnd?.();
        }
        if (event.type === 'run.finished') {
          if (ends.length !== rounds) reject(new Error(`bench run broke: ${event.status} after ${ends.length} rounds: ${event.message ?? ''}`));
          resolve();
        }
      });
    });
    waiters.delete(run_id);
    return ends;
  }

  return { run, folder, file, dataDir, close: () => host.close().finally(() => rmSync(dataDir, { recursive: true, force: true })) };
}

/** The shipped filesystem server over `folder`, as a bare loop spawns it. */
const filesystemServer = (folder: string) =>
  new StdioClientTransport({ command: process.execPath, args: [resolvePackageBin('@modelcontextprotocol/server-filesystem', 'fs'), folder], stderr: 'ignore' });

/** A bare loop on its own filesystem server over the same folder: ms per call. */
export async function bareLoop(folder: string, file: string, calls: number, delayMs = 0, write = false): Promise<{ perCall: () => Promise<number>; close: () => Promise<void> }> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(filesystemServer(folder));
  return {
    async perCall() {
      const t0 = performance.now();
      for (let i = 0; i < calls; i += 1) {
        if (delayMs > 0) await sleep(delayMs);
        if (write) await client.callTool({ name: 'edit_file', arguments: { path: file, edits: [{ oldText: 'x', newText: 'y' }], dryRun: true } });
        else await client.callTool({ name: 'read_text_file', arguments: { path: file } });
      }
      return (performance.now() - t0) / calls;
    },
    close: () => client.close(),
  };
}

/**
 * A bare loop as a run meets its server: a filesystem server spawned for it, connected and asked for its
 * tools, then `calls` calls; timed as the host's rounds are (from the first call's end to the last's, its
 * start not counted). A run's server is new each run, while `bareLoop`'s has answered thousands of calls:
 * a control for whether the server's warm-up weighs on the ratio (on 2026-12-06 it did not, 0.692 ms a call
 * against 0.707: docs/benchmarks.md).
 */
export async function freshBareLoop(folder: string, file: string, calls: number): Promise<{ perCall: () => Promise<number> }> {
  return {
    async perCall() {
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(filesystemServer(folder));
      try {
        await client.listTools();
        const ends: number[] = [];
        for (let i = 0; i < calls; i += 1) {
          await client.callTool({ name: 'read_text_file', arguments: { path: file } });
          ends.push(performance.now());
        }
        return (ends.at(-1)! - ends[0]!) / (ends.length - 1);
      } finally {
        await client.close();
      }
    },
  };
}
