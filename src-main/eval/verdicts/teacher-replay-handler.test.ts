import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_METHODS } from '@shared/contracts/host-api';
import { TeacherReplayStatus } from '@shared/contracts/profile-replay';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { startFakeOllama, type FakeChatRequest, type FakeOllama } from '../../../test-support/fake-ollama';
import { teacherVerdictsHistory } from '../../../test-support/teacher-verdicts-history';
import { EventJournal } from '../../events/event-journal';
import { teacherReplayHandlers } from './teacher-replay-handler';

/**
 * Issue 31's button on a teacher profile: `verdicts.replay_teacher.*` put the recorded teacher
 * verdicts of a history (the two-agent workflow's: reads accepted, every other write — a protected
 * effect — blocked) to the profile's model, in the background. The candidate is a TEST DOUBLE at the
 * model boundary: a local HTTP server speaking the Ollama API (fake-ollama.ts), reached through the
 * real Ollama provider, resolved as the CLI resolves a candidate (the privacy policy decides).
 */

let dir: string;
let journal: EventJournal;
let empty: EventJournal;
let fake: FakeOllama;
const asked: FakeChatRequest[] = [];
let onChat: () => Promise<void> | void = () => undefined;

const accept = { verdict: 'accept', reason_codes: [], explanation: 'Looks fine to me.' };
const block = { verdict: 'block', reason_codes: ['wrong_tool'], explanation: 'Reading is not needed.' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'steward-teacher-replay-'));
  journal = EventJournal.open(join(dir, 'history.sqlite'), { log: () => undefined });
  journal.append(teacherVerdictsHistory('two-agents', { runs: 1, roundsPerNode: 6, writerBlockEvery: 2 }), { made: true });
  empty = EventJournal.open(join(dir, 'empty.sqlite'), { log: () => undefined });
  // This candidate teacher accepts every write and blocks every read: the opposite of the recorded one.
  fake = await startFakeOllama({
    models: [{ name: 'lenient' }],
    chat: async (request) => {
      asked.push(request);
      await onChat();
      const last = request.messages.at(-1)?.content ?? '';
      return { message: { content: JSON.stringify(/"tool_name":\s*"read_text_file"/.test(last) ? block : accept) } };
    },
  });
}, 30_000);

afterAll(async () => {
  await fake?.close();
  journal?.close();
  empty?.close();
  rmSync(dir, { recursive: true, force: true });
});

const noCredentials = { list: async () => [], set: async () => undefined, get: async () => undefined, delete: async () => false };
const host = (j: EventJournal = journal) => teacherReplayHandlers({ journal: j, privacy: () => LOCAL_ONLY, ollamaHost: 'http://127.0.0.1:9', credentials: noCredentials, log: () => undefined });
const teacher = (model: Record<string, unknown>) =>
  HOST_METHODS['verdicts.replay_teacher.start'].params.parse({ profile: { id: 'cand', name: 'Lenient teacher', version: 2, created_at: '2026-12-01T00:00:00Z', kind: 'teacher', model } });
const lenient = () => teacher({ provider: 'ollama', model: 'lenient', host: fake.url });

describe('verdicts.replay_teacher (the Settings screen’s "Replay past verdicts" on a teacher profile)', () => {
  it('puts every recorded teacher verdict to the profile’s model and lists the flips, the protected writes it would now let through first', async () => {
    asked.length = 0;
    const h = host();
    expect(await h.handlers['verdicts.replay_teacher.start'](lenient())).toEqual({ started: true, total: 12 });
    await h.settled();
    const status = TeacherReplayStatus.parse(await h.handlers['verdicts.replay_teacher.status']());
    expect(status).toMatchObject({ state: 'completed', profile_id: 'cand', done: 12, total: 12, teacher: 'ollama:lenient' });
    const result = status.result;
    expect(result).toMatchObject({ profile: 'Lenient teacher v2', teacher: 'ollama:lenient', cases: 12, runs: 1, protected_catches_lost: 3, truncated: false });
    // Each case went to the model through the engine's review prompt, with the verdict schema.
    expect(asked).toHaveLength(12);
    expect(asked[0]?.format).toBeDefined();
    const kinds = result?.flips.map((f) => [f.kind, f.protected_catch_lost]);
    // The three blocked writes now accepted come first; then the reads now blocked (stricter).
    expect(kinds?.slice(0, 3)).toEqual([
      ['catch_lost', true],
      ['catch_lost', true],
      ['catch_lost', true],
    ]);
    expect(kinds?.slice(3).every(([kind, lost]) => kind === 'stricter' && lost === false)).toBe(true);
    expect(result?.flipped).toBe(result?.flips.length);
    expect(result?.agreeing).toBe(12 - (result?.flipped ?? 0));
    const [first] = result?.flips ?? [];
    expect(first?.words).toMatch(/^the call write_file .*\(irreversible write, protected\) would now be accepted; the recorded teacher blocked it — then block \(an unsafe effect\): "Not this write\."; now accept: "Looks fine to me\."/i);
    expect(first?.past.verdict).toBe('block');
    // No person answered in this history: every case is the recorded teacher's.
    expect(result?.flips.every((f) => f.decided_by === 'teacher')).toBe(true);
    expect(first?.now?.verdict).toBe('accept');
  }, 30_000);

  it('an empty history: started with nothing to put, and nothing sent to the model', async () => {
    asked.length = 0;
    const h = host(empty);
    expect(await h.handlers['verdicts.replay_teacher.start'](lenient())).toEqual({ started: true, total: 0 });
    await h.settled();
    expect(await h.handlers['verdicts.replay_teacher.status']()).toMatchObject({ state: 'completed', done: 0, total: 0, result: { cases: 0, flips: [] } });
    expect(asked).toHaveLength(0);
  });

  it('refuses in words a replay model, and a cloud model the privacy policy does not allow, before any case is read', async () => {
    const h = host();
    expect(await h.handlers['verdicts.replay_teacher.start'](teacher({ provider: 'script' }))).toMatchObject({ started: false, message: expect.stringMatching(/^Lenient teacher v2 uses the replay model/) });
    const cloud = await h.handlers['verdicts.replay_teacher.start'](teacher({ provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'big' }));
    expect(cloud).toMatchObject({ started: false, message: expect.stringMatching(/^The model of Lenient teacher v2 cannot be used as a candidate teacher here: .*api\.example\.com.*Nothing was sent to it\.$/s) });
    expect(await h.handlers['verdicts.replay_teacher.status']()).toEqual({ state: 'idle', done: 0, total: 0 });
    // Only a teacher profile has a model to replay.
    expect(HOST_METHODS['verdicts.replay_teacher.start'].params.safeParse({ profile: { id: 's', name: 'S', version: 1, created_at: 'x', kind: 'supervision', supervision: {} } }).success).toBe(false);
  });

  it('one at a time; cancel stops it and says how many cases were compared', async () => {
    const h = host();
    onChat = async () => {
      if (asked.length === 1) {
        expect(await h.handlers['verdicts.replay_teacher.start'](lenient())).toMatchObject({ started: false, message: expect.stringMatching(/^Past verdicts are already being replayed under ollama:lenient/) });
        expect(await h.handlers['verdicts.replay_teacher.cancel']()).toEqual({ cancelled: true });
      }
    };
    asked.length = 0;
    try {
      expect(await h.handlers['verdicts.replay_teacher.start'](lenient())).toEqual({ started: true, total: 12 });
      await h.settled();
    } finally {
      onChat = () => undefined;
    }
    const status = await h.handlers['verdicts.replay_teacher.status']();
    expect(status).toMatchObject({ state: 'cancelled', total: 12, message: expect.stringMatching(/^Cancelled after [01] of 12 cases: only those were compared\.$/) });
    expect(asked.length).toBeLessThanOrEqual(2);
    expect(await h.handlers['verdicts.replay_teacher.cancel']()).toEqual({ cancelled: false });
  }, 30_000);
});
