import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startFakeOllama, type FakeOllama } from '../test-support/fake-ollama';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { shot } from './helpers';

// The model boundary's test double: a local HTTP server speaking the Ollama API. Everything else
// (host, MCP server, renderer, IndexedDB) is real.
let ollama: FakeOllama;
let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-ollama-'));
  const sandbox = join(dataDir, 'demo', 'notes-assistant', 'notes-sandbox');
  ollama = await startFakeOllama({
    models: [{ name: 'qwen3:4b', family: 'qwen3', parameter_size: '4B', capabilities: ['completion', 'tools'] }],
    chat: (request) => {
      const isTeacher = request.messages[0]?.content.includes('You are the teacher') ?? false;
      if (isTeacher) return { message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' }) } };
      const rounds = request.messages.filter((m) => m.role === 'assistant').length;
      const decision =
        rounds === 0
          ? { decision_type: 'tool_call', tool_name: 'list_directory', arguments: { path: sandbox } }
          : { decision_type: 'complete', output: 'Listed the notes folder with a local model.' };
      return { message: { content: JSON.stringify(decision) } };
    },
  });
  host = await startHostProcess(dataDir, { OLLAMA_HOST: ollama.url });
});

test.afterAll(async () => {
  await host?.stop();
  await ollama?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('when Ollama answers, its models can be picked for a run', async ({ page }) => {
  await page.goto(host.url);
  await expect(page.getByTestId('ollama-status')).toHaveAttribute('data-reachable', 'true');
  await expect(page.getByTestId('ollama-status')).toContainText('qwen3:4b');
  const card = page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
  await card.getByTestId('model-select-student').selectOption('ollama:qwen3:4b');
  await card.getByTestId('model-select-teacher').selectOption('ollama:qwen3:4b');
  await shot(page, '07-ollama-models', false);
  await card.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('run-output')).toContainText('local model');
  // What the calls cost, as the server counted it.
  await expect(page.getByTestId('run-model-usage')).toContainText(/[\d,]+ in \/ [\d,]+ out tokens/);
  await expect(page.locator('body')).toContainText('ollama:qwen3:4b');
  // The student was asked for one JSON decision with a JSON-Schema format.
  const student = ollama.chatRequests().find((r) => !r.messages[0]?.content.includes('You are the teacher'));
  expect(student?.format).toBeTruthy();
  expect(student?.model).toBe('qwen3:4b');
});
