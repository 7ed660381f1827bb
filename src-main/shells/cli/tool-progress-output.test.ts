import fs from 'node:fs';
import { roundNumber } from '@shared/contracts/round-number';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { runCli } from './cli';
import { toolProgressOutput } from './tool-progress-output';
import { slowToolWorkflow } from '../../../test-support/slow-tool-workflow';

const RUN = 'run-cli-progress';
let seq = 0;
const envelope = () => ({ id: `${RUN}:${++seq}`, run_id: RUN, seq, ts: new Date().toISOString() });
const progress = (value: number, total?: number, message?: string): RunEvent => ({
  type: 'tool.progress',
  ...envelope(),
  round: 1,
  server: 'db',
  tool: 'query',
  idempotency_key: 'k1',
  progress: value,
  ...(total === undefined ? {} : { total }),
  ...(message === undefined ? {} : { message }),
});
const executed: RunEvent = {
  type: 'tool.executed',
  ...envelope(),
  round: 1,
  execution: { server: 'db', tool: 'query', arguments: {}, idempotency_key: 'k1', ok: true, is_error: false, content: 'rows', duration_ms: 3 },
};

function capture(json: boolean, tty: boolean) {
  let out = '';
  const onEvent = toolProgressOutput({ write: (t) => (out += t), json, tty });
  return { onEvent, out: () => out };
}

describe('steward run shows tool progress', () => {
  it('on a terminal as one line updated in place, cleared when the call ends', () => {
    const cli = capture(false, true);
    [progress(1, 8, 'scanning'), progress(3, 8), executed].forEach(cli.onEvent);
    expect(cli.out()).toBe('\r\x1b[2K[mcp db] query: 1 of 8 (12%) — scanning\r\x1b[2K[mcp db] query: 3 of 8 (37%)\r\x1b[2K');
    expect(cli.out()).not.toContain('\n');
  });

  it('with --json as one JSON line per event, a trace line (format 2) whose round is numbered from 1', () => {
    const cli = capture(true, false);
    [progress(1, 8), progress(2, 8), executed].forEach(cli.onEvent);
    const lines = cli.out().trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; progress: number; round: number; trace_format: number });
    expect(lines.map((l) => [l.type, l.progress])).toEqual([
      ['tool.progress', 1],
      ['tool.progress', 2],
    ]);
    expect(lines.map((l) => [l.trace_format, l.round])).toEqual([
      [2, roundNumber(1)],
      [2, roundNumber(1)],
    ]);
  });

  it('in a pipe or log as one line per quarter passed, nothing for a call without a total', () => {
    const cli = capture(false, false);
    [1, 2, 3, 4, 5, 6, 7, 8].map((n) => progress(n, 8)).forEach(cli.onEvent);
    [progress(5), progress(9)].forEach(cli.onEvent);
    expect(cli.out().trimEnd().split('\n')).toEqual([
      '[mcp db] query: 2 of 8 (25%)',
      '[mcp db] query: 4 of 8 (50%)',
      '[mcp db] query: 6 of 8 (75%)',
      '[mcp db] query: 8 of 8 (100%)',
    ]);
  });
});

describe('steward run with a slow tool (real server-everything)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-cli-progress-'));
    fs.writeFileSync(path.join(dir, 'slow.workflow.json'), JSON.stringify(slowToolWorkflow(3, 8)));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function run(...flags: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['run', path.join(dir, 'slow.workflow.json'), '--data-dir', path.join(dir, 'data'), ...flags], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
    return { code, stdout, stderr };
  }

  it('prints a line per quarter on stderr when it is no terminal, and JSON lines there with --json (stdout stays one object)', async () => {
    const plain = await run();
    expect(plain.code, plain.stderr).toBe(0);
    const lines = plain.stderr.split('\n').filter((l) => l.includes('trigger-long-running-operation:'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(4);
    for (const line of lines) expect(line).toMatch(/^\[mcp ev\] trigger-long-running-operation: \d of 8 \((25|37|50|62|75|87|100)%\)/);

    const json = await run('--json');
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { status: string }).status).toBe('completed');
    const events = json.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; total?: number });
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.every((e) => e.type === 'tool.progress' && e.total === 8)).toBe(true);
  }, 90_000);
});
