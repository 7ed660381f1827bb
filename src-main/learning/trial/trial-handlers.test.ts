import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { ModelRef } from '@shared/contracts/model';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { recordLearningRun } from '../../../test-support/learning-run';
import { EventJournal } from '../../events/event-journal';
import type { ModelProvider } from '../../providers/provider';
import { RequestError } from '../../registry/request-error';
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
});
