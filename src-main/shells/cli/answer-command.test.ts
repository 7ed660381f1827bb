import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { readTraceFile } from '../../../test-support/trace-file';
import { EXIT, type CliIo } from './cli';

/** Issue 10: a person can always answer, at the terminal too; a run nobody answers there waits in the data folder. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-answer-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An agent spec whose (replay) student asks the person which note to summarise, then completes (or says `student`). */
function askingSpec(
  student: unknown[] = [
    { json: { decision_type: 'ask_user', question: 'Which note should I summarise?' } },
    { json: { decision_type: 'complete', output: 'Summarised the Monday notes.' } },
  ],
): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const file = join(ws.dir, 'asks.json');
  writeFileSync(file, JSON.stringify({ ...askingSpecInput(), script: { latency_ms: 0, student, teacher: [] } }));
  return file;
}

/** A workflow whose agent node (on the replay student) asks the person which topic, then completes. */
function askingWorkflow(dir: string): string {
const file = join(dir, 'asks.workflow.json');
  const asks = { json: { decision_type: 'ask_user', question: 'Which topic?' } };
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'asks-wf',
      name: 'Asks in a workflow',
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
        { id: 'think', kind: 'agent', instructions: 'Think.', task: 'Think about {{topic}}.', inputs: [{ name: 'topic', type: 'text' }], servers: [], script: { student: [asks, { json: { decision_type: 'complete', output: 'thought it through' } }] } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'topic' }, to: { node: 'think', port: 'topic' } },
        { from: { node: 'think', port: 'output' }, to: { node: 'out', port: 'said' } },
      ],
    }),
  );
  return file;
}

const cli = cliWith;

/** TEST DOUBLE for the person at the terminal: types these lines, in order. */
function typing(...lines: string[]): NonNullable<CliIo['line']> {
  return async () => lines.shift();
}


describe('a run that waits for a person, from the command line', () => {
  it('without a terminal it waits in the data folder: the run id and the exact answer command are printed, exit code 3; runs waiting lists it', async () => {
    const dataDir = tempDir();
    const run = await cli(['run', askingSpec(), '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits for you: Which note should I summarise\?/.exec(run.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(run.stdout).toContain(`steward answer ${runId} reply 'YOUR REPLY' --data-dir '${dataDir}'`);
    expect(run.stdout).toContain(`steward answer ${runId} stop --data-dir '${dataDir}'`);
    expect(run.stdout).not.toContain('cannot resume');
    // Its events are in the history the app shows, up to the question.
    expect(journalEvents(dataDir).filter((e) => e.run_id === runId).at(-1)?.type).toBe('intervention.requested');

    const listed = await cli(['runs', 'waiting', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${runId} · Asks the user · round 1 · the agent asks you`);
    expect(listed.stdout).toContain('Which note should I summarise?');
    const json = JSON.parse((await cli(['runs', 'waiting', '--json', '--data-dir', dataDir])).stdout) as unknown[];
    expect(json).toEqual([expect.objectContaining({ run_id: runId, name: 'Asks the user', round: 1, kind: 'ask_user', asks: 'Which note should I summarise?' })]);
  });

  it('steward answer resumes it with the reply, printing its rounds; the history records the answer and the end; nothing waits any more', async () => {
    const dataDir = tempDir();
    const run = await cli(['run', askingSpec(), '--data-dir', dataDir]);
    const runId = /the run (\S+) waits/.exec(run.stdout)?.[1] ?? '';
    // A wrong --intervention is said to be wrong (issue 27), and the run still waits.
    const wrong = await cli(['answer', runId, 'reply', 'x', '--intervention', 'no-such-question', '--data-dir', dataDir]);
    expect(wrong.code).toBe(EXIT.badInput);
    expect(wrong.stderr).toMatch(/does not wait for --intervention no-such-question: it waits for \S+/);
    // Named by its first 8 characters, as steward runs list prints it: the whole run is answered.
    const answered = await cli(['answer', runId.slice(0, 8), 'reply', 'The', 'Monday', 'notes.', '--data-dir', dataDir]);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(EXIT.ok);
    expect(answered.stdout).toContain(`steward · answering ${runId} · reply "The Monday notes."`);
    expect(answered.stdout).toMatch(/complete/);
    expect(answered.stdout).toContain('Summarised the Monday notes.');
    const events = journalEvents(dataDir).filter((e) => e.run_id === runId);
    expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'reply', text: 'The Monday notes.' } });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect((await cli(['runs', 'waiting', '--data-dir', dataDir])).stdout).toBe('nothing waits for you\n');
    // Answered once: a second answer is refused.
    const again = await cli(['answer', runId, 'stop', '--data-dir', dataDir]);
    expect(again.code).toBe(EXIT.badInput);
    expect(again.stderr).toContain(`no run "${runId}" waits for a person`);
  });

  it('a dry run resumed by steward answer stays dry: its tool call after the answer is said as not run, and none ran', async () => {
    const file = askingSpec([
      { json: { decision_type: 'ask_user', question: 'What should the summary say?' } },
      { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/meeting-notes.md' } } },
      { json: { decision_type: 'complete', output: 'Wrote the summary.' } },
    ]);
    const dataDir = tempDir();
    const run = await cli(['dry-run', file, '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits/.exec(run.stdout)?.[1] ?? '';
    const answered = await cli(['answer', runId, 'reply', 'Keep', 'it', 'short.', '--data-dir', dataDir]);
    expect(answered.stderr).toBe('');
    expect(answered.code, answered.stdout).toBe(EXIT.ok);
    expect(answered.stdout).toMatch(/read_text_file.*\n.*→ would have executed \(dry run: not run\)$/m);
    expect(answered.stdout).not.toMatch(/→ executed/);
    expect(answered.stdout).toContain('completed · 3 round(s) · dry run: no tool call was run\n');
    // Nothing ran: the history has no tool result for it.
    const events = journalEvents(dataDir).filter((e) => e.run_id === runId);
    expect(events.filter((e) => e.type === 'tool.executed').map((e) => (e.type === 'tool.executed' ? e.execution.content : ''))).toEqual(['(dry run: fs/read_text_file was not executed)']);
  });

  it('the app lists a run the command line left waiting, and refuses the CLI answer while it holds the folder, saying to answer in the app', async () => {
    const dataDir = tempDir();
    const run = await cli(['run', askingSpec(), '--data-dir', dataDir]);
    const runId = /the run (\S+) waits/.exec(run.stdout)?.[1] ?? '';
    const host = await openTestHost(dataDir, cleanups);
    const { interventions } = await hostPage(host).ok('interventions.pending', {});
    expect(interventions).toEqual([expect.objectContaining({ run_id: runId, kind: 'ask_user', options: ['reply', 'stop'] })]);
    const refused = await cli(['answer', runId, 'stop', '--data-dir', dataDir]);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/the Steward app holds the data folder .*answer in the app/);
  });

  it('without a terminal, a run started alone while the app holds the data folder still waits there: the app takes its events and lists it', async () => {
    const dataDir = tempDir();
    const host = await openTestHost(dataDir, cleanups);
    const run = await cli(['run', askingSpec(), '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits/.exec(run.stdout)?.[1] ?? '';
    const page = hostPage(host);
    expect((await page.ok('interventions.pending', {})).interventions).toEqual([expect.objectContaining({ run_id: runId, kind: 'ask_user' })]);
    expect((await page.ok('runs.known', { run_ids: [runId] })).known).toEqual([runId]);
    expect(existsSync(join(dataDir, 'cli-runs')) ? readdirSync(join(dataDir, 'cli-runs')) : []).toEqual([]);
  });

  it('at a terminal the person is asked and the run goes on in the same process; nothing is left waiting', async () => {
    const dataDir = tempDir();
    let prompts = '';
    const run = await cli(['run', askingSpec(), '--data-dir', dataDir], { line: typing('', 'The Monday notes.'), stderr: (t) => (prompts += t) });
    expect(run.code).toBe(EXIT.ok);
    expect(prompts).toContain('waiting for you · the agent asks you · round 1');
    expect(run.stdout).toContain('Summarised the Monday notes.');
    expect((await cli(['runs', 'waiting', '--data-dir', dataDir])).stdout).toBe('nothing waits for you\n');
  });

  it('a person who leaves the prompt (Ctrl+D) leaves the run waiting, with the answer command', async () => {
    const dataDir = tempDir();
    const run = await cli(['run', askingSpec(), '--data-dir', dataDir], { line: typing() });
    expect(run.code).toBe(EXIT.waiting);
    expect(run.stdout).toMatch(/steward answer \S+ reply 'YOUR REPLY'/);
  });

  it('approve --arguments runs the tool call with the person\'s arguments; an edit that fails validation is refused and the run keeps waiting', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const file = join(ws.dir, 'escalates.json');
    const write = { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, 'shared.md'), content: 'for everyone' } } };
    const escalate = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } };
    const script = { latency_ms: 0, student: [write, { json: { decision_type: 'complete', output: 'done' } }], teacher: [escalate, { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }] };
    writeFileSync(file, JSON.stringify({ ...askingSpecInput({ phase: 3, on_escalate: 'human' }), script }));
    const dataDir = tempDir();
    const run = await cli(['run', file, '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits/.exec(run.stdout)?.[1] ?? '';

    const refused = await cli(['answer', runId, 'approve', '--arguments', JSON.stringify({ path: join(ws.workspace, 'draft.md') }), '--data-dir', dataDir]);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/your edited arguments do not pass validation: arguments the tool refuses/);
    expect((await cli(['runs', 'waiting', '--json', '--data-dir', dataDir])).stdout).toContain(runId);
    expect((await cli(['answer', runId, 'approve', '--arguments', '{"path":', '--data-dir', dataDir])).stderr).toMatch(/--arguments is not JSON/);

    const edited = { path: join(ws.workspace, 'draft.md'), content: 'for me first' };
    const approved = await cli(['answer', runId, 'approve', '--arguments', JSON.stringify(edited), '--data-dir', dataDir]);
    expect(approved.code).toBe(EXIT.ok);
    expect(readFileSync(edited.path, 'utf8')).toBe('for me first');
    expect(existsSync(join(ws.workspace, 'shared.md'))).toBe(false);
  });

  it('a workflow whose agent node asks waits in the data folder too; runs waiting names the node, and steward answer finishes the workflow', async () => {
    const dir = tempDir();
    const file = askingWorkflow(dir);
    const dataDir = join(dir, 'data');
    const run = await cli(['run', file, '--input', 'topic=tea', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits for you: Which topic\?/.exec(run.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    const listed = await cli(['runs', 'waiting', '--data-dir', dataDir]);
    expect(listed.stdout).toContain(`${runId} · Asks in a workflow · node think · round 1 · the agent asks you`);
    const answered = await cli(['answer', runId, 'reply', 'Green tea.', '--data-dir', dataDir]);
    expect(answered.code).toBe(EXIT.ok);
    expect(answered.stdout).toContain('completed');
    expect(journalEvents(dataDir).filter((e) => e.run_id === runId).at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', outputs: { said: 'thought it through' } });
  });

  it('a workflow at a terminal: the person is asked there and the workflow finishes in the same process, one contiguous trace', async () => {
    const dir = tempDir();
    const trace = join(dir, 'trace.jsonl');
    const run = await cli(['run', askingWorkflow(dir), '--input', 'topic=tea', '--trace', trace, '--data-dir', join(dir, 'data')], { line: typing('Green tea.') });
    expect(run.code).toBe(EXIT.ok);
    const events = readTraceFile(trace);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'reply', text: 'Green tea.' } });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  });

  it('refuses an answer it cannot use, before touching the data folder', async () => {
    expect((await cli(['answer', 'some-run-0001', 'reply'])).stderr).toMatch(/a reply needs its text/);
    expect((await cli(['answer', 'some-run-0001', 'maybe'])).stderr).toMatch(/the answer is one of approve, reject, decline, takeover, stop, reply, yes, no/);
    expect((await cli(['answer', 'some-run-0001', 'approve', 'now'])).code).toBe(EXIT.badInput);
    expect((await cli(['answer', '--help'])).stdout).toMatch(/steward answer RUN_ID reply TEXT/);
  });
});
