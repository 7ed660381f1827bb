import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SupervisorEvalReport } from '@shared/eval/report';
import { cliOn } from '../../test-support/cli-capture';
import { readLatestReports } from './latest-report';

/** `steward eval` end to end through the CLI entry: the table, the JSON report, the data folder's latest report, the exit codes. */

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-eval-cli-'));
  dirs.push(dir);
  return dir;
}

describe('steward eval', () => {
  it('eval supervisor prints the table, writes the JSON report, keeps it as the latest report, and exits 0 when every gate holds', async () => {
    const dataDir = temp();
    const out = join(dataDir, 'report.json');
    const { code, stdout, stderr } = await cliOn(dataDir, ['eval', 'supervisor', '--case', 'stream.', '--json', out]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^steward eval supervisor · reference double/);
    expect(stdout).toMatch(/stream\.mid-stream\s+mid_stream_failure\s+recovered/);
    expect(stdout).toMatch(/recovery rate\s+100\.0% \(1\/1 recoverable cases\)/);
    expect(stdout).toMatch(/PASSED: all 7 gates hold/);
    const report = SupervisorEvalReport.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(report.cases.map((c) => c.id)).toEqual(['stream.clean', 'stream.mid-stream']);
    expect(readLatestReports(dataDir).supervisor).toEqual(report);
    expect(stderr).toContain(join(dataDir, 'eval', 'latest-supervisor.json'));
  }, 120_000);

  it('exits 1 and names the failed gate when a gate fails (a bad supervisor double), and still keeps the report', async () => {
    const dataDir = temp();
    const { code, stdout } = await cliOn(dataDir, ['eval', 'supervisor', '--case', 'malformed-repair', '--supervisor', 'sloppy-repair']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/poisoned repairs\s+1\s+<= 0\s+FAIL/);
    expect(stdout).toMatch(/FAILED: recovery rate, poisoned repairs/);
    expect(readLatestReports(dataDir).supervisor?.passed).toBe(false);
  }, 120_000);

  it('bad input exits 2 without running anything: no suite, an unknown gate, a flag of the other suite', async () => {
    const dataDir = temp();
    for (const argv of [['eval'], ['eval', 'everything'], ['eval', 'supervisor', '--min-success', 'speed=1'], ['eval', 'boundary', '--supervisor', 'skip-all'], ['eval', 'supervisor', '--supervisor', 'nobody']]) {
      const { code, stderr } = await cliOn(dataDir, argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr).toMatch(/^steward: /);
    }
    expect(existsSync(join(dataDir, 'eval'))).toBe(false);
  });

  it('eval --help lists both suites and their gates\' flag', async () => {
    const { code, stdout } = await cliOn(temp(), ['eval', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/steward eval supervisor/);
    expect(stdout).toMatch(/steward eval boundary/);
    expect(stdout).toMatch(/--min-success/);
  });
});
