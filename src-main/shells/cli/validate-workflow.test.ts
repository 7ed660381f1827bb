import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../test-support/workspace';
import { EXIT, runCli } from './cli';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

/** The folder-triage example (and its sandbox) in a temp folder, edited. */
function triageCopy(edit?: (doc: { nodes: Array<Record<string, unknown>>; edges: unknown[] } & Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-validate-'));
  dirs.push(dir);
  cpSync(join(EXAMPLES, 'triage-sandbox'), join(dir, 'triage-sandbox'), { recursive: true });
  const doc = JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8'));
  edit?.(doc);
  const file = join(dir, 'folder-triage.workflow.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

async function validate(file: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['validate', file], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: join(file, '..', 'data') } });
  return { code, stdout, stderr };
}

describe('steward validate FILE with a workflow', () => {
  it('a valid workflow starts its servers, lists the tools its nodes may use and says valid', async () => {
    const { code, stdout, stderr } = await validate(triageCopy());
    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/^workflow: .+ \(folder-triage\), \d+ nodes, 1 server\(s\)$/m);
    expect(stdout).toMatch(/tool fs\/write_file: Irreversible write \(Steward’s shipped default\)/);
    expect(stdout).toMatch(/valid: /);
  });

  it('graph problems are printed as node <id> port <port>: message, and the file is invalid', async () => {
    const file = triageCopy((doc) => {
      doc.edges = doc.edges.slice(1);
      doc.nodes.push({ id: 'stray', kind: 'template', template: '{{nothing}}' });
    });
    const { code, stderr } = await validate(file);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/^steward: the workflow has \d+ problems?:$/m);
    expect(stderr).toMatch(/^ {2}node \S+ port \S+: the required input "\S+" is not connected$/m);
    expect(stderr).toMatch(/^ {2}node stray port nothing: uses \{\{nothing\}\} but declares no input "nothing"$/m);
  });

  it('a tool node naming a tool its server does not offer is found once the server has started', async () => {
    const file = triageCopy((doc) => {
      const write = doc.nodes.find((n) => n.kind === 'tool' && n.tool === 'write_file');
      if (write) write.tool = 'delete_everything';
    });
    const { code, stderr } = await validate(file);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/^ {2}node \S+: server "fs" offers no tool "delete_everything" to this workflow$/m);
  });

  it('a schema error is reported by path, as for a spec', async () => {
    const file = triageCopy((doc) => {
      doc.nodes.push({ id: 'x', kind: 'teleport' });
    });
    const { code, stderr } = await validate(file);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/is not a valid Steward workflow: node x: kind must be one of "input"/);
  });

  it('a problem of the document itself is said once (no "workflow: workflow" or "workflow: name")', async () => {
    const file = triageCopy((doc) => {
      delete (doc as { name?: unknown }).name;
    });
    const { code, stderr } = await validate(file);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/is not a valid Steward workflow: name is required/);
    expect(stderr).not.toMatch(/: workflow: /);
  });

  it('an agent spec still validates as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-validate-'));
    dirs.push(dir);
    cpSync(EXAMPLES, dir, { recursive: true });
    const { code, stdout } = await validate(join(dir, 'notes-assistant.json'));
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/^spec: .+ \(notes-assistant\)/m);
    expect(stdout).toMatch(/tool fs\/write_file: Irreversible write \(Steward’s shipped default\)/);
  });
});
