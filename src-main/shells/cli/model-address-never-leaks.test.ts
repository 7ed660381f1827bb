import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './cli';
import { closedPort } from '../../../test-support/closed-port';
import { tempNotesWorkspace } from '../../../test-support/workspace';

/**
 * A password or key written into a model address (OLLAMA_HOST's userinfo, a base_url's query)
 * must not come back out of a run: not on stderr, not in --json, not in the trace.
 */
const SECRET = 'sk-proj-Q7wE9rT2yU4iO6pA8sD0fG1h';
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

async function runWith(models: Record<string, unknown>, env: Record<string, string>) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const file = join(ws.dir, 'probe.json');
  writeFileSync(file, JSON.stringify({ format: 'steward/v1', kind: 'agent', id: 'probe', name: 'Probe', instructions: 'Be brief.', task: 'Say hello.', models }));
  const trace = join(ws.dir, 'trace.jsonl');
  let out = '';
  const code = await runCli(['run', file, '--json', '--trace', trace], {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
    env: { STEWARD_DATA_DIR: join(ws.dir, 'data'), ...env },
  });
  return { code, out: out + (existsSync(trace) ? readFileSync(trace, 'utf8') : '') };
}

describe('a secret in a model address never leaves a run', () => {
  it('OLLAMA_HOST with a password: the run is refused saying why, and the password is nowhere in its output or trace', async () => {
    const port = await closedPort();
    const { code, out } = await runWith(
      { student: { provider: 'ollama', model: 'qwen3:4b' }, teacher: { provider: 'ollama', model: 'qwen3:4b' } },
      { OLLAMA_HOST: `http://me:${SECRET}@127.0.0.1:${port}` },
    );
    expect(code).not.toBe(0);
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(/user name or password/);
  });

  it('a spec whose base_url carries a key in its query is refused as invalid without repeating the key', async () => {
    const port = await closedPort();
    const base_url = `http://127.0.0.1:${port}/v1?api_key=${SECRET}`;
    const { code, out } = await runWith({ student: { provider: 'openai_compatible', model: 'm', base_url }, teacher: { provider: 'script' } }, {});
    expect(code).not.toBe(0);
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(/keychain/);
  });
});
