import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../test-support/workspace';
import { runCli } from './cli';
import { formatPatternEvent } from './format-pattern';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

async function cli(argv: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-pattern-cli-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

const envelope = { id: 'r:000001', run_id: 'r', seq: 1, ts: '2026-12-01T00:00:00.000Z', invocation_id: 'notes' };

describe('CLI lines for pattern nodes', () => {
  it('a judgment line names the judgment, its caller, the verdict with its citations and feedback, and its timing', () => {
    const line = formatPatternEvent({
      ...envelope,
      type: 'pattern.judgment',
      judgment: {
        id: 'notes:j0.1.0.1',
        step: 0,
        iteration: 1,
        attempt: 1,
        caller: { kind: 'llm', profile: 'quality-gate' },
        verdict: { verdict: 'rejected', feedback: 'Missing a Risks\nsection.', evidence: ['draft#1'], caller: { kind: 'llm', profile: 'quality-gate' } },
        evidence: ['draft#1'],
        verification: { ok: true },
        started_at: '2026-12-01T00:00:00.000Z',
        ended_at: '2026-12-01T00:00:00.012Z',
      },
    });
    expect(line).toBe('    ⚖ notes:j0.1.0.1 model quality-gate → rejected (cites draft#1): Missing a Risks section. · 12 ms');
  });

  it('an unusable answer says why; a best output returned unapproved says so plainly', () => {
    const unusable = formatPatternEvent({
      ...envelope,
      type: 'pattern.judgment',
      judgment: { id: 'notes:j0.1.0.2', step: 0, iteration: 1, attempt: 2, caller: { kind: 'human', who: 'ana' }, evidence: [], verification: { ok: false, problem: 'the verdict was free text' }, started_at: '', ended_at: '' },
    });
    expect(unusable).toBe('    ⚖ notes:j0.1.0.2 (asked again) person ana → unusable: the verdict was free text');
    expect(formatPatternEvent({ ...envelope, type: 'pattern.ended', status: 'unapproved', approved: false, iterations: 3, reason: 'no output was approved in 3 iteration(s)' })).toBe(
      '    ⚖ notes returns its best output, NOT approved after 3 iteration(s): no output was approved in 3 iteration(s)',
    );
  });

  it('steward run prints a line per iteration and judgment under the pattern node, and --json carries the iterations and judgments', async () => {
    const file = join(EXAMPLES, 'pattern-pipeline.workflow.json');
    const text = await cli(['run', file]);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n').filter((l) => l.startsWith('    ↻') || l.startsWith('    ⚖'));
    expect(lines.map((l) => l.replace(/ · \d+ ms$/, ''))).toEqual([
      '    ↻ notes iteration 1: draft#1',
      '    ⚖ notes:j0.1.0.1 model quality-gate → rejected (cites draft#1): Missing a Risks section: say what could go wrong with offline sync.',
      '    ↻ notes iteration 2: draft#2',
      '    ⚖ notes:j0.2.0.1 model quality-gate → approved (cites draft#2)',
      '    ↻ notes step 2 iteration 1: review#2.1',
      '    ⚖ notes:j1.1.0.1 model quality-gate → approved (cites review#2.1)',
      '    ↻ notes step 3 iteration 1: final#3.1',
      '    ⚖ notes:j2.1.0.1 model quality-gate → approved (cites final#3.1)',
      '    ⚖ notes approved after 4 iteration(s)',
    ]);
    const json = await cli(['run', file, '--json']);
    const out = JSON.parse(json.stdout) as { outputs: Record<string, unknown>; patterns: Record<string, { status: string; iterations: unknown[]; judgments: Array<{ id: string; caller: unknown }>; preference_pairs: number }> };
    expect(out.outputs).toMatchObject({ approved: true, iterations: 4 });
    expect(out.patterns.notes).toMatchObject({ status: 'approved', preference_pairs: 1 });
    expect(out.patterns.notes?.iterations).toHaveLength(4);
    expect(out.patterns.notes?.judgments.map((j) => j.id)).toEqual(['notes:j0.1.0.1', 'notes:j0.2.0.1', 'notes:j1.1.0.1', 'notes:j2.1.0.1']);
  }, 60_000);
});

async function validate(file: string, dataDir: string) {
  let out = '';
  const code = await runCli(['validate', file], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: { STEWARD_DATA_DIR: dataDir } });
  return { code, out };
}

describe('steward validate with a pattern node', () => {
  it('the shipped pattern examples validate; a judge profile with no model is named by node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-pattern-validate-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const ok = await validate(join(EXAMPLES, 'pattern-debate.workflow.json'), join(dir, 'data'));
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/valid: /);
    const doc = JSON.parse(readFileSync(join(EXAMPLES, 'pattern-debate.workflow.json'), 'utf8')) as { nodes: Array<Record<string, unknown>> };
    const node = doc.nodes.find((n) => n.kind === 'pattern');
    if (node) node.judge_models = {};
    const file = join(dir, 'broken.workflow.json');
    writeFileSync(file, JSON.stringify(doc));
    const bad = await validate(file, join(dir, 'data'));
    expect(bad.code).not.toBe(0);
    expect(bad.out).toContain('node decision: a judge uses the profile "judge", which names no model in judge_models');
  }, 60_000);
});
