import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunResult } from '@shared/contracts/run-result';
import { EXAMPLES } from '../../../test-support/workspace';
import { tempFolder } from '../../../test-support/temp-folder';
import { EXIT, runCli } from './cli';

/** Issue 10, "Terminal and first start": what a new user meets at the terminal. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});
const tempDir = () => tempFolder('steward-first-start-', cleanups);

async function steward(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

/** A command that keeps its data in a temp folder. */
const cli = (argv: string[], dataDir = join(tempDir(), 'data')) => steward([...argv, '--data-dir', dataDir]);

/** The notes assistant example as a file of the user's own, edited, with its script inlined at no latency. */
function ownNotesSpec(dir: string, edit: (spec: Record<string, unknown>) => void): string {
  const spec = JSON.parse(readFileSync(join(EXAMPLES, 'notes-assistant.json'), 'utf8')) as Record<string, unknown>;
  spec.script = { ...(JSON.parse(readFileSync(join(EXAMPLES, 'notes-assistant.script.json'), 'utf8')) as object), latency_ms: 0 };
  delete spec.script_file;
  edit(spec);
  const file = join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

describe('steward at the terminal, as a new user meets it', () => {
  it('steward run --help and steward dry-run --help print that command\'s usage and exit 0, with no error', async () => {
    for (const command of ['run', 'dry-run']) {
      const { code, stdout, stderr } = await steward([command, '--help']);
      expect(code, command).toBe(EXIT.ok);
      expect(stderr).toBe('');
      expect(stdout).toMatch(new RegExp(`^Usage:\\n {2}steward ${command} `));
      expect(stdout).toContain(`\n  ${command} `);
      expect(stdout).toContain('Exit codes: 0 completed');
      expect(stdout).not.toContain('steward validate');
    }
  });

  it('steward dry-run runs a shipped example with no tool executing: every execution says so, the run is marked dry, nothing is written', async () => {
    const data = join(tempDir(), 'data');
    const { code, stdout, stderr } = await cli(['dry-run', join(EXAMPLES, 'notes-assistant.json'), '--json'], data);
    expect(code, stderr).toBe(EXIT.ok);
    const result = RunResult.parse(JSON.parse(stdout));
    expect(result.dry_run).toBe(true);
    expect(result.executions.length).toBeGreaterThan(0);
    for (const e of result.executions) expect(e.content).toMatch(/^\(dry run: fs\/\w+ was not executed\)$/);
    expect(() => readFileSync(join(data, 'demo', 'notes-assistant', 'notes-sandbox', 'summary.md'))).toThrow();

    // Its lines say the same: no call reads "executed", and the summary counts calls not run.
    const lines = await cli(['dry-run', join(EXAMPLES, 'notes-assistant.json')], data);
    expect(lines.code, lines.stderr).toBe(EXIT.ok);
    expect(lines.stdout).not.toMatch(/→.* executed$/m);
    expect(lines.stdout.match(/→.* would have executed \(dry run: not run\)$/gm)).toHaveLength(result.executions.length);
    expect(lines.stdout).toContain(`completed · ${result.rounds.length} round(s) · ${result.executions.length} tool call(s) not run (dry run)\n`);
  }, 120_000);

  it('steward dry-run of a workflow says it takes an agent spec and how to replay a workflow dry; exit 2', async () => {
    const { code, stderr } = await cli(['dry-run', join(EXAMPLES, 'folder-triage.workflow.json')]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain('dry-run takes an agent spec');
    expect(stderr).toContain('steward replay RUN_ID');
  });

  it('a phase out of range is refused with the allowed range, by validate and by run', async () => {
    const file = ownNotesSpec(tempDir(), (spec) => ((spec.supervision as { phase: number }).phase = 7));
    for (const command of ['validate', 'run']) {
      const { code, stderr } = await (command === 'validate' ? steward([command, file]) : cli([command, file]));
      expect(code, command).toBe(EXIT.badInput);
      expect(stderr).toContain('supervision.phase: a phase is 0–4 (0 teacher only, 1 shadow, 2 student fully gated, 3 risk-gated, 4 autonomous)');
    }
  });

  it('a JSON mistake is placed by line and column', async () => {
    const dir = tempDir();
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{\n  "format": "steward/v1",\n  "kind": "agent"\n  "id": "x"\n}\n');
    const { code, stderr } = await cli(['run', file]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain(`spec file ${file} is not valid JSON at line 4, column 3`);
  });

  it('a workspace folder that does not exist is named before any server starts, by run and by validate; a file in its place is said to be one', async () => {
    const dir = tempDir();
    const missing = join(dir, 'nope');
    const file = ownNotesSpec(dir, (spec) => (spec.workspace = './nope'));
    const run = await cli(['run', file]);
    expect(run.code).toBe(EXIT.badInput);
    expect(run.stderr).toBe(`steward: the workspace folder ${missing} (the "workspace" of ${file}) does not exist: create it, or point "workspace" at a folder that does\n`);
    expect(run.stdout).toBe('');
    const { code, stderr } = await steward(['validate', file]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain(`the workspace folder ${missing} (the "workspace" of ${file}) does not exist`);
    expect(stderr).not.toContain('MCP server');

    writeFileSync(missing, 'a file');
    expect((await cli(['run', file])).stderr).toContain(`the workspace ${missing} (the "workspace" of ${file}) is a file, not a folder`);
    rmSync(missing);
    mkdirSync(missing);
    writeFileSync(join(missing, 'meeting-notes.md'), '# notes\n');
    const fixed = await cli(['run', file, '--json']);
    expect(fixed.code, fixed.stderr).toBe(EXIT.ok);
  }, 120_000);
});
