import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import { hostPage } from '../../../test-support/host-session';
import { FIRST_REPORT, humanJudgedWorkflow, startJudgedModels, type JudgedOptions } from '../../../test-support/human-judged-pattern';
import type { FakeOllama } from '../../../test-support/fake-ollama';
import { createHost } from '../../composition/create-host';
import { waitingStoresIn } from '../../../test-support/waiting-stores';

/**
 * A person judges a pattern node in the app's host (issue 12). Real host, journal, checkpoints and
 * agent runs; the worker is a local model on the fake Ollama server (TEST DOUBLE at the model
 * boundary) whose answer depends on the feedback in its prompt.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function openHost(dataDir: string, ollama: FakeOllama) {
  const host = await createHost({ dataDir, shell: 'browser', ollamaHost: ollama.url, log: () => undefined });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await host.close();
  };
  cleanups.push(close);
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  return { ...page, close };
}

async function setUp(options: JudgedOptions = {}) {
  const ollama = await startJudgedModels();
  cleanups.push(() => ollama.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-judged-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await openHost(dataDir, ollama);
  await first.ok('workflows.save', { workflow: humanJudgedWorkflow(options) });
  const { run_id } = await first.ok('workflows.run', { id: 'judged-report', inputs: { task: 'Write the incident report.' } });
  return { ollama, dataDir, first, run_id };
}

const asked = (events: readonly RunEvent[], runId: string) =>
  events.filter((e): e is RunEventOf<'intervention.requested'> => e.run_id === runId && e.type === 'intervention.requested' && e.intervention.kind === 'pattern_judgment').map((e) => e.intervention);
const finished = (events: readonly RunEvent[], runId: string) => events.find((e): e is RunEventOf<'run.finished'> => e.run_id === runId && e.type === 'run.finished');
const judgments = (events: readonly RunEvent[], runId: string) => events.filter((e): e is RunEventOf<'pattern.judgment'> => e.run_id === runId && e.type === 'pattern.judgment').map((e) => e.judgment);
const workerCalls = (ollama: FakeOllama) => ollama.chatRequests().filter((r) => !r.messages[0]?.content.includes('You are the teacher') && !r.messages.some((m) => m.content.includes('Member outputs (cite by id):')));

describe('a person judging a pattern node in the app’s host', () => {
  it('is answered after a host restart: the loop resumes at the judgment (iteration 1 is not run again), the rejection’s feedback changes iteration 2, the approval completes the run', async () => {
    const { ollama, dataDir, first, run_id } = await setUp();
    await expect.poll(() => asked(first.events, run_id).length, { timeout: 30_000 }).toBe(1);
    const { interventions } = await first.ok('interventions.pending', {});
    const q1 = interventions.find((i) => i.run_id === run_id) as Intervention;
    expect(q1).toMatchObject({ kind: 'pattern_judgment', options: ['approve', 'reject', 'escalate'], judgment: { node: 'report', iteration: 1, output: FIRST_REPORT, outputs: [{ member_id: 'worker', text: FIRST_REPORT }], must_cite: ['worker'] } });
    expect(finished(first.events, run_id)).toBeUndefined();
    await first.close();
    const callsBefore = workerCalls(ollama).length;

    // The host again, on the same data folder: the judgment still waits, and the answer resumes it.
    const second = await openHost(dataDir, ollama);
    const again = (await second.ok('interventions.pending', {})).interventions.find((i) => i.run_id === run_id);
    expect(again?.id).toBe(q1.id);
    await expect(second.ok('interventions.answer', { run_id, intervention_id: q1.id, answer: { action: 'reject' } })).rejects.toThrow(/needs its feedback/);
    expect(await second.ok('interventions.answer', { run_id, intervention_id: q1.id, answer: { action: 'reject', note: 'Add a timeline.' } })).toEqual({ resumed: true });

    // The page is sent the journal again on subscribing: the new question is the one that is not q1.
    const newer = () => asked(second.events, run_id).filter((i) => i.id !== q1.id);
    await expect.poll(() => newer().length, { timeout: 30_000 }).toBe(1);
    const q2 = newer()[0] as Intervention;
    expect(q2.judgment).toMatchObject({ iteration: 2, previous_feedback: 'Add a timeline.' });
    expect(q2.judgment?.output).toContain('Revised to address: Add a timeline.');
    // Resumed at the judgment: the worker ran once more (iteration 2), not again for iteration 1.
    expect(workerCalls(ollama).length - callsBefore).toBe(1);

    expect(await second.ok('interventions.answer', { run_id, intervention_id: q2.id, answer: { action: 'approve', evidence: q2.judgment?.outputs.map((o) => o.id) } })).toEqual({ resumed: true });
    await expect.poll(() => finished(second.events, run_id), { timeout: 30_000 }).toBeDefined();
    expect(finished(second.events, run_id)).toMatchObject({ status: 'completed', outputs: { approved: true, iterations: 2 } });
    expect(String(finished(second.events, run_id)?.outputs?.report)).toContain('Revised to address: Add a timeline.');

    // Every judgment is recorded: the person as caller, the verdict, the evidence, verification and timing.
    const records = judgments(second.events, run_id);
    expect(records.map((r) => [r.iteration, r.caller.kind, r.verdict?.verdict, r.verification.ok])).toEqual([
      [1, 'human', 'rejected', true],
      [2, 'human', 'approved', true],
    ]);
    expect(records[0]?.evidence).toEqual(q1.judgment?.outputs.map((o) => o.id));
    expect(Date.parse(records[0]?.ended_at ?? '')).toBeGreaterThanOrEqual(Date.parse(q1.requested_at));
    expect(second.events.some((e) => e.run_id === run_id && e.type === 'pattern.preference')).toBe(true);
    expect((await second.ok('interventions.pending', {})).interventions.filter((i) => i.run_id === run_id)).toEqual([]);
  }, 120_000);

  it('past its expiry the judgment goes to its fallback: with none, the system escalates and the node fails escalated', async () => {
    const { dataDir, first, run_id } = await setUp({ expiry_seconds: 60 });
    await expect.poll(() => asked(first.events, run_id).length, { timeout: 30_000 }).toBe(1);
    const q = asked(first.events, run_id)[0] as Intervention;
    expect(q.judgment).toMatchObject({ fallback: { kind: 'escalate' } });
    expect(Date.parse(q.judgment?.expires_at ?? '') - Date.parse(q.requested_at)).toBe(60_000);
    // The expiry is on disk; a minute is long for a test: the stored expiry is moved into the past.
    await first.close();
    backdateExpiry(dataDir, run_id);

    // The host's timer (at its start and every few seconds) hands it over: nobody answers.
    const second = await openHost(dataDir, { url: '' } as FakeOllama);
    await expect.poll(() => finished(second.events, run_id), { timeout: 30_000 }).toBeDefined();
    expect(finished(second.events, run_id)).toMatchObject({ status: 'failed' });
    expect(finished(second.events, run_id)?.message).toContain('the human judgment expired unanswered');
    const records = judgments(second.events, run_id);
    expect(records.at(-1)).toMatchObject({ caller: { kind: 'system' }, verdict: { verdict: 'escalated' } });
    expect(second.events.find((e) => e.run_id === run_id && e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'expired' } });
  }, 120_000);

  it('past its expiry with a fallback model, the model judges in the person’s place and the run completes approved', async () => {
    const { ollama, dataDir, first, run_id } = await setUp({ expiry_seconds: 60, fallback: { kind: 'llm', profile: 'backup' } });
    await expect.poll(() => asked(first.events, run_id).length, { timeout: 30_000 }).toBe(1);
    await first.close();
    backdateExpiry(dataDir, run_id);
    const second = await openHost(dataDir, ollama);
    await expect.poll(() => finished(second.events, run_id), { timeout: 30_000 }).toBeDefined();
    expect(finished(second.events, run_id)).toMatchObject({ status: 'completed', outputs: { approved: true, iterations: 1 } });
    expect(judgments(second.events, run_id).at(-1)).toMatchObject({ id: expect.stringMatching(/f$/), caller: { kind: 'llm', profile: 'backup' }, verdict: { verdict: 'approved' } });
  }, 120_000);
});

/** Moves a parked judgment's expiry a minute into the past, in the checkpoint in the data folder's history. */
function backdateExpiry(dataDir: string, runId: string): void {
  const store = waitingStoresIn(dataDir, cleanups).workflowCheckpoints;
  const checkpoint = store.get(runId);
  if (!checkpoint) throw new Error('no checkpoint');
  const past = new Date(Date.now() - 60_000).toISOString();
  for (const w of Object.values(checkpoint.waiting)) if (w.intervention.judgment) w.intervention.judgment.expires_at = past;
  store.save(checkpoint);
  expect(Object.values(store.get(runId)?.waiting ?? {}).map((w) => w.intervention.judgment?.expires_at)).toEqual([past]);
}
