import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { EXIT, type CliIo } from './cli';
import { verdictFromFlags } from './person-verdict';

/** A person supervising a workflow from the command line (issue 11): steward run parks, runs waiting lists it, steward answer --verdict goes on. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-person-verdict-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** value → an assert that wants "ok" (pure, so retry is allowed) → out.checked; value → a template → out.said. A person supervises. */
function checkingWorkflow(dir: string, decisionTimeoutMs?: number): string {
  const file = join(dir, 'check.workflow.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'check',
      name: 'Check',
      supervisor: { enabled: true, who: { kind: 'person', ...(decisionTimeoutMs !== undefined ? { decision_timeout_ms: decisionTimeoutMs } : {}) } },
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'value', type: 'text' }] },
        { id: 'check', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
        { id: 'say', kind: 'template', template: 'got {{value}}', inputs: [{ name: 'value', type: 'text' }] },
        { id: 'out', kind: 'output', fields: [{ name: 'checked', type: 'text', required: false }, { name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'value' }, to: { node: 'check', port: 'value' } },
        { from: { node: 'check', port: 'value' }, to: { node: 'out', port: 'checked' } },
        { from: { node: 'in', port: 'value' }, to: { node: 'say', port: 'value' } },
        { from: { node: 'say', port: 'output' }, to: { node: 'out', port: 'said' } },
      ],
    }),
  );
  return file;
}

const cli = cliWith;

/** TEST DOUBLE for the person at the terminal: types these lines, in order. */
function typing(...lines: string[]): { line: NonNullable<CliIo['line']>; asked: string[] } {
  const asked: string[] = [];
  return { line: async (q) => (asked.push(q), lines.shift()), asked };
}

describe('a workflow a person supervises, at the command line', () => {
  it('without a terminal the run parks (exit 3) with a command per allowed verdict; runs waiting lists it; a verdict it does not allow is refused; --verdict skip finishes it', async () => {
    const dir = tempDir();
    const dataDir = join(dir, 'data');
    const run = await cli(['run', checkingWorkflow(dir), '--input', 'value=poison', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits for you: check failed/.exec(run.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    for (const v of ['retry', 'skip', 'fail']) expect(run.stdout).toContain(`steward answer ${runId} --verdict ${v} --reason 'WHY' --data-dir`);
    expect(run.stdout).not.toContain('--verdict substitute');

    const listed = await cli(['runs', 'waiting', '--data-dir', dataDir]);
    expect(listed.stdout).toContain(`${runId} · Check · node check`);
    expect(listed.stdout).toContain('a node failed: your verdict');

    const refused = await cli(['answer', runId, '--verdict', 'end_stream', '--reason', 'no', '--data-dir', dataDir]);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/"end_stream" is not allowed for this failure of check \(allowed: retry/);

    const answered = await cli(['answer', runId, '--verdict', 'skip', '--reason', 'not needed today', '--data-dir', dataDir]);
    expect(answered.code).toBe(EXIT.ok);
    expect(answered.stdout).toContain('answering');
    expect(answered.stdout).toContain('verdict skip');
    const events = journalEvents(dataDir).filter((e) => e.run_id === runId);
    expect(events.find((e) => e.type === 'supervisor.verdict')).toMatchObject({ next: 'skip', verdict: { decided_by: 'agent', verdict: { action: 'skip', reason: 'not needed today' } } });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', outputs: { said: 'got poison' } });
    expect((await cli(['runs', 'waiting', '--data-dir', dataDir])).stdout).toBe('nothing waits for you\n');
  }, 60_000);

  it('at a terminal the person is shown the escalation and asked for a verdict and a reason; a refused one is asked again; the run finishes in the same process', async () => {
    const dir = tempDir();
    const person = typing('end_stream', '', 'fail', 'the value must say ok');
    let said = '';
    const run = await cli(['run', checkingWorkflow(dir), '--input', 'value=poison', '--data-dir', join(dir, 'data')], { line: person.line, stderr: (t) => (said += t) });
    expect(said).toContain('waiting for you · a node failed: your verdict');
    expect(said).toContain('verdicts: retry (retry) · skip (skip) · fail (fail the node)');
    expect(said).toContain('"end_stream" is not allowed');
    expect(person.asked.filter((q) => q.startsWith('Your verdict'))).toHaveLength(2);
    // The node failed with the person's reason; the other branch went on: the run completes without
    // `checked`, and says it lost that work (issue 28: completed with failures, exit 4).
    expect(run.code).toBe(EXIT.itemsFailed);
    expect(run.stdout).toContain('said: got poison');
  }, 60_000);

  it('a verdict with a deadline says it in this machine\'s local time, as runs list does, not as an ISO instant', async () => {
    const dir = tempDir();
    const person = typing('skip', 'not this one');
    let said = '';
    const run = await cli(['run', checkingWorkflow(dir, 3_600_000), '--input', 'value=poison', '--data-dir', join(dir, 'data')], { line: person.line, stderr: (t) => (said += t) });
    // Answered at the terminal: the run goes on to its end.
    expect(run.code, said).toBe(EXIT.ok);
    expect(said).toMatch(/ {2}decide by \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: then the node fails \(the default verdict\)\n/);
  }, 60_000);

  it('--verdict words: a substitute needs its --value (a JSON object), other verdicts take none; an unknown verdict is refused', () => {
    expect(verdictFromFlags('substitute', 'fixed', '{"output": "ok"}')).toEqual({ action: 'verdict', verdict: { action: 'substitute', value: { output: 'ok' }, reason: 'fixed' } });
    expect(verdictFromFlags('skip', undefined, undefined)).toEqual({ action: 'verdict', verdict: { action: 'skip', reason: 'decided by a person' } });
    expect(() => verdictFromFlags('substitute', 'x', undefined)).toThrow(/needs its value/);
    expect(() => verdictFromFlags('skip', 'x', '{}')).toThrow(/--value goes with --verdict substitute only/);
    expect(() => verdictFromFlags('substitute', 'x', '[1]')).toThrow(/a JSON object/);
    expect(() => verdictFromFlags('maybe', 'x', undefined)).toThrow(/--verdict is one of retry, skip, substitute, end_stream, fail/);
  });
});
