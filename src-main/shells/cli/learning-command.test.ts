import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { PreferenceLine, SftLine } from '@shared/contracts/learning-export';
import { learningCommand } from './learning-command';
import { EXAMPLES, tempNotesWorkspace } from '../../../test-support/workspace';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { readTraceFile } from '../../../test-support/trace-file';

const execFileP = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/steward.mjs', import.meta.url));
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function tempFolder(): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return ws.dir;
}

async function learning(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await learningCommand(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

/**
 * Runs the demo through the real `steward` binary in a temp copy, writing a trace. The spec keeps
 * the default supervision (risk-gated: protected effects are always reviewed), so the test rests on
 * that rule, not on the example's own supervision block.
 */
async function demoTrace(): Promise<{ dir: string; workspace: string; trace: string; cleanup: () => void }> {
  const ws = tempNotesWorkspace();
  const spec = JSON.parse(readFileSync(join(EXAMPLES, 'notes-assistant.json'), 'utf8')) as Record<string, unknown>;
  delete spec.supervision;
  if (typeof spec.script_file === 'string') {
    const script = JSON.parse(readFileSync(join(EXAMPLES, spec.script_file), 'utf8')) as Record<string, unknown>;
    delete spec.script_file;
    spec.script = { ...script, latency_ms: 0 };
  }
  const file = join(ws.dir, 'notes-assistant.json');
  writeFileSync(file, JSON.stringify(spec));
  const trace = join(ws.dir, 'run.jsonl');
  await execFileP(process.execPath, [BIN, 'run', file, '--trace', trace], { env: { ...process.env, STEWARD_DATA_DIR: join(ws.dir, 'data') } });
  return { dir: ws.dir, workspace: ws.workspace, trace, cleanup: ws.cleanup };
}

function learningEvents(trace: string): Array<RunEventOf<'learning.example'>> {
  return readTraceFile(trace).filter((e): e is RunEventOf<'learning.example'> => e.type === 'learning.example');
}

function lines(path: string): unknown[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
}

describe('steward learning export on a trace from a real run', () => {
  // One real run of the demo, through the built `steward` binary, shared by the tests below.
  let run: { dir: string; workspace: string; trace: string; cleanup: () => void };
  let example: RunEventOf<'learning.example'>;
  beforeAll(async () => {
    ensureBuilt();
    run = await demoTrace();
    // The demo's two reviewed rounds: the student overwrites the notes and the teacher writes
    // summary.md instead; then, after that refusal, the teacher checks the student's final answer.
    const events = learningEvents(run.trace);
    expect(events.map((e) => [e.kind, e.rule, e.verdict?.verdict])).toEqual([
      ['review', expect.any(String), 'replace'],
      ['review', 'after_refusal', 'accept'],
    ]);
    const [replaced] = events;
    if (!replaced) throw new Error('the demo run recorded no learning example');
    example = replaced;
  }, 120_000);
  afterAll(() => run.cleanup());

  it('SFT: each reviewed round is one valid line — the student’s prompt, then the teacher’s replacement (or the accepted answer) as the trained turn', async () => {
    const out = join(run.dir, 'sft.jsonl');
    const { code, stdout, stderr } = await learning(['export', run.trace, '--format', 'sft', '-o', out]);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `wrote 2 SFT examples to ${out}\n`, stderr: '' });

    const [line, answer, ...more] = lines(out).map((l) => SftLine.parse(l));
    expect(more).toEqual([]);
    // The final answer the teacher checked after its replacement, accepted as the student gave it.
    expect(JSON.parse(answer?.messages.at(-1)?.content ?? '')).toMatchObject({ decision_type: 'complete' });
    const target = line?.messages.at(-1);
    expect(target?.role).toBe('assistant');
    expect(JSON.parse(target?.content ?? '')).toEqual({
      decision_type: 'tool_call',
      tool_name: 'write_file',
      arguments: { path: join(run.workspace, 'summary.md'), content: expect.stringContaining('## Action items') },
    });
    // The prompt is the student's, as recorded: system, task, its two reads and their results.
    expect(line?.messages.slice(0, -1).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(line?.messages.slice(0, -1).map((m) => m.content)).toEqual(example.context.map((m) => (m.role === 'tool' ? `Tool result:\n${m.content}` : m.content)));
    expect(line?.messages[0]?.content).toContain('Never modify or overwrite the original notes.');
    expect(line?.messages[3]?.content).toMatch(/^Tool result:\n.*meeting-notes\.md/s);
  });

  it('preference: the teacher’s replacement is preferred over the student’s overwrite of the notes', async () => {
    const out = join(run.dir, 'pairs.jsonl');
    const { code, stdout, stderr } = await learning(['export', run.trace, '--format', 'preference', '-o', out]);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `wrote 1 preference pair to ${out} (1 skipped: student and teacher agreed)\n`, stderr: '' });
    const [pair, ...more] = lines(out).map((l) => PreferenceLine.parse(l));
    expect(more).toEqual([]);
    expect(JSON.parse(pair?.preferred_output[0]?.content ?? '')).toMatchObject({ arguments: { path: join(run.workspace, 'summary.md') } });
    expect(JSON.parse(pair?.non_preferred_output[0]?.content ?? '')).toMatchObject({ tool_name: 'write_file', arguments: { path: join(run.workspace, 'meeting-notes.md') } });
    expect(pair?.input.messages.at(-1)?.role).toBe('user');
  });

  it('-o - writes the dataset to standard output and the summary to standard error', async () => {
    const file = join(run.dir, 'sft-file.jsonl');
    await learning(['export', run.trace, '--format', 'sft', '-o', file]);
    const { code, stdout, stderr } = await learning(['export', run.trace, '--format=sft', '-o', '-']);
    expect(code).toBe(0);
    expect(stdout).toBe(readFileSync(file, 'utf8'));
    expect(stderr).toBe('wrote 2 SFT examples to standard output\n');
  });

  it('the same trace given twice exports its examples once and says so', async () => {
    const out = join(run.dir, 'twice.jsonl');
    const { code, stdout } = await learning(['export', run.trace, run.trace, '--format', 'sft', '-o', out]);
    expect(code).toBe(0);
    expect(stdout).toBe(`wrote 2 SFT examples to ${out} (2 skipped: same example read twice)\n`);
  });
});

describe('steward learning export: bad input', () => {
  it('an unknown or missing format, a missing output or trace, and a bad flag are exit 2 with the reason', async () => {
    const dir = tempFolder();
    const trace = join(dir, 'run.jsonl');
    writeFileSync(trace, '');
    const out = join(dir, 'out.jsonl');
    const cases: Array<[string[], RegExp]> = [
      [['export', trace, '--format', 'csv', '-o', out], /unknown --format "csv": use sft or preference/],
      [['export', trace, '-o', out], /--format is required/],
      [['export', trace, '--format', 'sft'], /-o OUT\.jsonl is required/],
      [['export', '--format', 'sft', '-o', out], /give at least one TRACE\.jsonl/],
      [['export', trace, '--format', 'sft', '--output'], /argument missing/],
      [['export', trace, '--format', 'sft', '-o', out, '--yes'], /Unknown option '--yes'/],
      [['import', trace], /unknown subcommand "import"/],
      [[], /which subcommand/],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await learning(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr, argv.join(' ')).toMatch(message);
      expect(stdout, argv.join(' ')).toBe('');
    }
  });

  it('an unreadable trace or a file that is not a trace is exit 2, and no output is written', async () => {
    const dir = tempFolder();
    const out = join(dir, 'out.jsonl');
    const missing = await learning(['export', join(dir, 'nope.jsonl'), '--format', 'sft', '-o', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read trace .*nope\.jsonl: no such file/);

    const spec = join(EXAMPLES, 'notes-assistant.json');
    const notTrace = await learning(['export', spec, '--format', 'preference', '-o', out]);
    expect(notTrace.code).toBe(2);
    expect(notTrace.stderr).toMatch(/is not a Steward trace \(line 1: /);
    expect(() => readFileSync(out)).toThrow();
  });

  it('a trace with no learning examples is fine: exit 0, an empty file, and the summary says why', async () => {
    const dir = tempFolder();
    const trace = join(dir, 'run.jsonl');
    const finished = { type: 'run.finished', id: 'run-zero-0001:000000', run_id: 'run-zero-0001', seq: 0, ts: '2026-11-30T10:00:00.000Z', status: 'completed', rounds: 1, event_count: 1 };
    writeFileSync(trace, `${JSON.stringify(RunEvent.parse(finished))}\n`);
    const out = join(dir, 'out.jsonl');
    const { code, stdout, stderr } = await learning(['export', trace, '--format', 'sft', '-o', out]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(`wrote 0 SFT examples to ${out}: no learning examples in the trace (only rounds the teacher reviewed make them)\n`);
    expect(readFileSync(out, 'utf8')).toBe('');
  });

  it('bad lines are warned about with file and line, at most ten listed', async () => {
    const dir = tempFolder();
    const trace = join(dir, 'run.jsonl');
    const finished = { type: 'run.finished', id: 'run-zero-0002:000000', run_id: 'run-zero-0002', seq: 0, ts: '2026-11-30T10:00:00.000Z', status: 'completed', rounds: 1, event_count: 1 };
    writeFileSync(trace, `${JSON.stringify(finished)}\n${'garbage\n'.repeat(12)}`);
    const { code, stderr } = await learning(['export', trace, '--format', 'sft', '-o', join(dir, 'out.jsonl')]);
    expect(code).toBe(0);
    const warnings = stderr.trim().split('\n');
    expect(warnings).toHaveLength(11);
    expect(warnings[0]).toBe(`steward: warning: ${trace}:2: skipped line: not JSON`);
    expect(warnings[10]).toBe('steward: warning: 2 more bad lines skipped');
  });

  it('help lists the command and its formats', async () => {
    const { code, stdout } = await learning(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('steward learning export TRACE.jsonl');
    expect(stdout).toContain('--format preference');
  });
});
