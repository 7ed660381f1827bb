import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostMethod, HostResult } from '@shared/contracts/host-api';
import { HostedWorkflowGraph, type WorkflowSummary } from '@shared/workflow/hosted-graph';
import { hostedEcho, hostedTriage } from '../../../test-support/hosted-workflows';
import { EXAMPLES } from '../../../test-support/workspace';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { readTraceFile } from '../../../test-support/trace-file';
import { createHost } from '../../composition/create-host';
import { WorkflowStore } from '../../workflow/workflow-store';
import { EXIT, runCli } from './cli';

/** Issue 8: the app and the CLI see the same workflows, kept in the host's data folder. */

const execFileP = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/steward.mjs', import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-wfs-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

/** A running host on the data folder, driven through `handle` as the app drives it. */
async function appOn(dataDir: string) {
  const host = await createHost({ dataDir, shell: 'browser' });
  cleanups.push(() => host.close());
  let nextId = 1;
  return async <M extends HostMethod>(method: M, params: unknown): Promise<HostResult<M>> => {
    const frame = await host.handle({ kind: 'request', id: nextId++, method, params }, { id: 'page', push: () => undefined });
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result as HostResult<M>;
  };
}

const echo = hostedEcho('echo', { name: 'Echo' });

describe('steward workflows and steward run NAME', () => {
  it('a workflow the app saved is listed, exported, imported back under another id (which the app lists), and run by name with a progress line per node', async () => {
    const dataDir = join(tempDir(), 'data');
    mkdirSync(dataDir);
    const app = await appOn(dataDir);
    const { workflow, sandbox } = hostedTriage(dataDir);
    await app('workspaces.register', { workspace: { id: 'triage', path: sandbox } });
    await app('workflows.save', { workflow });

    const list = await cli(['workflows', 'list'], dataDir);
    expect(list.code).toBe(EXIT.ok);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+NODES\s+UPDATED$/);
    expect(list.stdout).toMatch(new RegExp(`^folder-triage\\s+Folder triage\\s+${workflow.nodes.length}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`, 'm'));

    const exported = await cli(['workflows', 'export', 'folder-triage'], dataDir);
    expect(exported.code).toBe(EXIT.ok);
    expect(HostedWorkflowGraph.parse(JSON.parse(exported.stdout))).toEqual(workflow);
    const file = join(tempDir(), 'triage.workflow.json');
    expect((await cli(['workflows', 'export', 'folder-triage', '-o', file], dataDir)).stdout).toBe(`exported folder-triage to ${file}\n`);
    expect(HostedWorkflowGraph.parse(JSON.parse(readFileSync(file, 'utf8')))).toEqual(workflow);

    const imported = await cli(['workflows', 'import', file, '--as', 'triage-copy'], dataDir);
    expect(imported).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(imported.stdout).toBe(`imported triage-copy · Folder triage · ${workflow.nodes.length} node(s)\n`);
    expect((await app('workflows.list', {})).workflows.map((w) => w.id)).toEqual(['folder-triage', 'triage-copy']);

    const run = await cli(['run', 'triage-copy'], dataDir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain(`steward · workflow Folder triage · ${workflow.nodes.length} node(s)`);
    expect(run.stdout).toContain('  ▸ Read the file · item 3 running');
    expect(run.stdout).toContain('  ✓ classify · item 5 done');
    expect(run.stdout).toContain('  ✓ Write the report (reviewed) done');
    expect(run.stdout).toMatch(/^completed · \d+ node invocation\(s\)$/m);
    expect(readFileSync(join(sandbox, 'triage-report.md'), 'utf8')).toContain('# Folder triage');
  }, 90_000);

  it('run NAME takes --input, --json and --trace as run FILE does', async () => {
    const dataDir = tempDir();
    new WorkflowStore(dataDir).save(echo);
    const trace = join(dataDir, 'trace.jsonl');
    const { code, stdout } = await cli(['run', 'echo', '--input', 'name=Bo', '--json', '--trace', trace], dataDir);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'completed', outputs: { said: 'hello Bo' } });
    const events = readTraceFile(trace);
    expect(events[0]?.type).toBe('workflow.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect((await cli(['run', 'echo'], dataDir)).stderr).toMatch(/input name is required/);
  });

  it('run NAME and validate NAME typed in a folder holding a folder of that name still mean the stored workflow; a file of that name is run as a file', async () => {
    const dataDir = tempDir();
    new WorkflowStore(dataDir).save(echo);
    const project = tempDir();
    mkdirSync(join(project, 'echo'));
    let stdout = '';
    let stderr = '';
    const ran = await runCli(['run', 'echo', '--input', 'name=Bo', '--json', '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, cwd: project });
    expect(ran, stderr).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'completed', outputs: { said: 'hello Bo' } });
    ensureBuilt();
    const validated = await execFileP(process.execPath, [BIN, 'validate', 'echo', '--data-dir', dataDir], { cwd: project });
    expect(validated.stdout).toContain('echo');
    // A file named like the stored workflow is what the person typed: it runs (here, a spec with no workflow in it: refused in words).
    writeFileSync(join(project, 'file-echo'), '{}');
    new WorkflowStore(dataDir).save({ ...echo, id: 'file-echo' });
    stderr = '';
    expect(await runCli(['run', 'file-echo', '--data-dir', dataDir], { stdout: () => undefined, stderr: (t) => (stderr += t), env: {}, cwd: project })).toBe(EXIT.badInput);
    expect(stderr).toContain(join(project, 'file-echo'));
  });

  it('run NAME refuses a stored workflow with problems, naming each by node, before anything runs; an unknown NAME says where it looked', async () => {
    const dataDir = tempDir();
    new WorkflowStore(dataDir).save(
      HostedWorkflowGraph.parse({
        ...echo,
        id: 'mail',
        servers: [{ id: 'post', server: 'imap-mail' }],
        nodes: [...echo.nodes, { id: 'send', kind: 'tool', server: 'post', tool: 'send' }, { id: 'out2', kind: 'output', fields: [{ name: 'sent', type: 'any' }] }],
        edges: [...echo.edges, { from: { node: 'send', port: 'result' }, to: { node: 'out2', port: 'sent' } }],
      }),
    );
    const refused = await cli(['run', 'mail', '--input', 'name=x'], dataDir);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/node send: uses server "imap-mail", which is not registered on this host/);
    expect(refused.stdout).toBe('');
    const unknown = await cli(['run', 'nothing-here'], dataDir);
    expect(unknown.code).toBe(EXIT.badInput);
    expect(unknown.stderr).toContain(`no file nothing-here and no stored workflow "nothing-here" in ${dataDir}`);
  });

  it("import refuses a file in the CLI's own format, saying to register its servers and reference them by id", async () => {
    const dataDir = tempDir();
    const { code, stderr } = await cli(['workflows', 'import', join(EXAMPLES, 'folder-triage.workflow.json')], dataDir);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/its server\(s\) fs name a command or package/);
    expect(stderr).toMatch(/register them .* and reference them by id/);
    expect(new WorkflowStore(dataDir).list()).toEqual([]);
  });

  it('import never overwrites a stored workflow without --replace', async () => {
    const dataDir = tempDir();
    const store = new WorkflowStore(dataDir);
    store.save(echo);
    const file = join(dataDir, 'other.json');
    writeFileSync(file, JSON.stringify({ ...echo, name: 'Other echo' }));
    const refused = await cli(['workflows', 'import', file], dataDir);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/a workflow "echo" is already stored; add --replace/);
    expect(store.get('echo')?.workflow.name).toBe('Echo');
    const replaced = await cli(['workflows', 'import', file, '--replace'], dataDir);
    expect(replaced.stdout).toMatch(/^replaced echo · Other echo/);
    expect(store.get('echo')?.workflow.name).toBe('Other echo');
  });

  it('an imported workflow that cannot run here yet is stored, with its problems listed', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'w.json');
    writeFileSync(file, JSON.stringify({ ...echo, workspace: 'not-registered' }));
    const { code, stdout } = await cli(['workflows', 'import', file], dataDir);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/it cannot run on this data folder yet \(1 problem\(s\)\):\n {2}workflow: uses workspace "not-registered"/);
  });

  it('list --json prints the summaries; a damaged file is skipped with a line on stderr; delete removes one and exits 1 when there is none', async () => {
    const dataDir = tempDir();
    new WorkflowStore(dataDir).save(echo);
    writeFileSync(join(dataDir, 'workflows', 'broken.workflow.json'), '{');
    const listed = await cli(['workflows', 'list', '--json'], dataDir);
    expect(listed.code).toBe(EXIT.ok);
    expect((JSON.parse(listed.stdout) as WorkflowSummary[]).map((w) => [w.id, w.node_count])).toEqual([['echo', 3]]);
    expect(listed.stderr).toMatch(/skipped .*broken\.workflow\.json is damaged/);
    expect(await cli(['workflows', 'delete', 'echo'], dataDir)).toMatchObject({ code: EXIT.ok, stdout: 'deleted echo\n' });
    expect(await cli(['workflows', 'delete', 'echo'], dataDir)).toMatchObject({ code: 1, stderr: expect.stringContaining('no stored workflow "echo"') });
    expect((await cli(['workflows', 'export', 'echo'], dataDir)).code).toBe(1);
  });

  it('an export to a file: -o FILE or the older second argument; a folder that does not exist is said in words and leaves nothing', async () => {
    const dataDir = tempDir();
    new WorkflowStore(dataDir).save(echo);
    const out = tempDir();
    const positional = join(out, 'echo.workflow.json');
    expect(await cli(['workflows', 'export', 'echo', positional], dataDir)).toMatchObject({ code: EXIT.ok, stdout: `exported echo to ${positional}\n` });
    expect(HostedWorkflowGraph.parse(JSON.parse(readFileSync(positional, 'utf8')))).toEqual(echo);
    expect(await cli(['workflows', 'export', 'echo', '-o', '-'], dataDir)).toMatchObject({ code: EXIT.ok, stdout: `${JSON.stringify(echo, null, 2)}\n` });
    const twice = await cli(['workflows', 'export', 'echo', positional, '-o', positional], dataDir);
    expect(twice.code).toBe(EXIT.badInput);
    expect(twice.stderr).toContain('export takes its FILE once');
    const missing = join(out, 'no-such-folder', 'echo.workflow.json');
    const refused = await cli(['workflows', 'export', 'echo', '-o', missing], dataDir);
    expect(refused).toMatchObject({ code: EXIT.badInput, stdout: '' });
    expect(refused.stderr).toBe(`steward workflows: cannot write ${missing}: its folder does not exist; nothing was exported\n`);
    expect(readdirSync(out)).toEqual(['echo.workflow.json']);
  });

  it('the help lists the workflows commands and run NAME', async () => {
    const { stdout } = await cli(['--help'], tempDir());
    expect(stdout).toContain('steward run FILE|NAME');
    expect(stdout).toContain('steward workflows list [--json] | import FILE [--as ID] [--replace] | export ID [-o FILE]\n                   | delete ID [--data-dir DIR]');
  });
});
