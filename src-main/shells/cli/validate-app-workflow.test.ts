import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostMethod, HostResult } from '@shared/contracts/host-api';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { hostedTriage } from '../../../test-support/hosted-workflows';
import { EXAMPLES } from '../../../test-support/workspace';
import { createHost } from '../../composition/create-host';
import { EXIT, runCli } from './cli';

/** Issue 22: `steward validate` takes every file the app writes or exports, and a stored NAME. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-validate-app-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

/** A data folder where the app registered the triage workspace and saved the triage workflow (the host closed again). */
async function appFolder(edit?: (w: HostedWorkflowGraph) => HostedWorkflowGraph): Promise<{ dataDir: string; workflow: HostedWorkflowGraph }> {
  const dataDir = join(tempDir(), 'data');
  const host = await createHost({ dataDir, shell: 'browser' });
  let id = 1;
  const call = async <M extends HostMethod>(method: M, params: unknown): Promise<HostResult<M>> => {
    const frame = await host.handle({ kind: 'request', id: id++, method, params }, { id: 'page', push: () => undefined });
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result as HostResult<M>;
  };
  const { workflow: base, sandbox } = hostedTriage(dataDir);
  const workflow = edit ? edit(base) : base;
  await call('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
  await call('workflows.save', { workflow });
  await host.close();
  return { dataDir, workflow };
}

const withWriteArgs = (args: Record<string, unknown>) => (w: HostedWorkflowGraph): HostedWorkflowGraph => ({
  ...w,
  nodes: w.nodes.map((n) => (n.kind === 'tool' && n.tool === 'write_file' ? { ...n, arguments: args } : n)),
});

describe('steward validate on what the app writes', () => {
  it('a workflow exported by `workflows export` validates, servers started from the data folder’s registry (no "unknown key")', async () => {
    const { dataDir } = await appFolder();
    const file = join(tempDir(), 'folder-triage.workflow.json');
    expect((await cli(['workflows', 'export', 'folder-triage', file], dataDir)).code).toBe(EXIT.ok);
    const out = await cli(['validate', file], dataDir);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(EXIT.ok);
    expect(out.stdout).toMatch(/^workflow: Folder triage \(folder-triage\)/m);
    expect(out.stdout).toMatch(/tool fs\/write_file: /);
    expect(out.stdout).toMatch(/^valid: /m);
  });

  it('validate NAME validates the stored workflow of that id, as run NAME takes it; an unknown NAME says where it looked', async () => {
    const { dataDir } = await appFolder();
    const out = await cli(['validate', 'folder-triage'], dataDir);
    expect(out.code).toBe(EXIT.ok);
    expect(out.stdout).toMatch(/^valid: stored workflow folder-triage$/m);
    const missing = await cli(['validate', 'no-such-flow'], dataDir);
    expect(missing.code).toBe(EXIT.badInput);
    expect(missing.stderr).toContain(`no stored workflow "no-such-flow" in ${dataDir}`);
  });

  it("an argument the tool does not take is found against the tool's input schema, naming what it takes", async () => {
    const { dataDir } = await appFolder(withWriteArgs({ path: 'triage-report.md', content: '{{report}}', colour: 'red' }));
    const out = await cli(['validate', 'folder-triage'], dataDir);
    expect(out.code).toBe(EXIT.badInput);
    expect(out.stderr).toMatch(/^ {2}node write: write_file takes no argument "colour" \(it takes "path", "content"\)$/m);
  });

  it('a missing argument is named; a templated one is left for the run to check', async () => {
    const { dataDir } = await appFolder(withWriteArgs({ content: '{{report}}' }));
    const out = await cli(['validate', 'folder-triage'], dataDir);
    expect(out.code).toBe(EXIT.badInput);
    expect(out.stderr).toMatch(/node write: write_file needs the argument "path"/);
    expect(out.stderr).not.toMatch(/"content"/);
  });

  it('a literal path outside the workspace is a problem before any server starts', async () => {
    const { dataDir } = await appFolder(withWriteArgs({ path: '../../outside.md', content: '{{report}}' }));
    const out = await cli(['validate', 'folder-triage'], dataDir);
    expect(out.code).toBe(EXIT.badInput);
    expect(out.stderr).toMatch(/node write: argument "path" is "\.\.\/\.\.\/outside\.md", outside the workspace/);
  });

  it("a replay script's student reply that is no decision is named by node and reply", async () => {
    const dir = tempDir();
    cpSync(join(EXAMPLES, 'triage-sandbox'), join(dir, 'triage-sandbox'), { recursive: true });
    const doc = JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8')) as { nodes: Array<{ kind: string; script?: { student: unknown[] } }> };
    const agent = doc.nodes.find((n) => n.kind === 'agent');
    if (!agent?.script) throw new Error('the triage example has a scripted agent');
    agent.script.student[0] = { json: { decision_type: 'complete' } };
    const file = join(dir, 'triage.workflow.json');
    writeFileSync(file, JSON.stringify(doc));
    const out = await cli(['validate', file], join(dir, 'data'));
    expect(out.code).toBe(EXIT.badInput);
    expect(out.stderr).toMatch(/node classify: script: student reply 1 \(complete\) is not a decision the boundary accepts: output is required/);
  });
});
