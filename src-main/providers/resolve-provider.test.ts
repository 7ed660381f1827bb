import { afterEach, describe, expect, it } from 'vitest';
import { ModelRef } from '@shared/contracts/model';
import { ModelScript } from '@shared/contracts/script';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';
import { startFakeOpenAI, type FakeOpenAI } from '../../test-support/fake-openai';
import { ProviderError } from './provider';
import { credentialRefsOf, resolveProvider } from './resolve-provider';

let fake: FakeOllama | undefined;
const openaiFakes: FakeOpenAI[] = [];
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await Promise.all(openaiFakes.splice(0).map((f) => f.close()));
});

async function serveOpenAI(...args: Parameters<typeof startFakeOpenAI>): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(...args);
  openaiFakes.push(server);
  return server;
}

const openaiRef = (baseUrl: string, extra: Record<string, unknown> = {}) =>
  ModelRef.parse({ provider: 'openai_compatible', base_url: baseUrl, model: 'local-model', ...extra });

const STUDENT_KEY = 'sk-STUDENTkey0123456789abcdefghijkl';
const TEACHER_KEY = 'sk-TEACHERkey0123456789abcdefghijkl';

const ask = { role: 'student' as const, messages: [{ role: 'user' as const, content: 'go' }] };

describe('resolveProvider', () => {
  it('a script ref becomes the replay of that role’s entries', async () => {
    const script = ModelScript.parse({ student: [{ text: 'from the student script' }], teacher: [{ text: 'from the teacher script' }] });
    const teacher = resolveProvider(ModelRef.parse({ provider: 'script' }), 'teacher', { script });
    expect(teacher.label).toBe('replay');
    expect((await teacher.complete({ ...ask, role: 'teacher' })).text).toBe('from the teacher script');
  });

  it('a script ref without a script is a configuration error that says what is missing', () => {
    expect(() => resolveProvider(ModelRef.parse({ provider: 'script' }), 'student', {})).toThrow(
      'the replay (script) provider needs a `script` or `script_file` in the spec',
    );
  });

  it('an Ollama ref without a host talks to the app’s configured Ollama', async () => {
    fake = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], chat: () => ({ message: { content: '{"decision_type":"complete","output":"ok"}' } }) });
    const provider = resolveProvider(ModelRef.parse({ provider: 'ollama', model: 'qwen3:4b' }), 'student', { ollamaHost: fake.url });
    expect(provider.label).toBe('ollama:qwen3:4b');
    expect((await provider.complete(ask)).text).toBe('{"decision_type":"complete","output":"ok"}');
    expect(fake.chatRequests()).toHaveLength(1);
  });

  it('an OpenAI-compatible ref gets its key from the apiKeys map; each server sees only its own key, a keyless one none', async () => {
    const student = await serveOpenAI({ chat: () => ({ message: { content: 'from the student server' } }) });
    const teacher = await serveOpenAI({ chat: () => ({ message: { content: 'from the teacher server' } }) });
    const local = await serveOpenAI({ chat: () => ({ message: { content: 'from the local server' } }) });
    const apiKeys = new Map([
      ['keychain:STUDENT', STUDENT_KEY],
      ['keychain:TEACHER', TEACHER_KEY],
    ]);
    const refs = {
      student: openaiRef(student.baseUrl, { api_key: 'keychain:STUDENT' }),
      teacher: openaiRef(teacher.baseUrl, { api_key: 'keychain:TEACHER' }),
      local: openaiRef(local.baseUrl),
    };
    const replies = [
      await resolveProvider(refs.student, 'student', { apiKeys }).complete(ask),
      await resolveProvider(refs.teacher, 'teacher', { apiKeys }).complete({ ...ask, role: 'teacher' }),
      await resolveProvider(refs.local, 'student', { apiKeys }).complete(ask),
    ];
    expect(replies.map((r) => r.text)).toEqual(['from the student server', 'from the teacher server', 'from the local server']);
    expect(student.requests.map((r) => r.authorization)).toEqual([`Bearer ${STUDENT_KEY}`]);
    expect(teacher.requests.map((r) => r.authorization)).toEqual([`Bearer ${TEACHER_KEY}`]);
    expect(local.requests.map((r) => r.authorization)).toEqual([undefined]);
  });

  it('an OpenAI-compatible ref whose key is not in the apiKeys map is refused, naming the reference', async () => {
    const server = await serveOpenAI({ chat: () => ({ message: { content: 'unreached' } }) });
    const ref = openaiRef(server.baseUrl, { api_key: 'keychain:MISSING' });
    for (const deps of [{}, { apiKeys: new Map([['keychain:OTHER', STUDENT_KEY]]) }]) {
      let thrown: unknown;
      try {
        resolveProvider(ref, 'teacher', deps);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ProviderError);
      expect((thrown as ProviderError).code).toBe('credential_missing');
      expect((thrown as ProviderError).message).toContain('the teacher model');
      expect((thrown as ProviderError).message).toContain('needs the credential keychain:MISSING');
      expect((thrown as ProviderError).message).toContain('steward credentials set MISSING');
      expect((thrown as ProviderError).message).not.toContain(STUDENT_KEY);
    }
    expect(server.requests).toEqual([]);
  });

  it('credentialRefsOf lists each keychain reference the models need, once', () => {
    const refs = [
      openaiRef('https://api.example.com/v1', { api_key: 'keychain:A' }),
      openaiRef('https://other.example.com/v1', { api_key: 'keychain:A' }),
      openaiRef('http://127.0.0.1:8080/v1'),
      ModelRef.parse({ provider: 'ollama', model: 'qwen3:4b' }),
      ModelRef.parse({ provider: 'script' }),
      openaiRef('https://third.example.com/v1', { api_key: 'keychain:B' }),
    ];
    expect(credentialRefsOf(...refs)).toEqual(['keychain:A', 'keychain:B']);
    expect(credentialRefsOf(ModelRef.parse({ provider: 'script' }))).toEqual([]);
  });
});
