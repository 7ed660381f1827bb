import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { cliOn } from '../../../test-support/cli-capture';
import { hostedEcho } from '../../../test-support/echo-workflow';
import { tempFolder } from '../../../test-support/temp-folder';
import { EXIT } from './cli';

/**
 * The CLI says what the app says (issue 28): items numbered from 1 as the app's nodes list and
 * supervision feed number them, a run supervised by the person says so and never reads "no
 * intervention" while it waits for their verdict, a verdict given with steward answer ends as the
 * app shows it, and a file whose id is also a stored workflow's says which one ran. Commands run
 * through the CLI's entry as a person types them, on the real filesystem MCP server.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const tempDir = () => tempFolder('steward-cli-app-', cleanups);

/** Reads each listed file; a missing one fails its item. `supervisor`: the document's own settings (none: a person supervises with --supervise). */
function readEach(dir: string, supervisor?: Record<string, unknown>): string {
  writeFileSync(join(dir, 'a.md'), 'alpha');
  writeFileSync(join(dir, 'c.md'), 'gamma');
  const file = join(dir, 'read-each.workflow.json');
  const edge = (f: string, fp: string, t: string, tp: string) => ({ from: { node: f, port: fp }, to: { node: t, port: tp } });
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'read-each',
      name: 'Read each',
      workspace: '.',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      ...(supervisor ? { supervisor } : {}),
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'files', type: 'list' }] },
        { id: 'each', kind: 'iterate', concurrency: 1 },
        { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
        { id: 'all', kind: 'collect' },
        { id: 'out', kind: 'output', fields: [{ name: 'texts', type: 'list' }] },
      ],
      edges: [edge('in', 'files', 'each', 'list'), edge('each', 'item', 'read', 'path'), edge('read', 'text', 'all', 'item'), edge('all', 'list', 'out', 'texts')],
    }),
  );
  return file;
}

const files = (dir: string) => JSON.stringify(['a.md', 'b-missing.md', 'c.md'].map((f) => join(dir, f)));

describe('the CLI and the app agree', () => {
  it('items are numbered as the app numbers them: the second item is "read · item 2", never read[each=1]', async () => {
    const dir = tempDir();
    const { stdout } = await cliOn(join(dir, 'data'), ['run', readEach(dir), '--input', `files=${files(dir)}`]);
    expect(stdout).toContain('  ✓ read · item 1 done');
    expect(stdout).toContain('  ✗ read · item 2 failed: ');
    expect(stdout).not.toMatch(/\[each=\d\]/);
  }, 120_000);

  it('--supervise with no supervisor model: it says you decide, the summary says a verdict is awaited; steward answer --verdict skip ends "completed — supervised" with the ⛨ summary', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    const run = await cliOn(data, ['run', readEach(dir), '--input', `files=${files(dir)}`, '--supervise']);
    expect(run.stderr).toContain('⛨ supervisor: you (no supervisor model is set) — a node that still fails after its own retries waits for your verdict; the run waits for you: answer with steward answer RUN_ID --verdict …, or in the app (Waiting for you)');
    expect(run.code).toBe(EXIT.waiting);
    expect(run.stderr).toContain('⛨ read · item 2 escalated: ');
    expect(run.stderr).toContain('⛨ supervised: 1 waiting for your verdict (read · item 2) · 0 decision(s) · $0.0000');
    expect(run.stderr).not.toContain('no intervention');
    const runId = /the run (\S+) waits/.exec(run.stdout)?.[1] ?? '';
    expect(run.stdout).toContain(`steward answer ${runId} --verdict skip --reason 'WHY'`);

    const answered = await cliOn(data, ['answer', runId, '--verdict', 'skip', '--reason', 'the file is not there']);
    expect(answered.code).toBe(EXIT.ok);
    expect(answered.stderr).toContain('⛨ read · item 2 → skip (decided by the supervisor): the file is not there');
    expect(answered.stderr).toContain('⛨ supervised: 1 skipped (read · item 2) · ');
    expect(answered.stdout).toMatch(/^completed — supervised · /m);
  }, 120_000);

  it('steward run FILE whose id the data folder also stores says, in one sentence, that the file is what runs', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    // The app's stored "echo", and a file of the same id that says something else.
    const stored = join(dir, 'stored.json');
    writeFileSync(stored, JSON.stringify(hostedEcho('echo')));
    expect((await cliOn(data, ['workflows', 'import', stored])).code).toBe(EXIT.ok);
    const file = join(dir, 'echo.workflow.json');
    writeFileSync(file, JSON.stringify(hostedEcho('echo', { name: 'Echo from the file' })));
    const run = await cliOn(data, ['run', file, '--input', 'name=Ada']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.split('\n')).toContain(`steward: this runs the file ${file}; the data folder also stores a workflow with its id "echo" (Echo echo), which is not the one running (steward run echo runs that one)`);
    expect(run.stdout).toContain('steward · workflow Echo from the file');
    // Run by its id, the stored one runs, and nothing is said.
    const byId = await cliOn(data, ['run', 'echo', '--input', 'name=Ada']);
    expect(byId.stdout).toContain('steward · workflow Echo echo');
    expect(byId.stderr).not.toContain('this runs the file');
  }, 120_000);
});
