import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelScript } from '@shared/contracts/script';
import { ProviderError, type ModelRequest } from './provider';
import { createScriptProvider, createScriptProviders } from './script-provider';

const ask = (signal?: AbortSignal): ModelRequest => ({ role: 'student', messages: [{ role: 'user', content: 'go' }], signal });

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('replay (script) provider', () => {
  it('answers each call with the role’s next scripted entry, in order and in its own form', async () => {
    const script = ModelScript.parse({
      student: [
        { json: { decision_type: 'ask_user', question: 'Which folder?' } },
        { text: 'not json at all' },
        { tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      ],
    });
    const student = createScriptProvider(script, 'student');
    expect(student.label).toBe('replay');

    const first = await student.complete(ask());
    expect(first).toEqual({ text: '{"decision_type":"ask_user","question":"Which folder?"}', tool_calls: [], model: 'replay', latency_ms: 0 });
    const second = await student.complete(ask());
    expect(second).toEqual({ text: 'not json at all', tool_calls: [], model: 'replay', latency_ms: 0 });
    const third = await student.complete(ask());
    expect(third).toEqual({ text: '', tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }], model: 'replay', latency_ms: 0 });
  });

  it('running out of entries fails as script_exhausted and says how many were used', async () => {
    const script = ModelScript.parse({ student: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }] });
    const student = createScriptProvider(script, 'student');
    for (let i = 0; i < 4; i++) await student.complete(ask());
    const err = await providerError(student.complete(ask()));
    expect(err.code).toBe('script_exhausted');
    expect(err.message).toBe('the replay script has no more student responses (used 4)');

    const teacher = createScriptProvider(script, 'teacher');
    const empty = await providerError(teacher.complete(ask()));
    expect(empty.message).toBe('the replay script has no more teacher responses (used 0)');
  });

  it('an error entry fails that call as scripted_error and the script moves on', async () => {
    const script = ModelScript.parse({ teacher: [{ error: 'the teacher is down (scripted)' }, { json: { verdict: 'accept' } }] });
    const teacher = createScriptProvider(script, 'teacher');
    const err = await providerError(teacher.complete(ask()));
    expect(err.code).toBe('scripted_error');
    expect(err.message).toBe('the teacher is down (scripted)');
    expect((await teacher.complete(ask())).text).toBe('{"verdict":"accept"}');
  });

  it('the student and teacher replays share no position in the script', async () => {
    const script = ModelScript.parse({ student: [{ text: 's1' }, { text: 's2' }], teacher: [{ text: 't1' }] });
    const { student, teacher } = createScriptProviders(script);
    expect((await student.complete(ask())).text).toBe('s1');
    expect((await teacher.complete(ask())).text).toBe('t1');
    expect((await student.complete(ask())).text).toBe('s2');
    expect((await providerError(teacher.complete(ask()))).code).toBe('script_exhausted');
  });

  it('holds each reply back until the script latency plus the entry delay has passed', async () => {
    vi.useFakeTimers();
    const script = ModelScript.parse({ latency_ms: 300, student: [{ text: 'late', delay_ms: 200 }] });
    const student = createScriptProvider(script, 'student');
    let settled = false;
    const reply = student.complete(ask()).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect((await reply).text).toBe('late');
  });

  it('a replayed reply reports the latency its script gave it (deterministic, so a replay’s trace is too) and no token usage', async () => {
    vi.useFakeTimers();
    const script = ModelScript.parse({ latency_ms: 300, student: [{ text: 'late', delay_ms: 200 }, { text: 'soon' }] });
    const student = createScriptProvider(script, 'student');
    const first = student.complete(ask());
    await vi.advanceTimersByTimeAsync(500);
    expect(await first).toMatchObject({ latency_ms: 500 });
    expect((await first).usage).toBeUndefined();
    const second = student.complete(ask());
    await vi.advanceTimersByTimeAsync(300);
    expect((await second).latency_ms).toBe(300);
  });

  it('cancelling during the wait rejects as cancelled and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const script = ModelScript.parse({ latency_ms: 60_000, student: [{ text: 'never' }] });
    const student = createScriptProvider(script, 'student');
    const controller = new AbortController();
    const pending = providerError(student.complete(ask(controller.signal)));
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    const err = await pending;
    expect(err.code).toBe('cancelled');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an already-cancelled call consumes no entry', async () => {
    const script = ModelScript.parse({ student: [{ text: 'first' }] });
    const student = createScriptProvider(script, 'student');
    const controller = new AbortController();
    controller.abort();
    expect((await providerError(student.complete(ask(controller.signal)))).code).toBe('cancelled');
    expect((await student.complete(ask())).text).toBe('first');
  });

  it('a caller changing the script or a reply afterwards does not change the replay', async () => {
    const script = ModelScript.parse({ student: [{ tool_calls: [{ name: 'read_file', arguments: { path: 'a' } }] }, { text: 'two' }] });
    const student = createScriptProvider(script, 'student');
    script.student.splice(0, 2, { text: 'tampered' });
    const reply = await student.complete(ask());
    expect(reply.tool_calls).toEqual([{ name: 'read_file', arguments: { path: 'a' } }]);
    expect((await student.complete(ask())).text).toBe('two');
  });
});
