import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { join } from 'node:path';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { EXAMPLES } from './workspace';
import type { hostPage } from './host-session';

export { hostedEcho } from './echo-workflow';

/**
 * The shipped folder-triage example as the app keeps it: its filesystem server a reference to the
 * shipped `filesystem` entry, its workspace the registered id `triage`. The sandbox is copied into
 * the data folder's workspaces/, where registering it needs no person.
 */
export function hostedTriage(dataDir: string): { workflow: HostedWorkflowGraph; sandbox: string } {
  const example = JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8')) as { servers: { id: string; tools?: string[] }[] } & Record<string, unknown>;
  const sandbox = join(dataDir, 'workspaces', 'triage');
  mkdirSync(join(dataDir, 'workspaces'), { recursive: true });
  cpSync(join(EXAMPLES, 'triage-sandbox'), sandbox, { recursive: true });
  const workflow = HostedWorkflowGraph.parse({
    ...example,
    workspace: 'triage',
    servers: example.servers.map((s) => ({ id: s.id, server: 'filesystem', ...(s.tools ? { tools: s.tools } : {}) })),
  });
  return { workflow, sandbox };
}

/** Registers and saves the triage example on a host, runs it and waits for its end. */
export async function finishedTriageRun(page: ReturnType<typeof hostPage>, dataDir: string): Promise<{ run_id: string; workflow: HostedWorkflowGraph }> {
  const { workflow, sandbox } = hostedTriage(dataDir);
  await page.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
  await page.ok('workflows.save', { workflow });
  const { run_id } = await page.ok('workflows.run', { id: 'folder-triage' });
  await expect.poll(() => page.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 60_000 }).toBe(true);
  return { run_id, workflow };
}
