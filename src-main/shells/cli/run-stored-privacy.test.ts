import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { hostedEcho } from '../../../test-support/hosted-workflows';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test-support/fake-openai';
import { HostRegistry } from '../../registry/host-registry';
import { WorkflowStore } from '../../workflow/workflow-store';
import { EXIT, runCli } from './cli';

/** `steward run NAME` runs the app's workflow as the app would: under the data folder's privacy policy. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

/**
 * A stored workflow whose one agent node asks a model at 0.0.0.0 (this machine, yet not a loopback
 * name: the privacy policy treats it as another host, so it must be allowed to see the run).
 */
async function storedRemoteAgent(): Promise<{ dataDir: string; model: FakeOpenAI; host: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-run-privacy-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const model = await startFakeOpenAI({ chat: () => ({ message: { content: JSON.stringify({ decision_type: 'complete', output: 'hello from afar' }) } }) });
  cleanups.push(() => model.close());
  const baseUrl = model.baseUrl.replace('127.0.0.1', '0.0.0.0');
  const remote = { provider: 'openai_compatible', base_url: baseUrl, model: 'm' };
  const echo = hostedEcho('remote');
  const agent = { id: 'say', kind: 'agent', instructions: 'Greet.', task: 'Greet {{name}}.', inputs: [{ name: 'name', type: 'text' }], servers: [], supervision: { enabled: false }, models: { student: remote, teacher: remote } };
  new WorkflowStore(dataDir).save(HostedWorkflowGraph.parse({ ...echo, nodes: echo.nodes.map((n) => (n.id === 'say' ? agent : n)) }));
  return { dataDir, model, host: new URL(baseUrl).host };
}

describe('steward run NAME and the privacy policy of the data folder', () => {
  it('a model host the data folder does not allow never sees the run', async () => {
    const { dataDir, model } = await storedRemoteAgent();
    const run = await cli(['run', 'remote', '--input', 'name=Bo'], dataDir);
    expect(run.code).toBe(EXIT.runNotCompleted);
    expect(run.stdout + run.stderr).toMatch(/which the workspace privacy policy does not allow/);
    expect(model.requests).toEqual([]);
  });

  it("a model host the data folder's policy allows (the one the app runs with) is used without --allow-host", async () => {
    const { dataDir, model, host } = await storedRemoteAgent();
    new HostRegistry(dataDir).setPrivacy({ allowed_hosts: [host] });
    const run = await cli(['run', 'remote', '--input', 'name=Bo', '--json'], dataDir);
    expect(run.stderr).not.toMatch(/privacy policy/);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', outputs: { said: 'hello from afar' } });
    expect(run.code).toBe(EXIT.ok);
    expect(model.chatRequests().length).toBeGreaterThan(0);
  });

  it('--allow-host still adds a host for this run on top of the policy', async () => {
    const { dataDir, host } = await storedRemoteAgent();
    new HostRegistry(dataDir).setPrivacy({ allowed_hosts: ['api.example.com'] });
    const run = await cli(['run', 'remote', '--input', 'name=Bo', '--json', '--allow-host', host], dataDir);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', outputs: { said: 'hello from afar' } });
  });
});
