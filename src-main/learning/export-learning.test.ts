import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Decision } from '@shared/contracts/decision';
import { RunEvent } from '@shared/contracts/events';
import type { HistoryEntry } from '@shared/contracts/history';
import { PreferenceLine, SftLine } from '@shared/contracts/learning-export';
import type { ChatMessage } from '@shared/contracts/model';
import { SupervisionSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { TeacherVerdict } from '@shared/contracts/verdict';
import { READ_FILE, WRITE_FILE } from '@shared/boundary/testing/fixtures';
import { buildStudentMessages } from '../providers/prompts';
import { exportLearning } from './export-learning';
import { LearningExportError } from './learning-errors';
import { readTraceExamples } from './read-trace';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-learning-'));
  dirs.push(dir);
  return dir;
}

// A real student prompt (the engine's own builder) for round 2 of a notes run.
const snapshot: ToolSnapshot = { round: 2, tools: [READ_FILE, WRITE_FILE], hash: 'snapshot-hash-0002' };
const history: HistoryEntry[] = [
  { index: 0, round: 0, decision: { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'notes.md' } }, result: '# Sync\nBo: migration guide' },
  { index: 1, round: 1, decision: { decision_type: 'ask_user', question: 'Where should the summary go?' }, result: 'summary.md' },
];
const context: ChatMessage[] = buildStudentMessages({ instructions: 'You summarise notes.', task: 'Summarise notes.md', snapshot, history });

const overwrite = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'notes.md', content: 'Summary' } };
const summary: Decision = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'summary.md', content: '- Bo: guide' } };
const replace: TeacherVerdict = { verdict: 'replace', reason_codes: ['unsafe_effect'], explanation: 'Keep the notes.', replacement: summary };
const block: TeacherVerdict = { verdict: 'block', reason_codes: ['policy_violation'], explanation: 'No.' };

/** The events of one run, as `steward run --trace` writes them, each checked against RunEvent. */
function runEvents(runId: string, examples: Array<{ verdict: TeacherVerdict; final?: Decision }>): RunEvent[] {
  let seq = 0;
  const env = () => ({ id: `${runId}:${String(seq).padStart(6, '0')}`, run_id: runId, seq: seq++, ts: '2026-11-30T10:00:00.000Z' });
  const events: unknown[] = [
    {
      type: 'run.started',
      ...env(),
      spec_id: 'notes-assistant',
      spec_name: 'Notes assistant',
      task: 'Summarise notes.md',
      supervision: SupervisionSpec.parse({}),
      models: { student: 'replay', teacher: 'replay' },
    },
    ...examples.map((e, i) => ({
      type: 'learning.example',
      ...env(),
      round: i + 2,
      context,
      rule: 'protected_effect',
      student_candidate: overwrite,
      verdict: e.verdict,
      ...(e.final ? { final_decision: e.final } : {}),
      reason_codes: e.verdict.reason_codes,
      agreement: false,
      models: { student: 'replay', teacher: 'replay' },
    })),
  ];
  events.push({ type: 'run.finished', ...env(), status: 'completed', rounds: examples.length + 2, event_count: events.length + 1 });
  return events.map((e) => RunEvent.parse(e));
}

function writeTrace(dir: string, name: string, events: RunEvent[], extra = ''): string {
  const path = join(dir, name);
  writeFileSync(path, events.map((e) => `${JSON.stringify(e)}\n`).join('') + extra);
  return path;
}

function jsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
}

describe('exportLearning', () => {
  it('exports a real student prompt: system and task, history as JSON decisions and tool results as user turns, the teacher’s decision last', async () => {
    const dir = tempDir();
    const trace = writeTrace(dir, 'run.jsonl', runEvents('run-aaaa-0001', [{ verdict: replace, final: summary }]));
    const out = join(dir, 'sft.jsonl');
    const result = await exportLearning({ trace, format: 'sft', out });
    expect(result).toEqual({ format: 'sft', traces: 1, examples: 1, written: 1, skipped: {}, problems: [] });

    const [line] = jsonl(out).map((l) => SftLine.parse(l));
    expect(line?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(line?.messages[0]?.content).toBe(context[0]?.content);
    expect(line?.messages[2]).toEqual({ role: 'assistant', content: JSON.stringify(history[0]?.decision), weight: 0 });
    expect(line?.messages[3]).toEqual({ role: 'user', content: 'Tool result:\n# Sync\nBo: migration guide' });
    expect(line?.messages[5]).toEqual({ role: 'user', content: 'summary.md' });
    expect(line?.messages[6]).toEqual({ role: 'assistant', content: JSON.stringify(summary) });
  });

  it('writes preference pairs for replacements only and counts the block', async () => {
    const dir = tempDir();
    const trace = writeTrace(dir, 'run.jsonl', runEvents('run-aaaa-0002', [{ verdict: replace, final: summary }, { verdict: block }]));
    const out = join(dir, 'pairs.jsonl');
    const result = await exportLearning({ trace, format: 'preference', out });
    expect(result).toMatchObject({ examples: 2, written: 1, skipped: { no_final_decision: 1 } });
    const [pair] = jsonl(out).map((l) => PreferenceLine.parse(l));
    expect(pair?.preferred_output[0]?.content).toBe(JSON.stringify(summary));
    expect(pair?.non_preferred_output[0]?.content).toBe(JSON.stringify(overwrite));
  });

  it('a torn or foreign line is skipped and reported by line number; the rest of the trace still exports', async () => {
    const dir = tempDir();
    const events = runEvents('run-aaaa-0003', [{ verdict: replace, final: summary }]);
    const trace = writeTrace(dir, 'run.jsonl', events, '{"type":"round.started","id":"run-aa\n');
    const lines = readFileSync(trace, 'utf8').split('\n');
    lines.splice(1, 0, '', '{"type":"learning.example","id":"x"}');
    writeFileSync(trace, lines.join('\n'));

    const read = await readTraceExamples(trace);
    expect(read.examples).toHaveLength(1);
    expect(read.problems.map((p) => p.line)).toEqual([3, events.length + 3]);
    expect(read.problems[0]?.message).toMatch(/^a "learning.example" event this version cannot read/);
    expect(read.problems[1]?.message).toBe('not JSON');

    const result = await exportLearning({ trace, format: 'sft', out: join(dir, 'out.jsonl') });
    expect(result.written).toBe(1);
    expect(result.problems).toHaveLength(2);
  });

  it('an old trace’s dry run is not exported: its examples are dropped, a real run’s in the same file are kept', async () => {
    const dir = tempDir();
    const dry = runEvents('run-aaaa-0009', [{ verdict: replace, final: summary }, { verdict: replace, final: summary }]).map((e) => (e.type === 'run.started' ? { ...e, dry_run: true } : e));
    const real = runEvents('run-aaaa-0010', [{ verdict: replace, final: summary }]);
    const trace = writeTrace(dir, 'runs.jsonl', [...dry, ...real]);
    const read = await readTraceExamples(trace);
    expect(read.examples.map((e) => e.run_id)).toEqual(['run-aaaa-0010']);
    const out = join(dir, 'sft.jsonl');
    const result = await exportLearning({ trace, format: 'sft', out });
    expect(result).toMatchObject({ examples: 1, written: 1, problems: [] });
    expect(jsonl(out)).toHaveLength(1);
  });

  it('refuses a file that holds no Steward event at all, naming the first bad line', async () => {
    const dir = tempDir();
    const spec = join(dir, 'spec.json');
    writeFileSync(spec, JSON.stringify({ format: 'steward/v1', kind: 'agent' }, null, 2));
    await expect(readTraceExamples(spec)).rejects.toThrow(/is not a Steward trace \(line 1: not JSON\)/);
    const out = join(dir, 'out.jsonl');
    await expect(exportLearning({ trace: spec, format: 'sft', out })).rejects.toBeInstanceOf(LearningExportError);
    expect(existsSync(out)).toBe(false);
  });

  it('a missing or unreadable trace is a clear error, not a crash', async () => {
    const dir = tempDir();
    await expect(readTraceExamples(join(dir, 'nope.jsonl'))).rejects.toThrow(/cannot read trace .*nope\.jsonl: no such file/);
    await expect(readTraceExamples(dir)).rejects.toThrow(/cannot read trace .*: it is a folder/);
  });

  it('several traces export together, and a trace given twice does not duplicate its examples', async () => {
    const dir = tempDir();
    const a = writeTrace(dir, 'a.jsonl', runEvents('run-aaaa-0004', [{ verdict: replace, final: summary }]));
    const b = writeTrace(dir, 'b.jsonl', runEvents('run-bbbb-0004', [{ verdict: replace, final: summary }, { verdict: block }]));
    const out = join(dir, 'sft.jsonl');
    const result = await exportLearning({ trace: [a, b, a], format: 'sft', out });
    expect(result).toMatchObject({ traces: 3, examples: 3, written: 2, skipped: { duplicate: 1, no_final_decision: 1 } });
    expect(jsonl(out)).toHaveLength(2);
  });

  it('an empty trace exports an empty file: zero examples is an answer, not an error', async () => {
    const dir = tempDir();
    const trace = join(dir, 'empty.jsonl');
    writeFileSync(trace, '');
    const out = join(dir, 'out.jsonl');
    expect(await exportLearning({ trace, format: 'preference', out })).toEqual({ format: 'preference', traces: 1, examples: 0, written: 0, skipped: {}, problems: [] });
    expect(readFileSync(out, 'utf8')).toBe('');
  });

  it('never overwrites its input trace, and an unwritable output leaves no partial file', async () => {
    const dir = tempDir();
    const trace = writeTrace(dir, 'run.jsonl', runEvents('run-aaaa-0005', [{ verdict: replace, final: summary }]));
    const before = readFileSync(trace, 'utf8');
    await expect(exportLearning({ trace, format: 'sft', out: trace })).rejects.toThrow(/refusing to overwrite the trace/);
    expect(readFileSync(trace, 'utf8')).toBe(before);

    await expect(exportLearning({ trace, format: 'sft', out: join(dir, 'missing', 'out.jsonl') })).rejects.toThrow(/cannot write .*its folder does not exist/);
    await expect(exportLearning({ trace, format: 'sft', out: dir })).rejects.toThrow(/cannot write/);
    expect(readdirSync(dir)).toEqual(['run.jsonl']);
  });

  it('a sink receives exactly the JSONL a file would hold', async () => {
    const dir = tempDir();
    const trace = writeTrace(dir, 'run.jsonl', runEvents('run-aaaa-0006', [{ verdict: replace, final: summary }]));
    const file = join(dir, 'out.jsonl');
    await exportLearning({ trace, format: 'preference', out: file });
    let sunk = '';
    await exportLearning({ trace, format: 'preference', out: (text) => (sunk += text) });
    expect(sunk).toBe(readFileSync(file, 'utf8'));
    expect(sunk.endsWith('\n')).toBe(true);
  });

  it('a teacher demonstration read back from a trace is exported: JSON drops its absent student candidate, and the line still reads', async () => {
    const dir = tempDir();
    const [start, example, end] = runEvents('run-aaaa-0009', [{ verdict: replace, final: summary }]);
    if (!start || !example || example.type !== 'learning.example' || !end) throw new Error('the run has no learning example');
    const { verdict: _v, rule: _r, ...rest } = example;
    const demonstration = RunEvent.parse({ ...rest, kind: 'demonstration', student_candidate: undefined, reason_codes: [] });
    const trace = writeTrace(dir, 'run.jsonl', [start, demonstration, end]);
    expect(readFileSync(trace, 'utf8')).not.toContain('student_candidate');

    const read = await readTraceExamples(trace);
    expect(read.problems).toEqual([]);
    const result = await exportLearning({ trace, format: 'sft', out: join(dir, 'sft.jsonl') });
    expect(result).toMatchObject({ examples: 1, written: 1 });
    expect(jsonl(join(dir, 'sft.jsonl')).map((l) => SftLine.parse(l).messages.at(-1))).toEqual([{ role: 'assistant', content: JSON.stringify(summary) }]);
  });
});
