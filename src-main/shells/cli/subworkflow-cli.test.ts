import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parentFile, summarize } from '../../../test-support/digest-workflows';
import { WorkflowStore } from '../../workflow/workflow-store';
import { runCli } from './cli';

/**
 * `steward run` of a workflow whose node runs a stored workflow (issue 29): the child's progress is
 * printed under the node, indented, with the interventions inside it; `steward validate` refuses a
 * workflow that contains itself, in words. The models are the replay script (the scripted model double).
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-subwf-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

describe('steward run: a workflow node', () => {
  it('prints the child workflow’s progress nested under the node, and its teacher’s intervention', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    new WorkflowStore(data).save(summarize as Parameters<WorkflowStore['save']>[0]);
    const { code, stdout } = await cli(['run', parentFile(dir), '--input', 'notes=Release moved.'], data);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const at = (text: string) => lines.findIndex((l) => l === text);
    expect(at('  ▸ Summary running')).toBeGreaterThan(0);
    const runs = lines.findIndex((l) => /^ {4}↳ sum runs workflow Summarize \(run [0-9a-f-]+:sum\)$/.test(l));
    expect(runs).toBeGreaterThan(at('  ▸ Summary running'));
    // The child's own nodes, one level deeper, by their labels.
    expect(at('      ▸ Writer running')).toBeGreaterThan(runs);
    expect(at('      ✓ Writer done')).toBeGreaterThan(at('      ▸ Writer running'));
    expect(at('    ↳ workflow summarize completed · 1 intervention')).toBeGreaterThan(at('      ✓ Writer done'));
    expect(at('      ⛨ writer: the teacher replaced round 1: Name the slip.')).toBeGreaterThan(at('    ↳ workflow summarize completed · 1 intervention'));
    expect(at('  ✓ Summary done')).toBeGreaterThan(at('      ⛨ writer: the teacher replaced round 1: Name the slip.'));
    expect(stdout).toContain('digest: The release slips a week.');
  });

  it('--json lists the child run under the node, with its interventions', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    new WorkflowStore(data).save(summarize as Parameters<WorkflowStore['save']>[0]);
    const { code, stdout } = await cli(['run', parentFile(dir), '--input', 'notes=Release moved.', '--json'], data);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { status: string; children: Array<Record<string, unknown>> };
    expect(result.status).toBe('completed');
    expect(result.children).toEqual([
      expect.objectContaining({ invocation_id: 'sum', workflow_id: 'summarize', status: 'completed', interventions: [{ by: 'teacher', node: 'writer', action: 'replace', text: 'the teacher replaced round 1: Name the slip.' }] }),
    ]);
  });

  it('steward validate refuses a workflow that contains itself, in words', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    const self = { ...summarize, id: 'digest', name: 'Digest' };
    new WorkflowStore(data).save(self as Parameters<WorkflowStore['save']>[0]);
    const { code, stdout, stderr } = await cli(['validate', parentFile(dir, 'digest')], data);
    expect(code).not.toBe(0);
    expect(`${stdout}${stderr}`).toContain('node sum: runs this workflow itself: a workflow cannot contain itself');
  });
});
