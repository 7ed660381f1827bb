import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../test-support/workspace';
import { tempFolder } from '../../../test-support/temp-folder';
import { EXIT, runCli } from './cli';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});
const tempDir = () => tempFolder('steward-example-copy-', cleanups);

/** Every file below `dir`, by relative path, with its bytes (base64) and modification time: equal snapshots are untouched folders. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path)] = `${statSync(path).mtimeMs} ${readFileSync(path).toString('base64')}`;
  }
  return files;
}

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

describe('steward run of a shipped example', () => {
  it('a copy made by an older version (the streaming chain without its document/ chunks) gets the shipped files it lacks, and what a run wrote there stays', async () => {
    const data = join(tempDir(), 'data');
    const copy = join(data, 'demo', 'streaming-chain', 'streaming-sandbox');
    mkdirSync(copy, { recursive: true });
    writeFileSync(join(copy, 'README.md'), 'an older README, edited');
    writeFileSync(join(copy, 'chunk-9.json'), '{"kept": true}');

    const run = await cli(['run', join(EXAMPLES, 'streaming-chain.workflow.json'), '--json'], data);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
    expect(readdirSync(join(copy, 'document')).sort()).toEqual(readdirSync(join(EXAMPLES, 'streaming-sandbox', 'document')).sort());
    // Nothing there was overwritten.
    expect(readFileSync(join(copy, 'README.md'), 'utf8')).toBe('an older README, edited');
    expect(readFileSync(join(copy, 'chunk-9.json'), 'utf8')).toBe('{"kept": true}');
  }, 120_000);

  it('an agent spec (notes assistant) writes summary.md into its copy in the data folder, the repository sandbox stays byte-for-byte the same, and the next run reuses the copy', async () => {
    const sandbox = join(EXAMPLES, 'notes-sandbox');
    const before = snapshot(sandbox);
    const data = join(tempDir(), 'data');
    const copy = join(data, 'demo', 'notes-assistant', 'notes-sandbox');

    const first = await cli(['run', join(EXAMPLES, 'notes-assistant.json')], data);
    expect(first.code, first.stderr).toBe(EXIT.ok);
    expect(snapshot(sandbox)).toEqual(before);
    expect(first.stderr).toContain(`steward: notes-assistant is a shipped example: it works on a copy of notes-sandbox made in the data folder, ${copy}`);
    expect(readFileSync(join(copy, 'summary.md'), 'utf8')).toMatch(/Action items/i);
    expect(readFileSync(join(copy, 'meeting-notes.md'))).toEqual(readFileSync(join(sandbox, 'meeting-notes.md')));

    // The copy is the app's demo copy: kept, with what runs wrote, until the person deletes it.
    writeFileSync(join(copy, 'kept.md'), 'mine');
    const second = await cli(['run', join(EXAMPLES, 'notes-assistant.json'), '--json'], data);
    expect(second.code, second.stderr).toBe(EXIT.ok);
    expect(second.stderr).toContain(`its copy of notes-sandbox in the data folder, ${copy}, as earlier runs left it (delete that folder for a fresh copy)`);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(copy, 'kept.md'), 'utf8')).toBe('mine');
    expect(snapshot(sandbox)).toEqual(before);
  }, 120_000);

  it('a workflow document (folder triage) writes its report into its copy in the data folder; the repository sandbox stays byte-for-byte the same', async () => {
    const sandbox = join(EXAMPLES, 'triage-sandbox');
    const before = snapshot(sandbox);
    const data = join(tempDir(), 'data');
    const copy = join(data, 'demo', 'folder-triage', 'triage-sandbox');

    const { code, stdout, stderr } = await cli(['run', join(EXAMPLES, 'folder-triage.workflow.json')], data);
    expect(code, stderr).toBe(EXIT.ok);
    expect(snapshot(sandbox)).toEqual(before);
    expect(stderr).toBe(`steward: folder-triage is a shipped example: it works on a copy of triage-sandbox made in the data folder, ${copy} (later runs reuse it; the shipped folder is never written)\n`);
    expect(stdout).toContain('  ✓ Write the report (reviewed) done');
    expect(readFileSync(join(copy, 'triage-report.md'), 'utf8')).toContain('# Folder triage');
  }, 120_000);

  it('a live replay of that run with --spec on the shipped file executes on the same copy, with no differences, and the repository sandbox stays the same', async () => {
    const sandbox = join(EXAMPLES, 'notes-sandbox');
    const before = snapshot(sandbox);
    const dir = tempDir();
    const data = join(dir, 'data');
    const trace = join(dir, 'run.jsonl');
    const example = join(EXAMPLES, 'notes-assistant.json');
    expect((await cli(['run', example, '--trace', trace], data)).code).toBe(EXIT.ok);
    const replay = await cli(['replay', trace, '--spec', example, '--live', '--yes'], data);
    expect(replay.code, replay.stderr + replay.stdout).toBe(EXIT.ok);
    expect(snapshot(sandbox)).toEqual(before);
    expect(replay.stderr).toContain(`its copy of notes-sandbox in the data folder, ${join(data, 'demo', 'notes-assistant', 'notes-sandbox')}`);
    expect(replay.stdout).toContain('live tools');
  }, 120_000);

  it('a spec outside the examples folder keeps its own workspace: no copy, no notice', async () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    const own = join(dir, 'mine');
    const spec = JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'triage.workflow.json'), JSON.stringify({ ...spec, workspace: './mine' }));
    cpSync(join(EXAMPLES, 'triage-sandbox'), own, { recursive: true });
    const { code, stderr } = await cli(['run', join(dir, 'triage.workflow.json')], data);
    expect(code, stderr).toBe(EXIT.ok);
    expect(stderr).toBe('');
    expect(readFileSync(join(own, 'triage-report.md'), 'utf8')).toContain('# Folder triage');
    expect(() => readdirSync(join(data, 'demo'))).toThrow();
  }, 120_000);
});
