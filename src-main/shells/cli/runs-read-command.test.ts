import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { hostedEcho } from '../../../test-support/echo-workflow';
import { openTestHost } from '../../../test-support/host-session';
import { tempFolder } from '../../../test-support/temp-folder';
import { tempNotesSpec } from '../../../test-support/workspace';
import { EventJournal } from '../../events/event-journal';
import { forwardToHost } from '../cli-channel/channel-client';
import { EXIT, runCli } from './cli';

/** Issue 26: the data folder's history from a terminal — list, search, show — here and through a running app. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const tempDir = () => tempFolder('steward-runs-read-', cleanups);

/** `steward ARGV --data-dir DATA` in this process (no app in between). */
async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

/** The same command as the `steward` bin sends it to the app holding the data folder. */
async function forwarded(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await forwardToHost([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, cwd: process.cwd() }, dataDir);
  return { code, stdout, stderr };
}

/** An imported run as a trace file holds it; `announced` more events than the two it has when the trace was cut. */
function tracedRun(runId: string, minute: number, announced = 2): RunEvent[] {
  const ts = new Date(Date.UTC(2025, 0, 2, 10, minute)).toISOString();
  return [
    RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts, spec_id: 'imported-spec', spec_name: 'Filed elsewhere', task: 'Tidy the invoices folder', supervision: { enabled: false }, models: { student: 's', teacher: 't' } }),
    RunEvent.parse({ type: 'run.finished', id: eventId(runId, 1), run_id: runId, seq: 1, ts, status: 'failed', rounds: 0, event_count: announced, message: 'no invoices' }),
  ];
}

const RUN_ID_LINE = /^run id (\S+) \(steward runs show (\S{8})\)$/m;

/**
 * A data folder with four runs: the notes demo and an echo workflow, really run by `steward run`
 * (scripted models), and two imported ones whose ids start alike (one's trace cut short).
 */
async function folderWithRuns(): Promise<{ dataDir: string; notes: string; echo: string }> {
  const dataDir = join(tempDir(), 'data');
  const spec = tempNotesSpec();
  cleanups.push(spec.cleanup);
  const notes = await cli(['run', spec.file], dataDir);
  expect(notes.code, notes.stderr).toBe(EXIT.ok);
  // A completed run says its id last, and how to see it again.
  const notesId = RUN_ID_LINE.exec(notes.stdout)?.[1] ?? '';
  expect(notes.stdout.trimEnd().split('\n').at(-1)).toBe(`run id ${notesId} (steward runs show ${notesId.slice(0, 8)})`);

  const workflow = join(tempDir(), 'echo.workflow.json');
  writeFileSync(workflow, JSON.stringify(hostedEcho('echo-words')));
  const echo = await cli(['run', workflow, '--input', 'name=Ada'], dataDir);
  expect(echo.code, echo.stderr).toBe(EXIT.ok);
  const echoId = RUN_ID_LINE.exec(echo.stdout)?.[1] ?? '';
  expect(echo.stdout.trimEnd().split('\n').at(-1)).toBe(`run id ${echoId} (steward runs show ${echoId.slice(0, 8)})`);

  const trace = join(tempDir(), 'trace.jsonl');
  writeFileSync(trace, [...tracedRun('feedface-0001', 1), ...tracedRun('feedface-0002', 2, 5)].map((e) => JSON.stringify(e)).join('\n'));
  expect((await cli(['runs', 'import', trace], dataDir)).code).toBe(EXIT.ok);
  return { dataDir, notes: notesId, echo: echoId };
}

function storedEvents(dataDir: string, runId: string): RunEvent[] {
  const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
  try {
    return journal.runEvents(runId);
  } finally {
    journal.close();
  }
}

describe('steward runs list, search and show', () => {
  it('list: a line per run, newest first, filtered, a page at a time; --json is the history\'s page', async () => {
    const { dataDir, notes, echo } = await folderWithRuns();
    const all = await cli(['runs', 'list'], dataDir);
    expect(all).toMatchObject({ code: EXIT.ok, stderr: '' });
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    // The two runs made today come before the two imported from January 2025.
    expect(lines.slice(0, 2).map((line) => line.slice(0, 8)).sort()).toEqual([notes.slice(0, 8), echo.slice(0, 8)].sort());
    expect(lines.find((line) => line.startsWith(notes.slice(0, 8)))).toMatch(/Completed\s+Notes assistant · started \d{4}-\d\d-\d\d \d\d:\d\d · \d+ rounds? · \d+ events/);
    expect(lines.find((line) => line.startsWith(echo.slice(0, 8)))).toMatch(/Completed\s+Echo echo-words · started /);
    expect(lines[2]).toMatch(/^feedface {2}Failed\s+Filed elsewhere · started .* · 0 rounds · 2 events · imported$/);
    expect(lines[4]).toBe('4 runs · steward runs show RUN_ID (or its first 8 characters) shows one');

    const page = await cli(['runs', 'list', '--limit', '2'], dataDir);
    expect(page.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(page.stdout).toMatch(/2 runs shown, newest first; more follow: the same command with --after \S+ shows the next 2; --limit 4 shows more at once/);
    const json = JSON.parse((await cli(['runs', 'list', '--limit', '2', '--json'], dataDir)).stdout) as { runs: Array<{ run: { run_id: string; words?: unknown }; events: number; imported: boolean }>; next?: { run_id: string } };
    expect(json.runs).toHaveLength(2);
    expect(json.next?.run_id).toBe(json.runs[1]?.run.run_id);
    expect(json.runs[0]?.run).not.toHaveProperty('words');

    const failed = JSON.parse((await cli(['runs', 'list', '--status', 'failed,cancelled', '--json'], dataDir)).stdout) as typeof json;
    expect(failed.runs.map((r) => r.run.run_id)).toEqual(['feedface-0002', 'feedface-0001']);
    expect(failed.runs.every((r) => r.imported && r.events === 2)).toBe(true);
    expect(failed.next).toBeUndefined();
    const ofSpec = JSON.parse((await cli(['runs', 'list', '--workflow', 'notes-assistant', '--json'], dataDir)).stdout) as typeof json;
    expect(ofSpec.runs.map((r) => r.run.run_id)).toEqual([notes]);
    expect((await cli(['runs', 'list', '--status', 'waiting'], dataDir)).stdout).toBe('no run matches --status\n');
    // Where a run came from: an imported trace, or this machine.
    const imported = JSON.parse((await cli(['runs', 'list', '--imported', '--json'], dataDir)).stdout) as typeof json;
    expect(imported.runs.map((r) => r.run.run_id)).toEqual(['feedface-0002', 'feedface-0001']);
    const here = JSON.parse((await cli(['runs', 'list', '--ran-here', '--json'], dataDir)).stdout) as typeof json;
    expect(here.runs.map((r) => r.run.run_id).sort()).toEqual([notes, echo].sort());
    expect((await cli(['runs', 'search', 'invoices', '--ran-here'], dataDir)).stdout).toBe('no run matches "invoices"\n');
    expect((await cli(['runs', 'search', 'invoices', '--imported'], dataDir)).stdout).toContain('Filed elsewhere');
    expect((await cli(['runs', 'list', '--imported', '--status', 'completed'], dataDir)).stdout).toBe('no run matches --status/--imported\n');
    expect(await cli(['runs', 'list', '--imported', '--ran-here'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('--imported and --ran-here exclude each other') });
    expect(await cli(['runs', 'show', notes, '--imported'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('--imported apply to list and search') });

    expect(await cli(['runs', 'list', '--status', 'done'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('--status takes one of running, waiting, completed') });
    expect(await cli(['runs', 'list', '--limit', '0'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('--limit takes a whole number from 1 to 1000') });
  });

  it('list and search reach any page of a long history: --since/--until keep a time, --oldest turns the order, --after goes on from the footer\'s run', async () => {
    const { dataDir, notes, echo } = await folderWithRuns();
    const ids = async (argv: string[]) => {
      const out = await cli([...argv, '--json'], dataDir);
      expect(out.code, out.stderr).toBe(EXIT.ok);
      return (JSON.parse(out.stdout) as { runs: Array<{ run: { run_id: string } }> }).runs.map((x) => x.run.run_id);
    };
    // The imported runs started on 2025-01-02 at 10:01 and 10:02 UTC; the others today.
    expect(await ids(['runs', 'list', '--until', '2025-01-02T10:02Z'])).toEqual(['feedface-0001']);
    expect(await ids(['runs', 'list', '--since', '2025-01-02T10:02Z', '--until', '2025-01-03T00:00Z'])).toEqual(['feedface-0002']);
    expect(await ids(['runs', 'list', '--since', '2025-01-02T11:01+01:00', '--until', '2025-01-02T11:02+01:00'])).toEqual(['feedface-0001']);
    // A day is this machine's local day: --until includes it. (The day the notes run started, read from the history, not the clock.)
    const listed = JSON.parse((await cli(['runs', 'list', '--json'], dataDir)).stdout) as { runs: Array<{ run: { run_id: string; started_at: string } }> };
    const started = new Date(listed.runs.find((r) => r.run.run_id === notes)!.run.started_at);
    const day = `${started.getFullYear()}-${String(started.getMonth() + 1).padStart(2, '0')}-${String(started.getDate()).padStart(2, '0')}`;
    expect((await ids(['runs', 'list', '--since', day])).sort()).toEqual([notes, echo].sort());
    expect((await ids(['runs', 'list', '--until', day])).sort()).toEqual([notes, echo, 'feedface-0001', 'feedface-0002'].sort());
    expect(await ids(['runs', 'search', 'invoices', '--oldest'])).toEqual(['feedface-0001', 'feedface-0002']);

    // Page by page with --after, newest first and oldest first: every run once, in order.
    for (const order of [[], ['--oldest']]) {
      const whole = await ids(['runs', 'list', ...order]);
      const paged: string[] = [];
      let after: string[] = [];
      for (let pages = 0; pages < 10; pages += 1) {
        const out = await cli(['runs', 'list', '--limit', '1', ...order, ...after], dataDir);
        expect(out.code, out.stderr).toBe(EXIT.ok);
        const [line, footer] = out.stdout.trimEnd().split('\n');
        paged.push(whole.find((id) => line!.startsWith(id.slice(0, 8)) && !paged.includes(id))!);
        const next = /with --after (\S+) shows the next 1/.exec(footer ?? '');
        if (!next) break;
        expect(footer).toContain(order.length > 0 ? 'oldest first' : 'newest first');
        after = ['--after', next[1]!];
      }
      expect(paged).toEqual(whole);
    }
    // After the oldest run, newest first, nothing is left.
    const [oldestRun] = await ids(['runs', 'list', '--oldest']);
    expect((await cli(['runs', 'list', '--after', oldestRun!], dataDir)).stdout).toBe('no runs after run feedface-0001\n');

    const refused = async (argv: string[], said: string) => expect(await cli(['runs', ...argv], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining(said) });
    await refused(['list', '--since', 'yesterday'], '--since takes a day (2026-12-05');
    await refused(['list', '--until', '2026-02-30'], 'not "2026-02-30"');
    await refused(['list', '--since', '2026-12-05T24:00'], 'not "2026-12-05T24:00"');
    await refused(['list', '--since', '2026-12-05', '--until', '2026-12-04'], 'is not before --until');
    await refused(['list', '--after', 'deadbeef-0000'], 'there is no run "deadbeef-0000" here');
    await refused(['show', notes, '--oldest'], '--oldest apply to list and search');
  });

  it('search: every word by its start, or a run id by its first 8 characters', async () => {
    const { dataDir, notes } = await folderWithRuns();
    const byWords = await cli(['runs', 'search', 'summar', 'meet'], dataDir);
    expect(byWords.code).toBe(EXIT.ok);
    expect(byWords.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^${notes.slice(0, 8)} .*Notes assistant`)), '1 run · steward runs show RUN_ID (or its first 8 characters) shows one']);
    const ids = (argv: string[]) => cli(['runs', 'search', ...argv, '--json'], dataDir).then((r) => (JSON.parse(r.stdout) as { runs: Array<{ run: { run_id: string } }> }).runs.map((x) => x.run.run_id));
    expect(await ids(['invoices'])).toEqual(['feedface-0002', 'feedface-0001']);
    expect(await ids(['invoices', 'summar'])).toEqual([]);
    expect(await ids([notes.slice(0, 8)])).toEqual([notes]);
    expect(await ids(['feedface'])).toEqual(['feedface-0002', 'feedface-0001']);
    expect((await cli(['runs', 'search', 'nothing-like-it'], dataDir)).stdout).toBe('no run matches "nothing-like-it"\n');
    expect(await cli(['runs', 'search'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('what to look for?') });
  });

  it('show: a run by its id or its first 8 characters; --json gives its events exactly as stored; an id start two runs share, or none has, is refused', async () => {
    const { dataDir, notes } = await folderWithRuns();
    const shown = await cli(['runs', 'show', notes.slice(0, 8)], dataDir);
    expect(shown.code, shown.stderr).toBe(EXIT.ok);
    const events = storedEvents(dataDir, notes);
    expect(shown.stdout).toContain(`run ${notes}\n  Notes assistant · Completed\n  agent spec notes-assistant\n  task: Summarise the latest meeting notes`);
    expect(shown.stdout).toMatch(/models: student .* · teacher /);
    expect(shown.stdout).toMatch(/started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · ended .*\(/);
    expect(shown.stdout).toContain(`${events.length} events stored (the run announced ${events.length})`);
    expect(shown.stdout).toContain(`its events: steward runs show ${notes} --json\nas a trace file: steward runs export ${notes.slice(0, 8)} -o FILE.jsonl\n`);

    const json = JSON.parse((await cli(['runs', 'show', notes, '--json'], dataDir)).stdout) as { run: { run_id: string; status: string; stored_events: number }; imported: boolean; events: RunEvent[] };
    expect(json.run).toMatchObject({ run_id: notes, status: 'completed', stored_events: events.length });
    expect(json.imported).toBe(false);
    expect(json.events).toEqual(events);
    expect(json.events.map((e) => e.seq)).toEqual(events.map((_, i) => i));

    // A trace cut short: its run announced 5 events, 2 reached this history.
    const cut = await cli(['runs', 'show', 'feedface-0002'], dataDir);
    expect(cut.code).toBe(EXIT.ok);
    expect(cut.stdout).toContain('2 events stored: only 2 of the 5 the run announced are here');
    expect(cut.stdout).toContain('imported from a trace (it never ran here)');
    expect(cut.stdout).toContain('message: no invoices');

    const ambiguous = await cli(['runs', 'show', 'feedface'], dataDir);
    expect(ambiguous.code).toBe(EXIT.badInput);
    expect(ambiguous.stdout).toBe('');
    expect(ambiguous.stderr).toContain('"feedface" is the start of 2 runs\' ids; give more of the one you mean:\n  feedface-0001 · Filed elsewhere');
    expect(ambiguous.stderr).toContain('  feedface-0002 · Filed elsewhere');

    expect(await cli(['runs', 'show', 'deadbeef'], dataDir)).toMatchObject({ code: EXIT.runNotCompleted, stderr: expect.stringContaining('no run "deadbeef" in the history of') });
    expect(await cli(['runs', 'show', notes.slice(0, 6)], dataDir)).toMatchObject({ code: EXIT.runNotCompleted, stderr: expect.stringContaining('at least 8 characters') });
    expect(await cli(['runs', 'show'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('show takes one RUN_ID') });
    expect(await cli(['runs', 'show', notes, '--limit', '3'], dataDir)).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('--limit apply to list and search') });
  });

  it('has help: steward runs --help and steward --help name them, and a subcommand\'s --help prints it', async () => {
    const dataDir = tempDir();
    const help = await cli(['runs', '--help'], dataDir);
    // Wrapped for a 100-column terminal: the synopsis goes on four spaces in.
    expect(help.stdout).toMatch(/steward runs list \[--status S\]\.\.\. \[--workflow ID\] \[--since WHEN\] \[--until WHEN\]\n {6}\[--imported\|--ran-here\] \[--oldest\] \[--limit N\] \[--after RUN_ID\] \[--json\]/);
    expect(help.stdout).toContain('steward runs search WORDS|RUN_ID');
    expect(help.stdout).toContain('steward runs show RUN_ID [--json]');
    expect(await cli(['runs', 'show', '--help'], dataDir)).toMatchObject({ code: EXIT.ok, stdout: help.stdout });
    expect((await cli(['--help'], dataDir)).stdout).toMatch(/steward runs list \[--status S\].*\n.*\[--imported\|--ran-here\].*\[--after RUN_ID\].*\n.*\n  steward runs search WORDS\|RUN_ID .*\| show RUN_ID/);
  });

  it('a data folder that is not there has no runs, and none is made', async () => {
    const dataDir = join(tempDir(), 'missing');
    expect(await cli(['runs', 'list', '--json'], dataDir)).toMatchObject({ code: EXIT.ok, stdout: '{\n  "runs": []\n}\n', stderr: expect.stringContaining(`there is no data folder at ${dataDir}`) });
    expect(await cli(['runs', 'show', 'feedface-0001'], dataDir)).toMatchObject({ code: EXIT.runNotCompleted, stderr: expect.stringContaining(`there is no data folder at ${dataDir}`) });
    expect(existsSync(dataDir)).toBe(false);
    expect((await cli(['runs', 'list'], tempDir())).stdout).toBe("no runs in this data folder's history\n");
  });

  it('while the app runs, the commands are handed to it and answer the same; a run handed to it prints its id, which show finds', async () => {
    const { dataDir, notes } = await folderWithRuns();
    const alone = await Promise.all([['runs', 'list', '--json'], ['runs', 'list'], ['runs', 'search', 'invoices'], ['runs', 'show', notes.slice(0, 8), '--json'], ['runs', 'show', 'feedface']].map((argv) => cli(argv, dataDir)));

    await openTestHost(dataDir, cleanups);
    const handed = await Promise.all([['runs', 'list', '--json'], ['runs', 'list'], ['runs', 'search', 'invoices'], ['runs', 'show', notes.slice(0, 8), '--json'], ['runs', 'show', 'feedface']].map((argv) => forwarded(argv, dataDir)));
    expect(handed).toEqual(alone);

    // Typed in a process the app did not take it from (it cannot normally happen): said in words.
    const refused = await cli(['runs', 'list'], dataDir);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/the Steward app holds the data folder .*, yet it did not take this command/);

    const spec = tempNotesSpec();
    cleanups.push(spec.cleanup);
    const ran = await forwarded(['run', spec.file], dataDir);
    expect(ran.code, ran.stderr).toBe(EXIT.ok);
    const runId = RUN_ID_LINE.exec(ran.stdout)?.[1] ?? '';
    expect(ran.stdout.trimEnd().split('\n').at(-1)).toBe(`run id ${runId} (steward runs show ${runId.slice(0, 8)})`);
    const shown = await forwarded(['runs', 'show', runId.slice(0, 8)], dataDir);
    expect(shown.code, shown.stderr).toBe(EXIT.ok);
    expect(shown.stdout).toContain(`run ${runId}\n  Notes assistant · Completed`);
    expect((await forwarded(['runs', 'list'], dataDir)).stdout).toMatch(/^5 runs · /m);
  });
});

describe('steward runs says what happened as the app does (issue 28)', () => {
  it('an interrupted run counts the round a host stop cut off, as the run view does: "3 rounds (the 3rd was interrupted)"; a run a person declined or stopped is listed as theirs, found by --status', async () => {
    const dataDir = join(tempDir(), 'data');
    const ts = new Date(Date.UTC(2025, 0, 3, 9, 0)).toISOString();
    const run = (runId: string, rest: Array<Record<string, unknown>>): RunEvent[] =>
      [{ type: 'run.started', spec_id: 'imported-spec', spec_name: `Filed ${runId.slice(-1)}`, task: 'Tidy', supervision: { enabled: false }, models: { student: 's', teacher: 't' } }, ...rest].map((e, seq) => RunEvent.parse({ id: eventId(runId, seq), run_id: runId, seq, ts, ...e }));
    const cut = run('cafebabe-0001', [
      ...[0, 1, 2].map((round) => ({ type: 'round.started', round, proposer: 'student' })),
      { type: 'run.finished', status: 'interrupted', rounds: 2, event_count: 5, message: 'The Steward host stopped while this run was in progress.' },
    ]);
    const declined = run('cafebabe-0002', [{ type: 'run.finished', status: 'declined', rounds: 0, event_count: 2, message: 'you declined fs/write_file: not today' }]);
    const stopped = run('cafebabe-0003', [{ type: 'run.finished', status: 'stopped', rounds: 0, event_count: 2, message: 'you stopped the run' }]);
    const trace = join(tempDir(), 'trace.jsonl');
    writeFileSync(trace, [...cut, ...declined, ...stopped].map((e) => JSON.stringify(e)).join('\n'));
    expect((await cli(['runs', 'import', trace], dataDir)).code).toBe(EXIT.ok);

    const lines = (await cli(['runs', 'list'], dataDir)).stdout.split('\n');
    expect(lines.find((l) => l.startsWith('cafebabe') && l.includes('Filed 1'))).toMatch(/Interrupted\s+Filed 1 · started .* · 3 rounds \(the 3rd was interrupted\) · 5 events · imported$/);
    expect(lines.find((l) => l.includes('Filed 2'))).toMatch(/Declined by you\s+Filed 2 · /);
    expect(lines.find((l) => l.includes('Filed 3'))).toMatch(/Stopped by you\s+Filed 3 · /);
    expect((await cli(['runs', 'show', 'cafebabe-0001'], dataDir)).stdout).toContain('  3 rounds (the 3rd was interrupted) · ');

    const only = async (status: string) => (JSON.parse((await cli(['runs', 'list', '--status', status, '--json'], dataDir)).stdout) as { runs: Array<{ run: { run_id: string; status: string } }> }).runs.map((r) => [r.run.run_id, r.run.status]);
    expect(await only('declined')).toEqual([['cafebabe-0002', 'declined']]);
    expect(await only('stopped')).toEqual([['cafebabe-0003', 'stopped']]);
    expect(await only('failed,cancelled')).toEqual([]);
  });
});
