import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helpdeskWorkflow } from '../../../test-support/helpdesk-workflow';
import { runCli } from './cli';

// Reroute routes on the terminal: the agent node's progress line names the route it took and who
// chose it, as the app's nodes list does. The model is the one test double (the node's script).

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

function helpdeskFile(): { file: string; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-route-line-'));
  dirs.push(dir);
  const file = join(dir, 'helpdesk.workflow.json');
  writeFileSync(file, JSON.stringify(helpdeskWorkflow()));
  return { file, dataDir: join(dir, 'data') };
}

describe('steward run with an agent that takes a route', () => {
  it("the agent node's line names the route and who chose it; the other route's node says it was not taken", async () => {
    const { file, dataDir } = helpdeskFile();
    let stdout = '';
    const code = await runCli(['run', file, '--input', 'request=I cannot log in', '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: () => undefined, env: {} });
    expect(code).toBe(0);
    expect(stdout).toContain('  ✓ triage done → support (chosen by the student)\n');
    expect(stdout).toMatch(/^ {2}– bill_note skipped: triage took route support, not billing$/m);
    expect(stdout).toMatch(/^ {2}✓ help_note done$/m);
  });
});
