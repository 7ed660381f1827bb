import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIChatRequest } from '../../../test-support/fake-openai';
import { replayJudgedWorkflow } from '../../../test-support/human-judged-pattern';
import { HOST_METHODS } from '@shared/contracts/host-api';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { EventJournal } from '../../events/event-journal';
import { EXIT } from '../../shells/cli/cli';
import { teacherReplayHandlers } from './teacher-replay-handler';

/**
 * Issue 31 with seed 002: a pattern node's judgments are cases of `steward eval verdicts --teacher`
 * like the teacher's reviews. A judge model's and a person's judgment each keep the judge's prompt
 * (task, judgment prompt, member outputs by id) with the event, and the candidate is asked it as a
 * model judge is. Runs through the CLI on real data folders; the recorded judges are replay scripts
 * and the candidate teacher is a TEST DOUBLE at the model boundary (a local OpenAI-API server).
 */

const EXAMPLES = resolve(__dirname, '../../../resources/examples');
const dir = mkdtempSync(join(tmpdir(), 'steward-judgment-cases-'));
const servers: FakeOpenAI[] = [];

afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

type Judged = 'approved' | 'rejected';

/** A candidate that judges every pattern output one way (citing the outputs it was shown) and accepts any teacher review. */
async function candidate(judged: Judged): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({
    chat: (request: FakeOpenAIChatRequest) => {
      const system = String(request.messages[0]?.content ?? '');
      if (!system.includes('pattern')) return { message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' }) } };
      const cited = [...String(request.messages.at(-1)?.content ?? '').matchAll(/^\[([^\]]+)\]/gm)].map((m) => m[1] as string);
      const body = judged === 'approved' ? { verdict: 'approved', evidence: cited } : { verdict: 'rejected', feedback: 'Say what it costs.', evidence: cited };
      return { message: { content: JSON.stringify(body) } };
    },
  });
  servers.push(server);
  return server;
}

const judgmentsOf = (dataDir: string) => journalEvents(dataDir).filter((e): e is RunEventOf<'pattern.judgment'> => e.type === 'pattern.judgment');

interface Report {
  cases: number;
  judgments: { cases: number; agreeing: number; not_asked: number };
  judgment_flips: Array<{ kind: string; judgment_id: string; step: number; iteration: number; past: { verdict: string }; now?: { verdict: string }; words: string }>;
  exit_code: number;
}

describe('pattern judgments as cases of steward eval verdicts', () => {
  it('a judge model’s rejection the candidate would approve is listed as a lost catch, asked with the judge’s own prompt; a judgment is no effect: exit 0', async () => {
    const dataDir = join(dir, 'debate');
    const run = await cliWith(['run', join(EXAMPLES, 'pattern-debate.workflow.json'), '--input', 'topic=the storage engine', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const recorded = judgmentsOf(dataDir);
    expect(recorded.map((e) => e.judgment.verdict?.verdict)).toEqual(['rejected', 'approved']);
    // The judge's prompt as it was sent: its part in the debate, the task, the member outputs by id.
    const first = recorded[0]?.context ?? [];
    expect(String(first[0]?.content)).toContain('You are the judge of a DEBATE pattern, and your review is its judgment.');
    expect(String(first[1]?.content)).toContain('Task:\nDecide the storage engine for the desktop app.');
    expect(String(first[1]?.content)).toContain('[proponent#1] (proponent):\nAdopt SQLite for local storage');

    const approves = await candidate('approved');
    const out = await cliWith(['eval', 'verdicts', '--teacher', `${approves.baseUrl}#approves-all`, '--data-dir', dataDir]);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    expect(out.stdout).toContain('· 2 recorded pattern judgments from 1 run · no tool is executed');
    expect(out.stdout).toMatch(/· run \w{8} · Storage decision, debated · decision judgment at step 1, iteration 1: the output would now be approved and leave the node; then the model judge “judge” rejected: "The proponent has not answered the native-module cost/);
    expect(out.stdout).toContain('1 of 2 pattern judgments flip · 1 output a judge or a person stopped would now be approved');
    // Asked exactly what the judge was asked, newest judgment first.
    expect(approves.chatRequests().filter((r) => String(r.messages[0]?.content).includes('pattern')).map((r) => r.messages)).toEqual(recorded.map((e) => e.context).reverse());

    const json = await cliWith(['eval', 'verdicts', '--teacher', `${approves.baseUrl}#approves-all`, '--json', '--data-dir', dataDir]);
    const report = JSON.parse(json.stdout) as Report;
    expect(report.judgments).toEqual({ cases: 2, agreeing: 1, not_asked: 0 });
    // Steps counted from 1, as the run view and the app's list count them.
    expect(report.judgment_flips).toMatchObject([{ kind: 'catch_lost', step: 1, iteration: 1, past: { verdict: 'rejected' }, now: { verdict: 'approved' } }]);
    expect(report.exit_code).toBe(0);

    // The app's "Replay past verdicts" on a teacher profile asks the same cases through the host.
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    try {
      const noCredentials = { list: async () => [], set: async () => undefined, get: async () => undefined, delete: async () => false };
      const host = teacherReplayHandlers({ journal, privacy: () => LOCAL_ONLY, ollamaHost: 'http://127.0.0.1:9', credentials: noCredentials, log: () => undefined });
      const profile = { id: 'cand', name: 'Approving teacher', version: 1, created_at: '2026-12-01T00:00:00Z', kind: 'teacher', model: { provider: 'openai_compatible', base_url: approves.baseUrl, model: 'approves-all' } };
      const started = await host.handlers['verdicts.replay_teacher.start'](HOST_METHODS['verdicts.replay_teacher.start'].params.parse({ profile }));
      expect(started).toEqual({ started: true, total: 2 });
      await host.settled();
      const status = await host.handlers['verdicts.replay_teacher.status']();
      expect(status).toMatchObject({ state: 'completed', done: 2, total: 2, result: { cases: 0, judgments: { cases: 2, agreeing: 1, flipped: 1, approvals_gained: 1, not_asked: 0 } } });
      expect(status.result?.judgments?.flips).toMatchObject([{ kind: 'catch_lost', judge: 'llm', invocation_id: 'decision', step: 1, iteration: 1, past: { verdict: 'rejected' }, now: { verdict: 'approved' } }]);
    } finally {
      journal.close();
    }
  }, 60_000);

  it('a person’s judgments, answered after the run parked, are cases too: a candidate stricter than the person is listed', async () => {
    const dataDir = join(dir, 'person');
    const file = join(dir, 'judged.workflow.json');
    writeFileSync(file, JSON.stringify(replayJudgedWorkflow()));
    const run = await cliWith(['run', file, '--input', 'topic=caching', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /steward answer (\S+) approve/.exec(run.stdout)?.[1] ?? '';
    expect((await cliWith(['answer', runId, 'reject', '--feedback', 'Add the risks.', '--data-dir', dataDir])).code).toBe(EXIT.waiting);
    expect((await cliWith(['answer', runId, 'approve', '--cite', 'draft#2', '--data-dir', dataDir])).code).toBe(EXIT.ok);
    const recorded = judgmentsOf(dataDir);
    // The person judges first, the judge model after (agreement: all), each iteration.
    expect(recorded.map((e) => [e.judgment.caller.kind, e.judgment.verdict?.verdict])).toEqual([
      ['human', 'rejected'],
      ['llm', 'rejected'],
      ['human', 'approved'],
      ['llm', 'approved'],
    ]);
    // Each person's judgment resumed from its parked loop, with the prompt a model judge would have had in their place.
    const person = recorded[2]?.context ?? [];
    expect(String(person[0]?.content)).toContain('You judge the output of a SUPERVISOR pattern before it may leave.');
    expect(String(person[1]?.content)).toContain('Add the risks.');
    expect(String(person[1]?.content)).toContain('[draft#2] (draft):\nDraft 2, with the risks');

    const rejects = await candidate('rejected');
    const json = await cliWith(['eval', 'verdicts', '--teacher', `${rejects.baseUrl}#rejects-all`, '--json', '--data-dir', dataDir]);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const report = JSON.parse(json.stdout) as Report;
    expect(report.judgments).toMatchObject({ cases: 4, agreeing: 2 });
    expect(report.judgment_flips.map((f) => [f.kind, f.past.verdict, f.now?.verdict])).toEqual([
      ['stricter', 'approved', 'rejected'],
      ['stricter', 'approved', 'rejected'],
    ]);
    expect(report.judgment_flips.map((f) => f.words)).toContainEqual(expect.stringContaining('the output would now be rejected: "Say what it costs."; then the person approved'));
  }, 60_000);
});
