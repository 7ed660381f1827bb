import { afterEach, describe, expect, it } from 'vitest';
import { ModelRef } from '@shared/contracts/model';
import { ModelScript } from '@shared/contracts/script';
import { startFakeOllama, type FakeOllama } from '../../test-support/fake-ollama';
import { resolveProvider } from './resolve-provider';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

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
});
