import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '../src-shared/contracts/events';
import { runCli } from '../src-main/shells/cli/cli';
import { importTraceFiles } from '../src-renderer/screens/runs/run-transfer';

/** Issue 26: steward runs import and the page's Import refuse the same damaged file with the same sentence. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const TS = new Date(0).toISOString();
const runId = 'same-words-0001';
const events = [
  RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: TS, spec_id: 'cli', spec_name: 'CLI', task: 'tidy', supervision: { enabled: false }, models: { student: 's', teacher: 't' } }),
  RunEvent.parse({ type: 'run.notice', id: eventId(runId, 1), run_id: runId, seq: 1, ts: TS, message: 'step one' }),
  RunEvent.parse({ type: 'run.finished', id: eventId(runId, 2), run_id: runId, seq: 2, ts: TS, status: 'completed', rounds: 0, event_count: 3 }),
];
const [start, step, end] = events as [RunEvent, RunEvent, RunEvent];

const DAMAGED: Record<string, unknown[]> = {
  'a line over the bound': [start, JSON.stringify({ ...step, message: 'x'.repeat(5 * 1024 * 1024) }), end],
  'the same id with other content': [start, step, end, { ...step, message: 'edited' }],
  'two events at one place': [start, step, { ...step, id: `${runId}:other` }, end],
  'a run that ends twice': [start, step, end, { ...end, id: eventId(runId, 3), seq: 3 }],
  'a line that is not JSON': [start, '{"type":', end],
};

async function cliWords(text: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-same-words-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'damaged.jsonl');
  writeFileSync(file, text);
  let stderr = '';
  const code = await runCli(['runs', 'import', file, '--data-dir', join(dir, 'data')], { stdout: () => undefined, stderr: (t) => (stderr += t), env: {} });
  expect(code).toBe(2);
  return stderr.replace(/^steward runs: /, '').replace(/; nothing was imported\n$/, '');
}

async function pageWords(text: string): Promise<string> {
  const client = { request: () => Promise.reject(new Error('nothing is sent for a damaged file')) };
  const outcome = await importTraceFiles(client, [{ name: 'damaged.jsonl', text }]);
  if (outcome.ok) throw new Error('the page imported it');
  return outcome.message.replace(/\. Nothing was imported\.$/, '');
}

describe('the same damaged file in both shells', () => {
  for (const [what, lines] of Object.entries(DAMAGED)) {
    it(`${what}: the same sentence, naming the line`, async () => {
      const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
      const cli = await cliWords(text);
      expect(cli).toMatch(/^damaged\.jsonl, line \d+: /);
      expect(await pageWords(text)).toBe(cli);
    });
  }
});
