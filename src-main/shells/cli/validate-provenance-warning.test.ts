import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../test-support/workspace';
import { EXIT, runCli } from './cli';

/**
 * Issue 31: `steward validate` warns — in words, not as an error — when an agent (a file, or a
 * workflow's agent node) runs at phase 4 with the untrusted-provenance review rule turned off.
 */

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

type Doc = Record<string, unknown> & { nodes?: Array<Record<string, unknown>> };

function copyOf(name: string, sandbox: string, sides: string[], edit: (doc: Doc) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-provwarn-'));
  dirs.push(dir);
  cpSync(join(EXAMPLES, sandbox), join(dir, sandbox), { recursive: true });
  for (const side of sides) cpSync(join(EXAMPLES, side), join(dir, side));
  const doc = JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8')) as Doc;
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

const supervision = (rule: boolean | undefined) => ({ enabled: true, phase: 4, rules: rule === undefined ? {} : { untrusted_provenance: rule } });

describe('steward validate: the untrusted-provenance rule off at phase 4', () => {
  it('an agent file at phase 4 with the rule off is valid, with a warning that says what could happen and how to turn it back on', async () => {
    const file = copyOf('notes-assistant.json', 'notes-sandbox', ['notes-assistant.script.json'], (doc) => {
      doc.supervision = supervision(false);
    });
    const { code, stdout, stderr } = await validate(file);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/valid: .*notes-assistant\.json \(1 warning, above\)/);
    expect(stderr).toMatch(/^warning: The agent .* runs at phase 4 \(Autonomous\) with the review rule "an argument carries a value from an untrusted tool result" turned off/);
    expect(stderr).toContain('a call the student copies them into then runs with no review at all');
    expect(stderr).toContain('remove "untrusted_provenance": false from supervision.rules');

    // The rule on (absent means on): no warning.
    const on = copyOf('notes-assistant.json', 'notes-sandbox', ['notes-assistant.script.json'], (doc) => {
      doc.supervision = supervision(undefined);
    });
    const quiet = await validate(on);
    expect(quiet.code).toBe(EXIT.ok);
    expect(quiet.stderr).toBe('');
  }, 60_000);

  it('a workflow’s agent node at phase 4 with the rule off is named in the warning', async () => {
    const file = copyOf('folder-triage.workflow.json', 'triage-sandbox', [], (doc) => {
      const agent = doc.nodes?.find((n) => n.kind === 'agent');
      if (!agent) throw new Error('the example has no agent node');
      agent.supervision = supervision(false);
    });
    const { code, stderr } = await validate(file);
    expect(stderr).toMatch(/warning: The agent node .* runs at phase 4 \(Autonomous\)/);
    expect(code).toBe(EXIT.ok);
  }, 60_000);
});
