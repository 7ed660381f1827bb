import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../../test-support/fake-openai';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { runCli, EXIT } from './cli';

/**
 * Issue 31: `steward run --json` and `steward runs show --json` say what supervision cost, priced
 * with the data folder's price list (the one the app's Settings edit). The teacher is an
 * OpenAI-compatible TEST DOUBLE (test-support/fake-openai.ts) that bills tokens; the student is the
 * replay script.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function folder(): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return ws.dir;
}

async function billingTeacher(): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI({
    chat: () => ({ message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'fine' }) }, usage: { prompt_tokens: 1200, completion_tokens: 300 } }),
  });
  cleanups.push(() => server.close());
  return server;
}

function spec(dir: string, teacherUrl: string): string {
  const file = join(dir, 'agent.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'agent',
      id: 'priced',
      name: 'Priced teacher',
      instructions: 'Answer.',
      task: 'Say hello.',
      models: { student: { provider: 'script' }, teacher: { provider: 'openai_compatible', base_url: teacherUrl, model: 'teacher-x' } },
      // Phase 2: every student decision goes to the teacher.
      supervision: { enabled: true, phase: 2 },
      script: { latency_ms: 0, student: [{ json: { decision_type: 'complete', output: 'Hello.' } }], teacher: [] },
    }),
  );
  return file;
}

async function cli(argv: string[], dataDir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: dataDir } });
  return { code, stdout, stderr };
}

describe('steward run --json: what supervision cost', () => {
  it('prices the teacher’s billed tokens with the price list; runs show --json says the same; the student (replay) costs nothing', async () => {
    const teacher = await billingTeacher();
    const dir = folder();
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const label = `${new URL(teacher.url).host}:teacher-x`;
    // $2 per million input tokens, $8 per million output tokens.
    writeFileSync(join(dataDir, 'prices.json'), JSON.stringify({ format: 'steward-price-list/v1', prices: { [label]: { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } } }), { mode: 0o600 });

    const run = await cli(['run', spec(dir, teacher.baseUrl), '--json'], dataDir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    const result = JSON.parse(run.stdout) as { run_id: string; status: string; cost: { supervision: Record<string, unknown>; roles: Array<Record<string, unknown>>; total: Record<string, unknown> } };
    expect(result.status).toBe('completed');
    const usd = (1200 * 2 + 300 * 8) / 1_000_000;
    expect(result.cost.supervision).toMatchObject({ calls: 1, recorded_calls: 1, input_tokens: 1200, output_tokens: 300, complete: true, unpriced_models: [] });
    expect(result.cost.supervision.usd).toBeCloseTo(usd, 9);
    expect(result.cost.supervision.latency_ms).toEqual(expect.any(Number));
    expect(result.cost.roles.map((r) => [r.role, r.calls])).toEqual([
      ['student', 1],
      ['teacher', 1],
    ]);
    // The replay student is on this machine: it costs 0, and its tokens are "not reported" (null), not 0.
    expect(result.cost.roles[0]).toMatchObject({ usd: 0, input_tokens: null, output_tokens: null });
    expect(teacher.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1);

    const shown = await cli(['runs', 'show', result.run_id, '--json'], dataDir);
    expect(shown.code).toBe(EXIT.ok);
    const stored = JSON.parse(shown.stdout) as { cost: typeof result.cost; run: Record<string, unknown> };
    expect(stored.cost).toEqual(result.cost);
    expect(stored.run).not.toHaveProperty('usage');

    // Without its price the same teacher is a server on this machine (loopback): local models cost 0 unless priced.
    writeFileSync(join(dataDir, 'prices.json'), JSON.stringify({ format: 'steward-price-list/v1', prices: {} }), { mode: 0o600 });
    const unpriced = JSON.parse((await cli(['runs', 'show', result.run_id, '--json'], dataDir)).stdout) as { cost: typeof result.cost };
    expect(unpriced.cost.supervision).toMatchObject({ complete: true, unpriced_models: [], usd: 0, input_tokens: 1200, output_tokens: 300 });
    writeFileSync(join(dataDir, 'prices.json'), JSON.stringify({ format: 'steward-price-list/v1', prices: { [label]: { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } } }), { mode: 0o600 });

    // A person reads the same in the run's last lines.
    const plain = await cli(['run', spec(dir, teacher.baseUrl)], dataDir);
    expect(plain.stdout).toMatch(/supervision cost: 1 supervision call\(s\) · 1,200 in · 300 out · \$0\.0048/);
  });
});
