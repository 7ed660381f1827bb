import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { hostedEcho, hostedTriage } from '../../test-support/hosted-workflows';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { HostRegistry } from '../registry/host-registry';
import { EXIT, runCli } from '../shells/cli/cli';

/** Issue 22: the editor's Problems list is the host's check of the document, the one `steward validate` makes. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function startHost() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-validate-host-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const host = await openTestHost(dataDir, cleanups);
  return { dataDir, host, ...hostPage(host) };
}

const withWrite = (w: HostedWorkflowGraph, args: Record<string, unknown>): HostedWorkflowGraph => ({
  ...w,
  nodes: w.nodes.map((n) => (n.kind === 'tool' && n.tool === 'write_file' ? { ...n, arguments: args } : n)),
});

describe('workflows.validate', () => {
  it('a sound workflow has no problems, and steward validate calls the same document valid', async () => {
    const h = await startHost();
    const { workflow, sandbox } = hostedTriage(h.dataDir);
    await h.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    expect(await h.ok('workflows.validate', { workflow })).toEqual({ problems: [], saveable: true });
    await h.host.close();
    const file = join(h.dataDir, 'triage.workflow.json');
    writeFileSync(file, JSON.stringify(workflow));
    expect(await runCli(['validate', file, '--data-dir', h.dataDir], { stdout: () => undefined, stderr: () => undefined, env: {} })).toBe(EXIT.ok);
  });

  it("finds an argument the tool does not take, listing the server's tools itself (no inspection first)", async () => {
    const h = await startHost();
    const { workflow, sandbox } = hostedTriage(h.dataDir);
    await h.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    const { problems, saveable } = await h.ok('workflows.validate', { workflow: withWrite(workflow, { path: 'r.md', content: '{{report}}', mode: 'fast' }) });
    expect(saveable).toBe(true);
    expect(problems).toEqual([expect.objectContaining({ node: 'write', code: 'invalid_arguments', message: expect.stringContaining('write_file takes no argument "mode"') })]);
  });

  it('a path outside the workspace and a script reply that is no decision are problems on their nodes', async () => {
    const h = await startHost();
    const { workflow, sandbox } = hostedTriage(h.dataDir);
    await h.ok('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    const broken = withWrite(workflow, { path: '/etc/passwd', content: '{{report}}' });
    const classify = broken.nodes.find((n) => n.kind === 'agent');
    if (classify?.kind !== 'agent' || !classify.script) throw new Error('the triage example has a scripted agent');
    classify.script.student[0] = { json: { decision_type: 'tool_call', tool_name: 'read_text_file' } };
    const { problems } = await h.ok('workflows.validate', { workflow: broken });
    expect(problems.map((p) => [p.node, p.code])).toEqual(expect.arrayContaining([['write', 'path_outside_workspace'], ['classify', 'invalid_script_decision']]));
    expect(problems.find((p) => p.code === 'invalid_script_decision')?.message).toMatch(/student reply 1 \(tool_call\) is not a decision the boundary accepts: arguments is required/);
  });

  it('a document the schema refuses is not saveable, and says why in words, by node', async () => {
    const h = await startHost();
    const echo = hostedEcho('echo');
    const draft = { ...echo, name: '', nodes: echo.nodes.map((n) => (n.kind === 'template' ? { ...n, kind: 'teleport' } : n)) };
    const { problems, saveable } = await h.ok('workflows.validate', { workflow: draft });
    expect(saveable).toBe(false);
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ message: 'name is required' }), expect.objectContaining({ node: 'say', message: expect.stringMatching(/^kind must be one of "input"/) })]));
    expect(JSON.stringify(problems)).not.toMatch(/Invalid input|Too small|expected string/);
  });

  it('a registered server whose tools cannot be listed is a problem on the nodes using it', async () => {
    const h = await startHost();
    // Registered as the MCP registry would after a person approved it (servers.register asks for that approval).
    new HostRegistry(h.dataDir).putUserServer({ id: 'broken', label: 'Broken', command: process.execPath, args: ['-e', 'process.exit(3)'], env: {}, source: 'user' });
    const echo = hostedEcho('echo');
    const draft = { ...echo, servers: [{ id: 'b', server: 'broken' }], nodes: [...echo.nodes, { id: 'call', kind: 'tool', server: 'b', tool: 'x', arguments: {} }] };
    const { problems } = await h.ok('workflows.validate', { workflow: draft });
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ node: 'call', code: 'server_unavailable', message: expect.stringContaining('"broken", whose tools could not be listed') })]));
  });
});
