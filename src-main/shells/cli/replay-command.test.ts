import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPage } from '../../../test-support/host-session';
import { tempNotesSpec } from '../../../test-support/workspace';
import { readTraceFile } from '../../../test-support/trace-file';
import { journalEvents } from '../../../test-support/cli-capture';
import { createHost } from '../../composition/create-host';
import { EXIT, runCli } from './cli';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** The notes demo spec with its script inline, in a temp folder with its own sandbox. */
function notesSpec(): { file: string; workspace: string; dataDir: string } {
  const s = tempNotesSpec();
  cleanups.push(s.cleanup);
  return s;
}

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: dataDir } });
  return { code, stdout, stderr };
}

const traceEvents = (path: string) => readTraceFile(path);

describe('steward replay', () => {
  it('replays a --trace file dry with its spec: prints the rounds like steward run, then "no differences"; --json gives the differences and the replayed run id', async () => {
    const s = notesSpec();
    const trace = join(s.dataDir, '..', 'run.jsonl');
    expect((await cli(['run', s.file, '--trace', trace], s.dataDir)).code).toBe(EXIT.ok);
    const summary = join(s.workspace, 'summary.md');
    rmSync(summary);

    const replay = await cli(['replay', trace, '--spec', s.file], s.dataDir);
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(EXIT.ok);
    const recordedId = traceEvents(trace)[0]?.run_id;
    expect(replay.stdout).toContain(`steward · replay of ${recordedId} · dry run (no tool executes)`);
    expect(replay.stdout).toMatch(/round 2 +student → read_text_file/);
    expect(replay.stdout).toMatch(/completed · 4 round\(s\) · 3 tool call\(s\)/);
    expect(replay.stdout).toContain('differences from the recorded run: none (4 rounds, the same decisions)');
    // Dry: the summary the recorded run wrote is not written again.
    expect(() => readFileSync(summary)).toThrow();

    const json = await cli(['replay', trace, '--spec', s.file, '--json', '--live'], s.dataDir);
    expect(json.code).toBe(EXIT.ok);
    const out = JSON.parse(json.stdout) as { status: string; replay_of: string; dry_run: boolean; differences: unknown[]; gaps: string[] };
    expect(out).toMatchObject({ status: 'completed', replay_of: recordedId, dry_run: false, differences: [], gaps: [] });
    // Live: the recorded write ran again.
    expect(readFileSync(summary, 'utf8')).toContain('Action items');
    // A replay is a run of the data folder too: in its history, marked as the replay of the original.
    const replayId = (JSON.parse(json.stdout) as { run_id: string }).run_id;
    expect(journalEvents(s.dataDir).find((e) => e.run_id === replayId && e.type === 'run.started')).toMatchObject({ replay_of: recordedId });
  }, 60_000);

  it('lists where the replay decides otherwise, round by round, and exits 1', async () => {
    const s = notesSpec();
    const trace = join(s.dataDir, '..', 'run.jsonl');
    expect((await cli(['run', s.file, '--trace', trace], s.dataDir)).code).toBe(EXIT.ok);
    // The teacher's verdict on round 3 (index 2, a replacement) now blocks: what the recorded run did is edited, as a changed model would say it.
    const events = traceEvents(trace).map((e) =>
      e.type === 'verdict.received' && e.round === 2 && e.attempt.reply
        ? { ...e, attempt: { ...e.attempt, reply: { ...e.attempt.reply, text: JSON.stringify({ verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'Not now.' }) } } }
        : e,
    );
    writeFileSync(trace, events.map((e) => JSON.stringify(e)).join('\n'));
    const replay = await cli(['replay', trace, '--spec', s.file], s.dataDir);
    expect(replay.code).toBe(EXIT.runNotCompleted);
    expect(replay.stdout).toMatch(/differences from the recorded run: 2 of 4 rounds/);
    expect(replay.stdout).toMatch(/round 3: .*verdict replace → block/);
    expect(replay.stdout).toMatch(/round 4: only in the recorded run \(complete, delivered\)/);
  }, 60_000);

  it('refuses live tools for a run whose answers were stored masked (the tool would get the mask), and replays it dry with a note', async () => {
    const s = notesSpec();
    const trace = join(s.dataDir, '..', 'run.jsonl');
    expect((await cli(['run', s.file, '--trace', trace], s.dataDir)).code).toBe(EXIT.ok);
    // As a sensitive argument is stored: masked, in the trace and everywhere else.
    const masked = readFileSync(trace, 'utf8').replace('Summary: release slips', '••••••: release slips');
    writeFileSync(trace, masked);
    const live = await cli(['replay', trace, '--spec', s.file, '--live'], s.dataDir);
    expect(live.code).toBe(EXIT.badInput);
    expect(live.stderr).toContain("live tools would execute what the trace stored, not what the model said (round 3: the student's proposal was stored with masked values");
    expect(live.stderr).toContain('replay it as a dry run');
    const dry = await cli(['replay', trace, '--spec', s.file], s.dataDir);
    expect(dry.code).toBe(EXIT.ok);
    expect(dry.stderr).toContain("note: round 3: the student's proposal was stored with masked values");
  }, 60_000);

  it('replays a run of the app by its id from the data folder, and says why when it cannot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-replay-cli-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const demo = (await page.ok('workspace.demo', {})).workflows.find((w) => w.id === 'guarded-writes');
    const { run_id } = await page.ok('run.start', { workflow: demo });
    await expect.poll(() => page.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), { timeout: 60_000 }).toBe(true);
    await host.close();

    const replay = await cli(['replay', run_id, '--json'], dataDir);
    expect(replay.stderr).toBe('');
    expect(JSON.parse(replay.stdout)).toMatchObject({ replay_of: run_id, dry_run: true, differences: [] });
    // By its first 8 characters, as `steward runs list` and `steward run` print it.
    const byStart = await cli(['replay', run_id.slice(0, 8), '--json'], dataDir);
    expect(byStart.stderr).toBe('');
    expect(JSON.parse(byStart.stdout)).toMatchObject({ replay_of: run_id, dry_run: true, differences: [] });

    const missing = await cli(['replay', 'no-such-run'], dataDir);
    expect(missing.code).toBe(EXIT.badInput);
    expect(missing.stderr).toContain('no events of run "no-such-run" were found');

    const elsewhere = notesSpec();
    const trace = join(elsewhere.dataDir, '..', 'run.jsonl');
    await cli(['run', elsewhere.file, '--trace', trace], elsewhere.dataDir);
    // Without --spec the demo of that id is tried: it works in another folder, so it is not that run's workflow.
    const unknown = await cli(['replay', trace], elsewhere.dataDir);
    expect(unknown.code).toBe(EXIT.badInput);
    expect(unknown.stderr).toMatch(/changed since run .*: a replay would not repeat that run \(give the spec file it ran with: --spec FILE\)/);
  }, 90_000);
});
