import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { TrialReport, type TrialRound } from '@shared/learning/trial-contract';
import { wilson } from '@shared/learning/trial-report';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { startFakeOllama, type FakeChatRequest, type FakeOllama } from '../../../test-support/fake-ollama';
import { tempNotesWorkspace } from '../../../test-support/workspace';

/**
 * Issue 31, `steward trial`: a real supervised run recorded through `steward run` (a scripted
 * student and teacher on the real filesystem MCP server, phase 2: every round reviewed; the teacher
 * replaces the student's first write with another) leaves five reviewed rounds in the data folder's
 * history. The candidate student is a TEST DOUBLE at the model boundary (a local server speaking
 * the Ollama API) that answers from the round it is shown: it proposes the teacher's replacement
 * where the student was replaced, and another protected write where the student wrote.
 */

let ws: ReturnType<typeof tempNotesWorkspace>;
let dataDir: string;
let specFile: string;
const doubles: FakeOllama[] = [];

const at = (workspace: string, name: string) => join(workspace, name);
const call = (tool: string, args: Record<string, unknown>) => ({ decision_type: 'tool_call', tool_name: tool, arguments: args });

beforeAll(async () => {
  ws = tempNotesWorkspace();
  dataDir = join(ws.dir, 'data');
  const read = call('read_text_file', { path: at(ws.workspace, 'meeting-notes.md') });
  const write = (name: string) => call('write_file', { path: at(ws.workspace, name), content: `${name} notes` });
  const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
  const spec = {
    ...askingSpecInput({ phase: 2 }),
    models: { student: { provider: 'script' }, teacher: { provider: 'script' } },
    script: {
      latency_ms: 0,
      student: [{ json: read }, { json: write('a.md') }, { json: read }, { json: write('d.md') }, { json: { decision_type: 'complete', output: 'Summarised.' } }],
      teacher: [accept, { json: { verdict: 'replace', reason_codes: ['other'], explanation: 'Write b instead.', replacement: write('b.md') } }, accept, accept, accept],
    },
  };
  specFile = join(ws.dir, 'spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  const run = await cliWith(['run', specFile, '--data-dir', dataDir, '--yes']);
  expect(run.code, run.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  for (const d of doubles) await d.close();
  ws.cleanup();
});

/** The round a student prompt is for: one assistant turn per committed decision before it. */
const roundOf = (request: FakeChatRequest) => request.messages.filter((m) => m.role === 'assistant').length;

async function candidate(answer: (round: number) => unknown): Promise<FakeOllama> {
  const double = await startFakeOllama({ models: [{ name: 'cand' }], chat: (request) => ({ message: { content: JSON.stringify(answer(roundOf(request))) } }) });
  doubles.push(double);
  return double;
}

const ref = (double: FakeOllama) => JSON.stringify({ provider: 'ollama', model: 'cand', host: double.url });

/** Every file of the workspace with its size and time: what a tool call would change. */
function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((name) => {
      const s = statSync(join(dir, name));
      return `${name} ${s.size} ${s.mtimeMs}${s.isFile() ? ` ${readFileSync(join(dir, name), 'utf8').length}` : ''}`;
    })
    .join('\n');
}

describe('steward trial', () => {
  it('replays the recorded rounds to the candidate, counts agreement against the selected decisions, lists the protected write it proposed differently, and executes nothing', async () => {
    const write = (name: string) => call('write_file', { path: at(ws.workspace, name), content: `${name} notes` });
    const read = call('read_text_file', { path: at(ws.workspace, 'meeting-notes.md') });
    const answers = [read, write('b.md'), read, write('e.md'), { decision_type: 'complete', output: 'Summarised.' }];
    const double = await candidate((round) => answers[round]);
    const before = snapshot(ws.workspace);

    const out = await cliWith(['trial', 'asks-the-user', '--student', ref(double), '--data-dir', dataDir]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Trial of ollama:cand on Asks the user · 5 of the last 200 reviewed rounds (from 1 run)');
    // 4 of 5 agree with the selected decisions (the teacher's replacement included); the recorded student agreed in 4 of 5 too.
    expect(out.stdout).toContain('Over the last 5 reviewed rounds of Asks the user, ollama:cand agreed with the decision finally selected in 4 of 5 (80%; 95% interval 37.6%–96.4%)');
    expect(out.stdout).toContain('the current student (replay) in 4 of 5 (80%');
    expect(out.stdout).toMatch(/Protected effects it would have proposed differently:\n✗ run \w{8} · round 4: it proposed write_file \{"path":"[^"]*e\.md".*; the round selected write_file \{"path":"[^"]*d\.md".* \(student\)/);
    expect(out.stdout).toMatch(/agreement with the selected decision \(95% interval\)\s+4\/5 80% \(37\.6%–96\.4%\)\s+4\/5 80%/);
    expect(out.stdout).toContain('No tool was executed.');
    // Tools never executed: the workspace is exactly as it was, and the candidate only ever got the recorded prompts.
    expect(snapshot(ws.workspace)).toBe(before);
    expect(double.chatRequests()).toHaveLength(5);
    expect(double.chatRequests()[0]?.messages[0]?.content).toContain('write_file');

    const json = await cliWith(['trial', 'asks-the-user', '--student', ref(double), '--json', '--data-dir', dataDir]);
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { run_id: string; report: unknown; rounds: TrialRound[] };
    const report = TrialReport.parse(parsed.report);
    const expected = wilson(4, 5);
    expect(report.candidate.agreement).toEqual(expected);
    expect(report.current.agreement).toEqual(expected);
    expect(report.protected_rounds).toEqual([3]);
    expect(report.same_as_student).toBe(3);
    expect(parsed.rounds.map((r) => r.agrees_selected)).toEqual([true, true, true, false, true]);
    // Agreement is against the recorded selections: round 2's is the teacher's replacement.
    expect(parsed.rounds[1]?.selected?.source).toBe('teacher');
    expect(report.candidate.suggestion.action).toBe('hold');

    // The trial is a run of its own in the history: its row, an event per replayed round, its report at the end.
    const events: RunEvent[] = journalEvents(dataDir).filter((e) => e.run_id === parsed.run_id);
    expect(events[0]).toMatchObject({ type: 'run.started', spec_name: 'Trial of ollama:cand on Asks the user', dry_run: true });
    expect(events.filter((e) => e.type === 'trial.round')).toHaveLength(5);
    expect(events.filter((e) => e.type === 'model.called')).toHaveLength(5);
    expect(events.at(-2)).toMatchObject({ type: 'trial.finished' });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', event_count: events.length });
    expect(events.some((e) => e.type === 'tool.executed')).toBe(false);
    const listed = await cliWith(['runs', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toContain('Trial of ollama:cand on Asks the user');

    // steward replay RUN of a trial: its recorded replies given back, no model called, the same report.
    const asked = double.chatRequests().length;
    const replay = await cliWith(['replay', parsed.run_id, '--data-dir', dataDir]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`steward · replay of trial ${parsed.run_id} · ollama:cand's recorded replies given back (no model is called, no tool executes)`);
    expect(replay.stdout).toContain('The replay made the same report: every one of the 5 rounds compared as recorded.');
    expect(double.chatRequests()).toHaveLength(asked);
    expect(snapshot(ws.workspace)).toBe(before);
  }, 120_000);

  it('Ctrl-C ends the trial as cancelled (exit 130): the rounds done are reported as partial, never as a finished trial', async () => {
    const controller = new AbortController();
    // TEST DOUBLE: a slow candidate; the person presses Ctrl-C while it answers the third round.
    const double = await startFakeOllama({
      models: [{ name: 'cand' }],
      chat: () => {
        if (double.chatRequests().length === 3) controller.abort();
        return { message: { content: JSON.stringify({ decision_type: 'complete', output: 'Summarised.' }) }, delay_ms: 50 };
      },
    });
    doubles.push(double);
    const out = await cliWith(['trial', 'asks-the-user', '--student', ref(double), '--json', '--data-dir', dataDir], { signal: controller.signal });
    expect(out.code, out.stderr).toBe(130);
    const parsed = JSON.parse(out.stdout) as { run_id: string; status: string; message: string; report?: unknown };
    expect(parsed.status).toBe('cancelled');
    expect(parsed.message).toBe('The trial was cancelled after 2 of 5 rounds; the figures cover those 2 only.');
    const report = TrialReport.parse(parsed.report);
    expect(report.stopped).toEqual({ after: 2, of: 5 });
    expect(report.words[0]).toBe('Cancelled after 2 of 5 rounds; the figures cover those 2 only.');
    const events: RunEvent[] = journalEvents(dataDir).filter((e) => e.run_id === parsed.run_id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
  }, 60_000);

  it('refuses a candidate the privacy policy does not allow, in words, before any call', async () => {
    const out = await cliWith(['trial', 'asks-the-user', '--student', 'https://models.example.com/v1#big', '--data-dir', dataDir]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/cannot be tried as a student here: .*models\.example\.com.*Nothing was sent to it/);
  });

  it('a node with no recorded rounds says so in words, exit 1, and asks the candidate nothing', async () => {
    const double = await candidate(() => ({ decision_type: 'complete', output: 'x' }));
    const out = await cliWith(['trial', 'summarise', '--workflow', 'no-such-workflow', '--student', ref(double), '--data-dir', dataDir]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('no reviewed rounds of the node "summarise" of the workflow "no-such-workflow" are recorded');
    expect(double.chatRequests()).toHaveLength(0);
  });
});
