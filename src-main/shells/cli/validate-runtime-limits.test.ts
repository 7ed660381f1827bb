import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../test-support/workspace';
import { EXIT, runCli } from './cli';

/** Issue 29: `steward validate` refuses out-of-range Runtime limits (agent file and a workflow's agent node) in words. */

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function copyOf(name: string, sandbox: string, edit: (doc: Record<string, unknown> & { nodes?: Array<Record<string, unknown>> }) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-limits-'));
  dirs.push(dir);
  cpSync(join(EXAMPLES, sandbox), join(dir, sandbox), { recursive: true });
  for (const side of ['notes-assistant.script.json']) cpSync(join(EXAMPLES, side), join(dir, side));
  const doc = JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8'));
  edit(doc);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

async function validate(file: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['validate', file], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: join(file, '..', 'data') } });
  return { code, stdout, stderr };
}

describe('steward validate: the Runtime limits', () => {
  it('an agent file with a round limit, decision timeout and reply bound out of range is refused, each in words', async () => {
    const file = copyOf('notes-assistant.json', 'notes-sandbox', (doc) => {
      doc.limits = { max_rounds: 0, decision_timeout_ms: 100, max_output_tokens: 99_999 };
    });
    const { code, stderr } = await validate(file);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain('the round limit is a whole number of rounds from 1 to 200');
    expect(stderr).toContain('the decision timeout is from 1 to 600 seconds, in whole milliseconds');
    expect(stderr).toContain('the model reply bound is from 256 to 32,768 output tokens');
    expect(stderr).not.toMatch(/Too (small|big)|Invalid input/);
  });

  it('in range, the same file is valid', async () => {
    const file = copyOf('notes-assistant.json', 'notes-sandbox', (doc) => {
      doc.limits = { max_rounds: 3, decision_timeout_ms: 30_000, max_output_tokens: 2048 };
    });
    const { code, stderr } = await validate(file);
    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
  });

  it('a workflow’s agent node with a decision timeout out of range is refused in words, naming the node', async () => {
    const file = copyOf('folder-triage.workflow.json', 'triage-sandbox', (doc) => {
      const agent = doc.nodes?.find((n) => n.kind === 'agent');
      if (!agent) throw new Error('the example has no agent node');
      agent.limits = { decision_timeout_ms: 999_999 };
    });
    const { code, stderr } = await validate(file);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain('the decision timeout is from 1 to 600 seconds, in whole milliseconds');
  });
});
