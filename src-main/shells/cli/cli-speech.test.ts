import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { forwardToHost } from '../cli-channel/channel-client';
import { EXIT, runCli } from './cli';
import { espeakArgs } from './cli-speech';

/**
 * Issue 29, seed 000: a rejected or replaced candidate never reaches TTS. `steward run` speaks an
 * agent's delivered responses through espeak-ng; here a recording shim named `espeak-ng` stands
 * first on PATH: it appends its arguments and what it reads on standard input to a log, then hands
 * the same input and arguments to the real /usr/bin/espeak-ng writing to /dev/null (no audio device
 * needed), and logs its exit code, so espeak-ng itself accepts the voice and speed Steward passes.
 * The models are the script provider (the double at the model boundary): the student's final
 * answer is replaced by the teacher's.
 */

const REJECTED = 'STUDENT CANDIDATE the teacher replaced';
const FINAL = 'The teacher final answer, delivered';
const REAL_ESPEAK = '/usr/bin/espeak-ng';

const dirs: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
  vi.unstubAllEnvs();
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function sandbox(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-speech-'));
  dirs.push(dir);
  return dir;
}

const script = {
  student: [{ json: { decision_type: 'complete', output: REJECTED } }],
  teacher: [{ json: { verdict: 'replace', reason_codes: ['hallucination'], explanation: 'The answer is not supported.', replacement: { decision_type: 'complete', output: FINAL } } }],
};
const synthesis = { enabled: true, voice: 'en', rate: 1.5, speak: ['complete', 'ask_user'] };

function agentFile(dir: string): string {
  const file = join(dir, 'speaker.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'agent',
      id: 'speaker',
      name: 'Speaker',
      instructions: 'Answer the question.',
      task: 'Say what the notes hold.',
      supervision: { enabled: true, phase: 2 },
      synthesis,
      script,
    }),
  );
  return file;
}

function workflowFile(dir: string): string {
  const file = join(dir, 'speaking.workflow.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'speaking',
      name: 'Speaking workflow',
      nodes: [
        { id: 'answerer', kind: 'agent', instructions: 'Answer the question.', task: 'Say what the notes hold.', supervision: { enabled: true, phase: 2 }, synthesis, script },
        { id: 'output', kind: 'output', fields: [{ name: 'output', type: 'text', required: true }] },
      ],
      edges: [{ from: { node: 'answerer', port: 'output' }, to: { node: 'output', port: 'output' } }],
    }),
  );
  return file;
}

const QUESTION = 'Which notes should I read first?';
const AFTER_ANSWER = 'Read the Monday notes first, as you said';

/** An agent whose (replay) student asks the person a question, then completes: the run waits between the two. */
function askingAgentFile(dir: string): string {
  const file = join(dir, 'asker.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'agent',
      id: 'asker',
      name: 'Asker',
      instructions: 'Ask, then answer.',
      task: 'Say which notes to read.',
      supervision: { enabled: false },
      synthesis,
      script: { latency_ms: 0, student: [{ json: { decision_type: 'ask_user', question: QUESTION } }, { json: { decision_type: 'complete', output: AFTER_ANSWER } }], teacher: [] },
    }),
  );
  return file;
}

/** A folder holding only the recording `espeak-ng`; its log files beside it. */
function recordingShim(dir: string, name = 'bin'): { bin: string; args: string; said: string } {
  const bin = join(dir, name);
  mkdirSync(bin);
  const args = join(dir, `${name}-espeak-args.log`);
  const said = join(dir, `${name}-espeak-stdin.log`);
  const real = existsSync(REAL_ESPEAK) ? `"${REAL_ESPEAK}" "$@" -w /dev/null` : 'cat >/dev/null';
  writeFileSync(
    join(bin, 'espeak-ng'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${args}'\ntee -a '${said}' | ${real}\necho "exit:$?" >> '${args}'\n`,
  );
  chmodSync(join(bin, 'espeak-ng'), 0o755);
  return { bin, args, said };
}

async function run(argv: string[], dir: string, path: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: join(dir, 'data'), PATH: path } });
  return { code, stdout, stderr };
}

/** The shim runs on after the command returns (speech never holds the run up): wait for its last line. */
async function shimDone(log: string): Promise<string> {
  await expect.poll(() => (existsSync(log) ? readFileSync(log, 'utf8') : ''), { timeout: 15_000 }).toContain('exit:');
  return readFileSync(log, 'utf8');
}

describe('steward run speaks delivered responses only', () => {
  it('an agent file: espeak-ng hears the delivered final answer, never the replaced candidate', async () => {
    const dir = sandbox();
    const shim = recordingShim(dir);
    const trace = join(dir, 'run.jsonl');
    const { code, stdout, stderr } = await run(['run', agentFile(dir), '--trace', trace], dir, `${shim.bin}:/usr/bin:/bin`);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toContain(FINAL);
    // The student did propose the candidate (the trace keeps it); the teacher replaced it.
    expect(readFileSync(trace, 'utf8')).toContain(REJECTED);
    expect(stderr).not.toContain('espeak-ng');
    const args = await shimDone(shim.args);
    expect(args.split('\n')[0]).toBe(espeakArgs('en', 1.5).join(' '));
    expect(args.split('\n')[0]).toBe('-v en -s 263');
    if (existsSync(REAL_ESPEAK)) expect(args).toContain('exit:0');
    const said = readFileSync(shim.said, 'utf8');
    expect(said).toBe(`${FINAL}\n`);
    expect(said).not.toContain(REJECTED);
  });

  it('a workflow’s agent node speaks the same way', async () => {
    const dir = sandbox();
    const shim = recordingShim(dir);
    const { code, stderr } = await run(['run', workflowFile(dir)], dir, `${shim.bin}:/usr/bin:/bin`);
    expect(stderr).not.toContain('espeak-ng');
    expect(code).toBe(EXIT.ok);
    await shimDone(shim.args);
    const said = readFileSync(shim.said, 'utf8');
    expect(said).toBe(`${FINAL}\n`);
    expect(said).not.toContain(REJECTED);
  });

  it('without espeak-ng on PATH, one note says so and the run completes; --no-speech says nothing and speaks nothing', async () => {
    const dir = sandbox();
    const empty = join(dir, 'empty-bin');
    mkdirSync(empty);
    const missing = await run(['run', agentFile(dir)], dir, empty);
    expect(missing.code).toBe(EXIT.ok);
    expect(missing.stdout).toContain(FINAL);
    const notes = missing.stderr.split('\n').filter((l) => l.includes('espeak-ng'));
    expect(notes).toEqual(['steward: Speech is on for node Speaker but espeak-ng is not installed; install it to hear answers (or run with --no-speech)']);

    const shim = recordingShim(dir);
    const silent = await run(['run', agentFile(dir), '--no-speech'], dir, `${shim.bin}:/usr/bin:/bin`);
    expect(silent.code).toBe(EXIT.ok);
    expect(silent.stderr).not.toContain('espeak-ng');
    expect(existsSync(shim.args)).toBe(false);
  });

  it('steward validate refuses speech settings out of range, in words', async () => {
    const dir = sandbox();
    const file = agentFile(dir);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...doc, synthesis: { enabled: true, rate: 4, speak: [] } }));
    const { code, stderr } = await run(['validate', file], dir, '/usr/bin:/bin');
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain('the speech rate is a number from 0.5 to 2');
    expect(stderr).toContain('speech is on but speaks nothing');
  });
});

describe('a run resumed or followed from the command line speaks what it delivers from then on', () => {
  it('steward answer: the resumed run speaks its final answer, never the question the history already holds; --no-speech speaks nothing', async () => {
    const dir = sandbox();
    const file = askingAgentFile(dir);
    const first = recordingShim(dir, 'first');
    const waiting = await run(['run', file], dir, `${first.bin}:/usr/bin:/bin`);
    expect(waiting.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits for you/.exec(waiting.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    await shimDone(first.args);
    expect(readFileSync(first.said, 'utf8')).toBe(`${QUESTION}\n`);

    const resumed = recordingShim(dir, 'resumed');
    const answered = await run(['answer', runId, 'reply', 'The Monday notes.'], dir, `${resumed.bin}:/usr/bin:/bin`);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(EXIT.ok);
    expect(answered.stdout).toContain(AFTER_ANSWER);
    const args = await shimDone(resumed.args);
    expect(args.split('\n')[0]).toBe('-v en -s 263');
    // Spoken once, from the answer on: the question was delivered before this command listened.
    expect(readFileSync(resumed.said, 'utf8')).toBe(`${AFTER_ANSWER}\n`);

    const again = await run(['run', file], dir, `${first.bin}:/usr/bin:/bin`);
    const againId = /the run (\S+) waits for you/.exec(again.stdout)?.[1] ?? '';
    const silent = recordingShim(dir, 'silent');
    const quiet = await run(['answer', againId, 'reply', 'The Monday notes.', '--no-speech'], dir, `${silent.bin}:/usr/bin:/bin`);
    expect(quiet.code).toBe(EXIT.ok);
    expect(quiet.stdout).toContain(AFTER_ANSWER);
    expect(quiet.stderr).not.toContain('espeak-ng');
    expect(existsSync(silent.args)).toBe(false);
  });

  it('steward run attached to a waiting run (the app holds the folder): answered in the app, the rest of the run is spoken too', async () => {
    const dir = sandbox();
    const dataDir = join(dir, 'data');
    const shim = recordingShim(dir);
    // The command runs inside the host, which finds espeak-ng on its own PATH.
    vi.stubEnv('PATH', `${shim.bin}:/usr/bin:/bin`);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    const out = { stdout: '', stderr: '' };
    const code = forwardToHost(['run', askingAgentFile(dir)], { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t), env: {}, cwd: dir }, dataDir);
    await expect.poll(() => out.stdout, { timeout: 15_000 }).toContain('waits for you');
    expect(out.stderr).toContain('waiting here for the answer');
    await expect.poll(() => (existsSync(shim.said) ? readFileSync(shim.said, 'utf8') : ''), { timeout: 15_000 }).toBe(`${QUESTION}\n`);
    const [waiting] = (await page.ok('interventions.pending', {})).interventions;
    expect((await page.ok('interventions.answer', { run_id: waiting?.run_id ?? '', intervention_id: waiting?.id ?? '', answer: { action: 'reply', text: 'The Monday notes.' } })).resumed).toBe(true);
    expect(await code).toBe(EXIT.ok);
    expect(out.stdout).toContain(AFTER_ANSWER);
    await expect.poll(() => readFileSync(shim.said, 'utf8'), { timeout: 15_000 }).toBe(`${QUESTION}\n${AFTER_ANSWER}\n`);
  });
});
