import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { starterScript } from '@shared/workflow/starter-script';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { hostedTriage } from '../../test-support/hosted-workflows';
import { hostPage } from '../../test-support/host-session';
import { createHost } from '../composition/create-host';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe("the editor's starter replay script on a real host", () => {
  it('built from the tools the host inspected, it runs: the agent reads once through the boundary, then completes with its output', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-starter-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
    cleanups.push(() => host.close());
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { sandbox } = hostedTriage(dataDir);
    await page.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    const { tools } = await page.ok('mcp.inspect', { server: 'filesystem', workspace: 'triage' });
    const script = starterScript(tools, { folder: sandbox, teacher: true });
    const call = script.student[0]?.json as { tool_name: string } | undefined;
    expect(tools.find((t) => t.name === call?.tool_name)?.hints?.readOnlyHint).toBe(true);

    const workflow = HostedWorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'starter',
      name: 'Starter',
      workspace: 'triage',
      servers: [{ id: 'fs', server: 'filesystem' }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'agent', kind: 'agent', instructions: 'Be careful.', task: 'Look at {{text}}.', inputs: [{ name: 'text', type: 'text' }], servers: ['fs'], supervision: { enabled: true, phase: 3 }, script },
        { id: 'out', kind: 'output', fields: [{ name: 'result', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'agent', port: 'text' } },
        { from: { node: 'agent', port: 'output' }, to: { node: 'out', port: 'result' } },
      ],
    });
    await page.ok('workflows.save', { workflow });
    const { run_id } = await page.ok('workflows.run', { id: 'starter', inputs: { text: 'the folder' } });
    await expect.poll(() => page.events.find((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 60_000 }).toMatchObject({ status: 'completed', outputs: { result: 'Read it: replace this with the answer.' } });
    const rounds = page.events.flatMap((e) => (e.type === 'round.completed' ? [e] : []));
    expect(rounds.map((r) => r.record.outcome)).toEqual(['executed', 'delivered']);
    expect(rounds[0]?.record.execution?.is_error).toBe(false);
  }, 90_000);
});
