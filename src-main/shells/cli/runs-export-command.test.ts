import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { parentFile, summarize } from '../../../test-support/digest-workflows';
import { cliWith, forwardedWith } from '../../../test-support/cli-capture';
import { maskingProbeSpec } from '../../../test-support/masking-probe';
import { openTestHost } from '../../../test-support/host-session';
import { tempFolder } from '../../../test-support/temp-folder';
import { tempNotesSpec, tempNotesWorkspace } from '../../../test-support/workspace';
import { WorkflowStore } from '../../workflow/workflow-store';
import { EXIT } from './cli';

/**
 * `steward runs export` (issue 26: the history from a terminal): runs out of the data folder's history as
 * the app's Export JSONL writes them, which `steward runs import` takes back whole. The models are the
 * replay script (the scripted model double); the notes demo's filesystem server is the real one.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const tempDir = () => tempFolder('steward-runs-export-', cleanups);
const cli = (argv: string[], dataDir: string) => cliWith([...argv, '--data-dir', dataDir]);
const RUN_ID_LINE = /^run id (\S+) \(steward runs show \S{8}\)$/m;

/** A data folder with the notes demo's run and a workflow run with a child run, both really run by `steward run`. */
async function folderWithRuns(): Promise<{ dataDir: string; notes: string; digest: string }> {
  const dir = tempDir();
  const dataDir = join(dir, 'data');
  const spec = tempNotesSpec();
  cleanups.push(spec.cleanup);
  const notes = await cli(['run', spec.file], dataDir);
  expect(notes.code, notes.stderr).toBe(EXIT.ok);
  new WorkflowStore(dataDir).save(summarize as Parameters<WorkflowStore['save']>[0]);
  const digest = await cli(['run', parentFile(dir), '--input', 'notes=Release moved.'], dataDir);
  expect(digest.code, digest.stderr).toBe(EXIT.ok);
  return { dataDir, notes: RUN_ID_LINE.exec(notes.stdout)?.[1] ?? '', digest: RUN_ID_LINE.exec(digest.stdout)?.[1] ?? '' };
}

/** What `runs show --json` says of a run: its row and its events as stored. */
async function shown(dataDir: string, runId: string): Promise<{ run: Record<string, unknown>; imported: boolean; events: RunEvent[] }> {
  const out = await cli(['runs', 'show', runId, '--json'], dataDir);
  expect(out.code, out.stderr).toBe(EXIT.ok);
  return JSON.parse(out.stdout) as { run: Record<string, unknown>; imported: boolean; events: RunEvent[] };
}

const lineRunIds = (text: string) => [...new Set(text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { run_id: string }).run_id))];

describe('steward runs export', () => {
  it('writes runs as the app exports them, child runs with their parent; delete then import of the file restores every event and the run as it was', async () => {
    const { dataDir, notes, digest } = await folderWithRuns();
    const child = `${digest}:sum`;
    const before = await Promise.all([notes, digest, child].map((id) => shown(dataDir, id)));

    const file = join(tempDir(), 'runs.jsonl');
    const out = await cli(['runs', 'export', notes.slice(0, 8), digest.slice(0, 8), '-o', file], dataDir);
    expect(out).toMatchObject({ code: EXIT.ok, stderr: '' });
    const events = before.reduce((n, s) => n + s.events.length, 0);
    expect(out.stdout).toBe(`exported 2 runs and 1 child run of them (${events} events) to ${file}\n`);
    const text = readFileSync(file, 'utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(events);
    // The oldest run first, each run's events together; a parent before the run it started.
    expect(lineRunIds(text)).toEqual([notes, digest, child]);
    // Nothing left behind beside the file (its temporary sibling was renamed).
    expect(readdirSync(join(file, '..'))).toEqual(['runs.jsonl']);

    expect((await cli(['runs', 'delete', notes, digest], dataDir)).stdout).toBe('deleted 2 runs and 1 child run of them\n');
    const imported = await cli(['runs', 'import', file], dataDir);
    expect(imported.code, imported.stderr).toBe(EXIT.ok);
    expect(imported.stdout).toBe(`imported ${events} events of 3 runs\n`);
    const after = await Promise.all([notes, digest, child].map((id) => shown(dataDir, id)));
    for (const [i, was] of before.entries()) {
      expect(after[i]?.events).toEqual(was.events);
      // The same run, now marked imported: its workflow, models, status, rounds and counts as before.
      expect(after[i]?.run).toEqual(was.run);
      expect([was.imported, after[i]?.imported]).toEqual([false, true]);
    }
    // A second import changes nothing.
    expect((await cli(['runs', 'import', file], dataDir)).stdout).toBe(`imported 0 events of 3 runs; ${events} events already there unchanged\n`);
  });

  it('--without-children leaves the child runs out; -o - writes the trace to standard output and says what it wrote on standard error', async () => {
    const { dataDir, digest } = await folderWithRuns();
    const alone = await cli(['runs', 'export', digest, '--without-children', '-o', '-'], dataDir);
    expect(alone.code, alone.stderr).toBe(EXIT.ok);
    expect(lineRunIds(alone.stdout)).toEqual([digest]);
    const { events } = await shown(dataDir, digest);
    expect(alone.stderr).toBe(`exported 1 run (${events.length} events) to standard output\n`);
    // Each line is the trace format `steward run --trace` writes: the same lines the run's own trace file would hold.
    const first = JSON.parse(alone.stdout.split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ trace_format: 2, type: 'workflow.started', run_id: digest, seq: 0 });
  });

  it('a RUN_ID that names no run, or several, exports nothing and says which; a file it cannot write is said in words', async () => {
    const { dataDir, notes } = await folderWithRuns();
    const file = join(tempDir(), 'runs.jsonl');
    const missing = await cli(['runs', 'export', notes, 'deadbeef-0000', '-o', file], dataDir);
    expect(missing).toMatchObject({ code: EXIT.runNotCompleted, stdout: '' });
    expect(missing.stderr).toContain('no run "deadbeef-0000" in this data folder\'s history');
    expect(missing.stderr).toContain('nothing was exported');
    expect(existsSync(file)).toBe(false);

    // Two imported runs whose ids start alike: their shared start names neither.
    const trace = join(tempDir(), 'alike.jsonl');
    const started = (runId: string) => ({ type: 'run.started', id: `${runId}:0`, run_id: runId, seq: 0, ts: '2025-01-02T10:00:00.000Z', spec_id: 's', spec_name: 'Filed', task: 'Tidy', supervision: { enabled: false }, models: { student: 's', teacher: 't' } });
    writeFileSync(trace, [started('cafe0000-0001'), started('cafe0000-0002')].map((e) => JSON.stringify(e)).join('\n'));
    expect((await cli(['runs', 'import', trace], dataDir)).code).toBe(EXIT.ok);
    const ambiguous = await cli(['runs', 'export', 'cafe0000', '-o', file], dataDir);
    expect(ambiguous.code).toBe(EXIT.badInput);
    expect(ambiguous.stderr).toContain('cafe0000-0001');
    expect(existsSync(file)).toBe(false);

    const nowhere = await cli(['runs', 'export', notes, '-o', join(tempDir(), 'no', 'such', 'folder.jsonl')], dataDir);
    expect(nowhere).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('its folder does not exist; nothing was exported') });
    expect(await cli(['runs', 'export', notes], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('-o FILE.jsonl is required') });
    expect(await cli(['runs', 'export', '-o', file], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('which runs?') });
    expect(await cli(['runs', 'export', notes, '-o', file], join(tempDir(), 'missing'))).toMatchObject({ code: EXIT.runNotCompleted, stderr: expect.stringContaining('there is no data folder at') });
  });

  it('a run still waiting for a person is exported with the events it has, and the summary says so', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const spec = join(ws.dir, 'asks.json');
    writeFileSync(spec, JSON.stringify({ ...askingSpecInput(), script: { latency_ms: 0, student: [{ json: { decision_type: 'ask_user', question: 'Which note?' } }], teacher: [] } }));
    const dataDir = join(tempDir(), 'data');
    const run = await cli(['run', spec], dataDir);
    expect(run.code, run.stderr).toBe(EXIT.waiting);
    const runId = /steward answer (\S+) /.exec(run.stdout + run.stderr)?.[1] ?? '';
    expect(runId).not.toBe('');
    const file = join(tempDir(), 'waiting.jsonl');
    const out = await cli(['runs', 'export', runId, '-o', file], dataDir);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    expect(out.stdout).toContain(`run ${runId.slice(0, 8)} is waiting for a person: the file holds its events so far (an import closes it as imported unfinished)`);
    expect(readFileSync(file, 'utf8')).not.toContain('"run.finished"');
  });

  it('a sensitive argument\'s value never reaches the exported file (a planted value the tool really wrote)', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const secret = `Kestrel ${randomBytes(12).toString('hex')}`;
    const write = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'quetzal-report.md', content: secret } };
    const script = {
      latency_ms: 0,
      student: [{ json: write }, { json: { decision_type: 'complete', output: 'Wrote the report.' } }],
      teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Inside the workspace.' } }, { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } }],
    };
    const spec = join(ws.dir, 'probe.json');
    writeFileSync(spec, JSON.stringify({ ...maskingProbeSpec(), script }));
    const dataDir = join(tempDir(), 'data');
    const run = await cli(['run', spec], dataDir);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    // The tool got the real value.
    expect(readFileSync(join(ws.workspace, 'quetzal-report.md'), 'utf8')).toBe(secret);
    const runId = RUN_ID_LINE.exec(run.stdout)?.[1] ?? '';
    const file = join(tempDir(), 'probe.jsonl');
    expect((await cli(['runs', 'export', runId, '-o', file], dataDir)).code).toBe(EXIT.ok);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('quetzal-report.md');
    expect(text).not.toContain(secret.split(' ')[1]);
  });

  it('while the app runs, it exports from its own history, the same file as with no app', async () => {
    const { dataDir, notes, digest } = await folderWithRuns();
    const dir = tempDir();
    const alone = await cli(['runs', 'export', notes.slice(0, 8), digest, '-o', join(dir, 'alone.jsonl')], dataDir);
    expect(alone.code, alone.stderr).toBe(EXIT.ok);

    await openTestHost(dataDir, cleanups);
    const handed = await forwardedWith(['runs', 'export', notes.slice(0, 8), digest, '-o', join(dir, 'handed.jsonl')], dataDir);
    expect(handed.code, handed.stderr).toBe(EXIT.ok);
    expect(handed.stdout).toBe(alone.stdout.replace('alone.jsonl', 'handed.jsonl'));
    expect(readFileSync(join(dir, 'handed.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'alone.jsonl'), 'utf8'));
  });
});
