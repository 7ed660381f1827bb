import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { createHost } from './create-host';
import { hostPage } from '../../test-support/host-session';
import { askingServerWorkflow } from '../../test-support/elicitation-workflow';

/**
 * Issue 13: a server with `sampling: "ask"` (the shipped server-everything) asks the run's model
 * during an app run; the person allows or denies it in the page first. The agent and its sampled
 * reply are scripted (the model boundary's test double); the server and the host are real.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const finished = (events: RunEvent[], runId: string) => events.find((e) => e.run_id === runId && e.type === 'run.finished');
const toolResults = (events: RunEvent[]) => JSON.stringify(events.filter((e) => e.type === 'tool.executed'));

async function sampleInTheApp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-sample-'));
  const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
  cleanups.push(async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  const workflow = askingServerWorkflow('samples', { tool: 'trigger-sampling-request', arguments: { prompt: 'Say hello', maxTokens: 50 }, replies: [{ text: 'Hello from the run model' }], sampling: 'ask' });
  await page.ok('workflows.save', { workflow });
  const { run_id } = await page.ok('workflows.run', { id: 'samples', inputs: {} });
  await expect.poll(() => page.asks.current.length > 0 || Boolean(finished(page.events, run_id)), { timeout: 60_000 }).toBe(true);
  expect(page.asks.current, JSON.stringify(page.events.filter((e) => e.run_id === run_id).map((e) => [e.type, 'message' in e ? e.message : '']))).toHaveLength(1);
  return { page, run_id, ask: page.asks.current[0]! };
}

describe('sampling: "ask" in the app — the person reviews the request in the page first', () => {
  it('the page is shown the conversation, its length and the model; allowed, the run model answers the server', async () => {
    const { page, run_id, ask } = await sampleInTheApp();
    expect(ask).toMatchObject({ kind: 'sampling', server: 'ev', max_tokens: 50, model: 'replay' });
    expect(JSON.stringify(ask)).toContain('Say hello');
    expect(await page.ok('asks.answer', { ask_id: ask.id, action: 'accept' })).toEqual({ answered: true });
    // The second question: the model's answer, shown before the server gets it.
    await expect.poll(() => page.asks.current[0]?.id !== ask.id && page.asks.current.length === 1, { timeout: 60_000 }).toBe(true);
    const second = page.asks.current[0]!;
    expect(second).toMatchObject({ kind: 'sampling', server: 'ev', reply: 'Hello from the run model' });
    expect(toolResults(page.events)).not.toContain('Hello from the run model');
    expect(await page.ok('asks.answer', { ask_id: second.id, action: 'accept' })).toEqual({ answered: true });
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toMatchObject({ status: 'completed' });
    expect(toolResults(page.events)).toContain('Hello from the run model');
  }, 120_000);

  it('allowed, then the answer withheld: the server never gets it', async () => {
    const { page, run_id, ask } = await sampleInTheApp();
    await page.ok('asks.answer', { ask_id: ask.id, action: 'accept' });
    await expect.poll(() => page.asks.current[0]?.id !== ask.id && page.asks.current.length === 1, { timeout: 60_000 }).toBe(true);
    await page.ok('asks.answer', { ask_id: page.asks.current[0]!.id, action: 'decline' });
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toBeDefined();
    expect(toolResults(page.events)).toMatch(/did not let the model's answer go back/);
    expect(toolResults(page.events)).not.toContain('Hello from the run model');
  }, 120_000);

  it('denied, the server is told the person declined', async () => {
    const { page, run_id, ask } = await sampleInTheApp();
    await page.ok('asks.answer', { ask_id: ask.id, action: 'decline' });
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toBeDefined();
    expect(toolResults(page.events)).toMatch(/the person declined/);
  }, 120_000);
});
