import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { ModelRef } from '@shared/contracts/model';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { recordLearningRun } from '../../../test-support/learning-run';
import { EventJournal } from '../../events/event-journal';
import { ProviderError, type ModelProvider } from '../../providers/provider';
import { RequestError } from '../../registry/request-error';
import { compareRound } from '@shared/learning/trial-report';
import { compareTrials, recordedTrial, trialReplayHeadline } from '@shared/learning/trial-replay';
import { replayTrial } from './replay-trial';
import { trialHandlers } from './trial-handlers';

/**
 * The host's `trial.start` / `trial.status` (issue 31) on a history recorded by a real supervised
 * run (scripted student and teacher on the real filesystem MCP server, phase 2). The candidate is a
 * TEST DOUBLE at the model boundary: an in-process provider that always completes.
 */

let dir: string;
let journal: EventJournal;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'steward-trial-host-'));
  journal = EventJournal.open(join(dir, 'history.sqlite'), { log: () => undefined });
  journal.append((await recordLearningRun(6, 2)).events, { made: true });
}, 60_000);

afterAll(() => {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
});

const noCredentials = { list: async () => [], set: async () => undefined, get: async () => undefined, delete: async () => false };

function host(candidate?: ModelProvider) {
  const events: RunEvent[] = [];
  let finished: (event: RunEvent) => void = () => undefined;
  const ended = new Promise<RunEvent>((resolve) => (finished = resolve));
  const trials = trialHandlers({
    journal,
    onEvent: (event) => {
      events.push(event);
      journal.append([event], { made: true });
      if (event.type === 'run.finished') finished(event);
    },
    privacy: () => LOCAL_ONLY,
    ollamaHost: 'http://127.0.0.1:9',
    credentials: noCredentials,
    profiles: { list: () => ({ profiles: [], workflow_choices: [], deleted: [] }) },
    log: () => undefined,
    ...(candidate ? { resolve: async () => candidate } : {}),
  });
  return { ...trials, events, ended };
}

describe('trial.start / trial.status', () => {
  it('starts a trial as a run of its own and answers its report, from memory and then from the history', async () => {
    let calls = 0;
    const double: ModelProvider = {
      label: 'double:completes',
      complete: async () => {
        calls += 1;
        return { text: JSON.stringify({ decision_type: 'complete', output: 'done after 6 rounds' }), tool_calls: [], model: 'double:completes', latency_ms: 1 };
      },
    };
    const h = host(double);
    const started = await h.handlers['trial.start']({ target: { kind: 'spec', spec_id: 'learning-run' }, student: { provider: 'ollama', model: 'x', mode: 'structured', timeout_ms: 1000 }, rounds: 200 });
    expect(started).toMatchObject({ started: true, rounds: 6, title: 'Trial of double:completes on Learning run' });
    if (!started.started) throw new Error('not started');
    await h.ended;
    const status = await h.handlers['trial.status']({ run_id: started.run_id });
    expect(status).toMatchObject({ state: 'completed', done: 6, total: 6 });
    // Only the last round completed: the candidate agrees there alone.
    expect(status.report?.candidate.agreement).toMatchObject({ count: 1, of: 6 });
    expect(calls).toBe(6);
    // A host started later reads it from the history.
    const later = host(double);
    expect(await later.handlers['trial.status']({ run_id: started.run_id })).toEqual(status);
  });

  it('refuses a model the privacy policy does not allow, in words, before any call; an unknown trial is not found', async () => {
    const h = host();
    const refused = await h.handlers['trial.start']({ target: { kind: 'spec', spec_id: 'learning-run' }, student: ModelRef.parse({ provider: 'openai_compatible', base_url: 'https://models.example.com/v1', model: 'big' }), rounds: 10 });
    expect(refused.started).toBe(false);
    if (refused.started) throw new Error('started');
    expect(refused.message).toMatch(/cannot be tried as a student here: .*Nothing was sent to it\./);
    expect(h.events).toHaveLength(0);
    await expect(h.handlers['trial.status']({ run_id: 'nope' })).rejects.toBeInstanceOf(RequestError);
  });

  it('cancels a running trial: the run ends cancelled, never completed, with the rounds done reported as partial', async () => {
    let calls = 0;
    let reachedThird: () => void = () => undefined;
    const third = new Promise<void>((resolve) => (reachedThird = resolve));
    // TEST DOUBLE: answers two rounds, then waits on the third until the trial is cancelled.
    const double: ModelProvider = {
      label: 'double:slow',
      complete: async (request) => {
        calls += 1;
        if (calls === 3) {
          reachedThird();
          await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve(), { once: true }));
          throw new ProviderError('cancelled', 'the call was cancelled');
        }
        return { text: JSON.stringify({ decision_type: 'complete', output: 'done' }), tool_calls: [], model: 'double:slow', latency_ms: 1 };
      },
    };
    const h = host(double);
    const started = await h.handlers['trial.start']({ target: { kind: 'spec', spec_id: 'learning-run' }, student: { provider: 'ollama', model: 'x', mode: 'structured', timeout_ms: 1000 }, rounds: 200 });
    if (!started.started) throw new Error('not started');
    await third;
    expect(await h.handlers['trial.cancel']({ run_id: started.run_id })).toEqual({ cancelled: true });
    const ended = await h.ended;
    expect(ended).toMatchObject({ type: 'run.finished', status: 'cancelled', message: 'The trial was cancelled after 2 of 6 rounds; the figures cover those 2 only.' });
    const status = await h.handlers['trial.status']({ run_id: started.run_id });
    expect(status).toMatchObject({ state: 'cancelled', done: 2, total: 6 });
    expect(status.report?.stopped).toEqual({ after: 2, of: 6 });
    expect(status.report?.candidate.agreement.of).toBe(2);
    expect(status.report?.words[0]).toBe('Cancelled after 2 of 6 rounds; the figures cover those 2 only.');
    expect(calls).toBe(3);
    // Read back from the history by a host started later: still cancelled, with the partial report.
    const later = host(double);
    expect(await later.handlers['trial.status']({ run_id: started.run_id })).toMatchObject({ state: 'cancelled', done: 2, report: { stopped: { after: 2, of: 6 } } });
    // Nothing of that id runs any more.
    expect(await h.handlers['trial.cancel']({ run_id: started.run_id })).toEqual({ cancelled: false });
  });

  it('replays a recorded trial on its recorded replies: the same report, zero model calls; a changed comparison rule is listed in words', async () => {
    let calls = 0;
    const double: ModelProvider = {
      label: 'double:reads',
      complete: async () => {
        calls += 1;
        return { text: JSON.stringify({ decision_type: 'complete', output: 'done after 6 rounds' }), tool_calls: [], model: 'double:reads', latency_ms: 3, usage: { input_tokens: 10, output_tokens: 4 } };
      },
    };
    const h = host(double);
    const started = await h.handlers['trial.start']({ target: { kind: 'spec', spec_id: 'learning-run' }, student: { provider: 'ollama', model: 'x', mode: 'structured', timeout_ms: 1000 }, rounds: 200 });
    if (!started.started) throw new Error('not started');
    await h.ended;
    expect(calls).toBe(6);
    const trialEvents = journal.runEvents(started.run_id);

    // Replayed through the host's runs.replay path (the run view's Replay…): a run of its own.
    const replayed = await h.replay(trialEvents);
    expect(calls).toBe(6);
    expect(replayed.gaps).toEqual([]);
    const events = journal.runEvents(replayed.run_id);
    expect(events[0]).toMatchObject({ type: 'run.started', replay_of: started.run_id, spec_name: 'Trial of double:reads on Learning run', dry_run: true, exposure: [] });
    expect(events.filter((e) => e.type === 'model.called')).toHaveLength(0);
    expect(events.filter((e) => e.type === 'trial.round')).toHaveLength(6);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', output: 'The replay made the same report as the recorded trial.' });
    const recordedReport = trialEvents.find((e) => e.type === 'trial.finished');
    const replayReport = events.find((e) => e.type === 'trial.finished');
    if (recordedReport?.type !== 'trial.finished' || replayReport?.type !== 'trial.finished') throw new Error('no reports');
    expect(replayReport.report).toEqual(recordedReport.report);
    const compared = compareTrials(recordedTrial(trialEvents) ?? { rounds: [] }, recordedTrial(events) ?? { rounds: [] });
    expect(compared.same).toBe(true);
    expect(trialReplayHeadline(compared)).toBe('The replay made the same report: every one of the 6 rounds compared as recorded.');

    // Today's comparison rule changed (here: it counts a 'complete' as agreeing only with a tool call): the difference is listed.
    const changed: typeof compareRound = (index, recorded, answer) => {
      const r = compareRound(index, recorded, answer);
      return { ...r, agrees_selected: false };
    };
    const differs = await replayTrial({ events: trialEvents, runId: 'replay-changed', runEvents: (id) => journal.runEvents(id), emit: (payload) => ({ ...payload, run_id: 'replay-changed', seq: 0, ts: new Date().toISOString() }) as RunEvent, emitted: () => 0, compare: changed });
    expect(calls).toBe(6);
    expect(differs.comparison.same).toBe(false);
    expect(differs.comparison.differences).toContain('Report · agreement with the selected decisions: 1 of 6 (16.7%) recorded → 0 of 6 (0%) replayed.');
    expect(differs.comparison.differences.some((d) => /^Trial round 6 \(run \w{8} · round \d+\): agrees with the selected decision yes → no\.$/.test(d))).toBe(true);
    expect(trialReplayHeadline(differs.comparison)).toMatch(/^The replay's report differs from the recorded one in \d+ places/);
  });
});
