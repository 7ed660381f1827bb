import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { PendingAsk } from '@shared/contracts/person-ask';
import { createHost } from './create-host';
import { hostPage } from '../../test-support/host-session';
import { elicitingWorkflow } from '../../test-support/elicitation-workflow';

/**
 * Issue 13: a real MCP server (the shipped server-everything) elicits during an app run; the ask
 * reaches every page through the host, and the person's answer goes back through `asks.answer`.
 * The agent is scripted (the model boundary's test double); the server and the host are real.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function startHost(askTimeoutMs?: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-elicit-'));
  const host = await createHost({ dataDir, shell: 'browser', log: () => undefined, ...(askTimeoutMs ? { askTimeoutMs } : {}) });
  cleanups.push(async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const page = hostPage(host);
  await page.ok('events.subscribe', {});
  await page.ok('workflows.save', { workflow: elicitingWorkflow() });
  const { run_id } = await page.ok('workflows.run', { id: 'asks-person', inputs: {} });
  // The run ending first would mean the server never asked: said with the run's events.
  await expect.poll(() => (page.asks.current.length > 0 || finished(page.events, run_id) ? true : false), { timeout: 60_000 }).toBe(true);
  expect(page.asks.current, JSON.stringify(page.events.filter((e) => e.run_id === run_id).map((e) => [e.type, 'message' in e ? e.message : '']))).toHaveLength(1);
  return { host, page, run_id, ask: page.asks.current[0] as PendingAsk };
}

const finished = (events: RunEvent[], runId: string) => events.find((e) => e.run_id === runId && e.type === 'run.finished');
const elicitations = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { type: 'mcp.elicitation' }> => e.type === 'mcp.elicitation');
const entries = { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: '7', untitledMultipleSelectEnum: ['Piano'] };

function filled(ask: PendingAsk): Record<string, string | boolean | string[]> {
  const out: Record<string, string | boolean | string[]> = { ...entries };
  if (ask.kind === 'form') for (const f of ask.fields) if (!(f.name in out) && f.kind === 'choice') out[f.name] = f.options[0]?.value ?? '';
  return out;
}

describe('a server elicits during an app run; the person answers through the host', () => {
  it('the ask reaches the page as a form; entries that do not fit are refused by field; the checked answer completes the call and the trace holds field names, not values', async () => {
    const { page, run_id, ask } = await startHost();
    expect(ask).toMatchObject({ run_id, server: 'ev', kind: 'form' });
    const fields = ask.kind === 'form' ? ask.fields : [];
    expect(fields.find((f) => f.name === 'email')).toMatchObject({ kind: 'text', format: 'email' });
    const bad = await page.call('asks.answer', { ask_id: ask.id, action: 'accept', entries: { ...filled(ask), email: 'not-an-email' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('email') } });
    expect(page.asks.current).toHaveLength(1);
    expect(await page.ok('asks.answer', { ask_id: ask.id, action: 'accept', entries: filled(ask) })).toEqual({ answered: true });
    // The first answer wins: a second one finds nothing to answer.
    expect(await page.ok('asks.answer', { ask_id: ask.id, action: 'decline' })).toEqual({ answered: false });
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toMatchObject({ status: 'completed' });
    expect(page.asks.current).toEqual([]);
    // The server got the person's values (its tool result echoes them).
    expect(JSON.stringify(page.events.filter((e) => e.type === 'tool.executed'))).toContain('ada@example.com');
    const [recorded] = elicitations(page.events);
    expect(recorded).toMatchObject({ server: 'ev', mode: 'form', action: 'accept', fields: expect.arrayContaining(['name', 'email', 'integer']) });
    expect(JSON.stringify(recorded)).not.toContain('Ada Lovelace');
  }, 120_000);

  it('a page that connects while the server waits is shown the ask at once; declining reaches the server as such', async () => {
    const { host, page, run_id, ask } = await startHost();
    const later = hostPage(host, 'later-page');
    await later.ok('events.subscribe', {});
    expect(later.asks.current.map((a) => a.id)).toEqual([ask.id]);
    expect((await later.ok('asks.pending', {})).asks.map((a) => a.id)).toEqual([ask.id]);
    await later.ok('asks.answer', { ask_id: ask.id, action: 'decline' });
    // Both pages are told the ask is gone.
    await expect.poll(() => page.asks.current.length + later.asks.current.length).toBe(0);
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toBeDefined();
    expect(JSON.stringify(page.events.filter((e) => e.type === 'tool.executed'))).toMatch(/declin/i);
    expect(elicitations(page.events)).toEqual([expect.objectContaining({ action: 'decline' })]);
  }, 120_000);

  it('an ask nobody answers within the bound is cancelled', async () => {
    const { page, run_id } = await startHost(1_500);
    await expect.poll(() => page.asks.current.length, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toBeDefined();
    expect(elicitations(page.events)).toEqual([expect.objectContaining({ action: 'cancel' })]);
  }, 120_000);

  it('stopping the run cancels its asks', async () => {
    const { page, run_id } = await startHost();
    expect(await page.ok('run.cancel', { run_id })).toEqual({ cancelled: true });
    await expect.poll(() => page.asks.current.length, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => finished(page.events, run_id), { timeout: 60_000 }).toMatchObject({ status: 'cancelled' });
  }, 120_000);
});
