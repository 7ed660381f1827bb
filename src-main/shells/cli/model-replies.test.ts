import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunResult } from '@shared/contracts/run-result';
import { startFakeOllama, type FakeChatResult, type FakeOllama } from '../../../test-support/fake-ollama';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIResult } from '../../../test-support/fake-openai';
import { closedPort } from '../../../test-support/closed-port';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { readTraceFile } from '../../../test-support/trace-file';
import { runCli, EXIT } from './cli';

/** `steward run` against model servers that misbehave: what the run, the terminal, --json and the trace show. */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dir(): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return ws.dir;
}

/** A spec with no tools whose student is `student` and that nobody reviews (unless `extra` says otherwise). */
function specFile(student: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const file = join(dir(), 'agent.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'agent',
      id: 'talker',
      name: 'Talker',
      instructions: 'Answer.',
      task: 'Say something.',
      models: { student, teacher: { provider: 'script' } },
      supervision: { enabled: false },
      script: { latency_ms: 0, student: [], teacher: [] },
      ...extra,
    }),
  );
  return file;
}

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: join(dir(), 'data') } });
  return { code, stdout, stderr };
}

async function ollama(chat: (index: number) => FakeChatResult, models = [{ name: 'qwen3:4b' }]): Promise<FakeOllama> {
  const server = await startFakeOllama({ models, chat: (_r, i) => chat(i) });
  cleanups.push(() => server.close());
  return server;
}

async function openai(chat: (index: number) => FakeOpenAIResult): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({ chat: (_r, i) => chat(i) });
  cleanups.push(() => server.close());
  return server;
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;
const complete = (output: string) => JSON.stringify({ decision_type: 'complete', output });

describe('errors that cannot heal end the run at once, with one message', () => {
  it('a model server nobody listens on: the run stops before round 1 and prints one message naming the model, the address and what to do', async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await cli(['run', specFile({ provider: 'ollama', model: 'qwen3:4b', host: `http://127.0.0.1:${port}` })]);
    expect(code).toBe(EXIT.badInput);
    const all = stdout + stderr;
    expect(occurrences(all, 'is not reachable')).toBe(1);
    expect(stderr).toContain(`the student model ollama:qwen3:4b is not reachable: nothing answers at http://127.0.0.1:${port}`);
    expect(stderr).toContain('ollama serve');
    expect(stdout).not.toMatch(/round/);
  });

  it('a model that is not installed is asked for once, not every round, and --json says why', async () => {
    const server = await ollama(() => ({ message: { content: complete('hi') } }), [{ name: 'other:1b' }]);
    const { code, stdout } = await cli(['run', specFile({ provider: 'ollama', model: 'qwen3:4b', host: server.url }), '--json']);
    expect(code).toBe(EXIT.runNotCompleted);
    const result = RunResult.parse(JSON.parse(stdout));
    expect(result.status).toBe('failed');
    expect(result.rounds).toHaveLength(1);
    expect(result.message).toContain('ollama pull qwen3:4b');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('a reviewer nobody listens on stops the run before round 1: the student is never asked, one message', async () => {
    const port = await closedPort();
    const teacher = { provider: 'ollama', model: 'qwen3:4b', host: `http://127.0.0.1:${port}` };
    const file = specFile(
      { provider: 'script' },
      {
        models: { student: { provider: 'script' }, teacher },
        supervision: { enabled: true, phase: 2, max_verdict_attempts: 3 },
        script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'done' } }], teacher: [] },
      },
    );
    const { code, stdout, stderr } = await cli(['run', file]);
    expect(code).toBe(EXIT.badInput);
    expect(occurrences(stdout + stderr, 'is not reachable')).toBe(1);
    expect(stderr).toContain('the teacher model ollama:qwen3:4b is not reachable');
    expect(stdout).not.toMatch(/round/);
  });
});

describe('transient errors are retried, and every retry is shown', () => {
  it('a 429 with Retry-After, then an answer: the run completes and the terminal shows the retry', async () => {
    const server = await openai((i) => (i === 0 ? { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } } : { message: { content: complete('done') } }));
    const trace = join(dir(), 'trace.jsonl');
    const { code, stdout } = await cli(['run', specFile({ provider: 'openai_compatible', base_url: server.baseUrl, model: 'm' }), '--trace', trace]);
    expect(code).toBe(EXIT.ok);
    expect(server.chatRequests()).toHaveLength(2);
    expect(stdout).toMatch(/student model retry 1 in 0 ms: .*429/);
    const events = readTraceFile(trace);
    const retry = events.find((e) => e.type === 'model.retry');
    expect(retry).toMatchObject({ role: 'student', attempt: 1, delay_ms: 0 });
  });
});

describe('what a model said is stored bounded, with its original size', () => {
  it('a 10 MB reply: the provider stops reading, the trace and --json stay small', async () => {
    const huge = 'x'.repeat(10 * 1000 * 1000);
    const server = await ollama(() => ({ message: { content: complete(huge) } }));
    const trace = join(dir(), 'trace.jsonl');
    const { code, stdout } = await cli(['run', specFile({ provider: 'ollama', model: 'qwen3:4b', host: server.url }), '--json', '--trace', trace]);
    expect(code).toBe(EXIT.runNotCompleted);
    const result = RunResult.parse(JSON.parse(stdout));
    expect(result.message).toContain('max_reply_bytes');
    expect(server.responses.filter((r) => r.path === '/api/chat').every((r) => !r.finished)).toBe(true);
    expect(statSync(trace).size).toBeLessThan(100_000);
    expect(Buffer.byteLength(stdout)).toBeLessThan(100_000);
  });

  it('a valid but huge `complete` (under a raised max_reply_bytes) is trimmed in the trace and --json, its original size recorded', async () => {
    const output = 'y'.repeat(2 * 1024 * 1024);
    const server = await ollama(() => ({ message: { content: complete(output) } }));
    const trace = join(dir(), 'trace.jsonl');
    const { code, stdout } = await cli(['run', specFile({ provider: 'ollama', model: 'qwen3:4b', host: server.url, max_reply_bytes: 4 * 1024 * 1024 }), '--json', '--trace', trace]);
    expect(code).toBe(EXIT.ok);
    const result = RunResult.parse(JSON.parse(stdout));
    expect(result.status).toBe('completed');
    expect(result.output?.startsWith('yyyy')).toBe(true);
    expect(Buffer.byteLength(result.output ?? '')).toBeLessThan(20 * 1024);
    expect(result.output).toContain(`${output.length} bytes`);
    expect(result.trimmed).toContainEqual({ path: 'output', original_bytes: output.length });
    expect(Buffer.byteLength(stdout)).toBeLessThan(200_000);
    expect(statSync(trace).size).toBeLessThan(300_000);
    const events = readTraceFile(trace);
    const proposed = events.find((e) => e.type === 'candidate.proposed');
    expect(proposed?.trimmed).toContainEqual({ path: 'reply.text', original_bytes: Buffer.byteLength(complete(output)) });
    const finished = events.find((e) => e.type === 'run.finished');
    expect(finished?.trimmed).toContainEqual({ path: 'output', original_bytes: output.length });
  });
});

/**
 * What each model call cost, from the servers' own counts (set here, so the numbers are
 * recognisable) to every place a run is read: the trace's events, --json's rounds, the OTLP export.
 */
describe('token usage and latency of model calls', () => {
  it('reach the events, --json’s rounds and the OTLP chat spans: Ollama’s eval counts for the student, OpenAI usage for the teacher', async () => {
    const ollama = await startFakeOllama({
      models: [{ name: 'qwen3:4b' }],
      chat: () => ({ message: { content: JSON.stringify({ decision_type: 'complete', output: 'done' }) }, counts: { prompt_eval_count: 412, eval_count: 37 }, delay_ms: 120 }),
    });
    cleanups.push(() => ollama.close());
    const openai = await startFakeOpenAI({
      chat: () => ({ message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' }) }, usage: { prompt_tokens: 1200, completion_tokens: 64 }, delay_ms: 90 }),
    });
    cleanups.push(() => openai.close());
    const home = dir();
    const spec = join(home, 'agent.json');
    writeFileSync(
      spec,
      JSON.stringify({
        format: 'steward/v1',
        kind: 'agent',
        id: 'counted',
        name: 'Counted',
        instructions: 'Answer.',
        task: 'Say something.',
        models: { student: { provider: 'ollama', model: 'qwen3:4b', host: ollama.url }, teacher: { provider: 'openai_compatible', base_url: openai.baseUrl, model: 'judge' } },
        supervision: { enabled: true, phase: 2 },
      }),
    );
    const trace = join(home, 'trace.jsonl');
    const run = await cli(['run', spec, '--json', '--trace', trace]);
    expect(run.code, run.stderr).toBe(EXIT.ok);

    const events = readTraceFile(trace);
    const proposed = events.find((e) => e.type === 'candidate.proposed');
    const verdict = events.find((e) => e.type === 'verdict.received');
    if (proposed?.type !== 'candidate.proposed' || verdict?.type !== 'verdict.received') throw new Error('the run recorded no proposal or verdict');
    expect(proposed.reply.usage).toEqual({ input_tokens: 412, output_tokens: 37 });
    expect(proposed.reply.latency_ms).toBeGreaterThanOrEqual(120);
    expect(verdict.attempt.reply?.usage).toEqual({ input_tokens: 1200, output_tokens: 64 });
    expect(verdict.attempt.reply?.latency_ms).toBeGreaterThanOrEqual(90);

    const result = RunResult.parse(JSON.parse(run.stdout));
    expect(result.rounds[0]?.candidate.reply?.usage).toEqual({ input_tokens: 412, output_tokens: 37 });
    expect(result.rounds[0]?.verdicts[0]?.reply?.usage).toEqual({ input_tokens: 1200, output_tokens: 64 });

    const out = join(home, 'run.otlp.json');
    expect((await cli(['trace', 'otlp', trace, '-o', out])).code).toBe(EXIT.ok);
    const request = JSON.parse(readFileSync(out, 'utf8')) as OtlpRequest;
    const chats = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
    const student = chats.find((s) => attr(s, 'steward.role') === 'student');
    const teacher = chats.find((s) => attr(s, 'steward.role') === 'teacher');
    if (!student || !teacher) throw new Error('the export has no student or teacher chat span');
    expect([attr(student, 'gen_ai.usage.input_tokens'), attr(student, 'gen_ai.usage.output_tokens')]).toEqual([412, 37]);
    expect([attr(teacher, 'gen_ai.usage.input_tokens'), attr(teacher, 'gen_ai.usage.output_tokens')]).toEqual([1200, 64]);
    // The span lasts the call, not "since the previous step".
    expect(durationMs(student)).toBe(proposed.reply.latency_ms);
    expect(durationMs(teacher)).toBe(verdict.attempt.reply?.latency_ms);
  }, 30_000);
});

interface OtlpSpan {
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}
interface OtlpRequest {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
}
function attr(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
}
function durationMs(span: OtlpSpan): number {
  return Number((BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1_000_000n);
}
