import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, runStatusLabel, type RunEventOf } from '@shared/contracts/events';
import { summarize } from '@shared/history/run-summary';
import { WorkflowGraph } from '@shared/workflow/document';
import { EventJournal } from '../events/event-journal';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { encodeOtlpJson } from '../otlp/encode-otlp';
import { runSpans } from '../otlp/trace-to-spans';
import { runWorkflow } from './run-workflow';
import { wordCheckWorkflow } from '../../test-support/word-check-workflow';

// Issue 28: a workflow whose iterate lost an item (an assert refused it) is not a success.

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** words → iterate → an assert per item (lowercase letters only) → collect → output. */
const WORDS_GRAPH = WorkflowGraph.parse(wordCheckWorkflow({ id: 'words', name: 'Words', concurrency: 2 }));

async function runWords(words: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-partial-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph: WORDS_GRAPH, specDir: dir, inputs: { words }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  const finished = events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished');
  if (!finished) throw new Error('the run recorded no end');
  return { result, events, finished };
}

describe('a workflow run whose iterate lost an item', () => {
  it('ends completed_with_failures, not completed: the run end names how many items failed, where (as the app numbers them) and why', async () => {
    const { result, finished } = await runWords(['apple', 'Banana!', 'cherry', 'date', 'elder']);
    expect(result.status).toBe('completed_with_failures');
    expect(result.outputs.kept).toEqual(['apple', 'cherry', 'date', 'elder']);
    expect(finished.status).toBe('completed_with_failures');
    expect(finished.partial).toMatchObject({
      items_failed: 1,
      items: 5,
      nodes_failed: 0,
      failed: [{ invocation_id: 'work[each=1]', node: 'work', where: 'work · item 2', failure: { code: 'assert_failed' } }],
    });
    expect(finished.message).toBe('1 of 5 items failed: work · item 2. The outputs are without what it would have given.');
    expect(result.partial).toEqual(finished.partial);
    // The event is what the journal, the page and an export validate.
    expect(RunEvent.safeParse(finished).success).toBe(true);
  });

  it('a run where every item passes stays a plain completion', async () => {
    const { result, finished } = await runWords(['apple', 'cherry']);
    expect(result.status).toBe('completed');
    expect(finished.partial).toBeUndefined();
    expect(finished.message).toBeUndefined();
  });

  it('its summary row (the Runs list, both indexes) carries the status and the counts: "Completed · 1 of 5 items failed"', async () => {
    const { events } = await runWords(['apple', 'Banana!', 'cherry', 'date', 'elder']);
    const row = summarize(undefined, events, events.length);
    expect(row).toMatchObject({ status: 'completed_with_failures', partial: { items_failed: 1, items: 5, nodes_failed: 0 } });
    expect(row && runStatusLabel(row.status, row.workflow?.supervised, row.partial)).toBe('Completed · 1 of 5 items failed');
  });

  it('OTLP: the run span is ERROR with a description naming the failed item (the failed item span is ERROR too)', async () => {
    const { events } = await runWords(['apple', 'Banana!', 'cherry']);
    const spans = runSpans(events);
    const root = spans.find((s) => s.attributes['steward.run.status'] !== undefined);
    expect(root?.status).toEqual({ code: 'error', message: '1 of 3 items failed: work · item 2. The outputs are without what it would have given.' });
    expect(root?.attributes).toMatchObject({ 'error.type': 'completed_with_failures', 'steward.items.failed': 1, 'steward.items.total': 3 });
    expect(spans.find((s) => s.attributes['steward.invocation.id'] === 'work[each=1]')?.status.code).toBe('error');
    // OTLP/JSON status code 2 is STATUS_CODE_ERROR.
    const body = JSON.parse(new TextDecoder().decode(encodeOtlpJson(spans))) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; status: { code?: number; message?: string } }> }> }> };
    const encoded = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).find((s) => s.status.message?.includes('work · item 2'));
    expect(encoded?.status.code).toBe(2);
  });
});

describe('the history database with the new status', () => {
  it('keeps and filters runs completed with failures beside runs written before this status existed, which keep theirs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-partial-history-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'history.sqlite');
    // An older run: its end has no `partial` and says completed although an item failed (what Steward wrote before).
    const older = (await runWords(['Banana!', 'apple'])).events.map((e) =>
      e.type === 'run.finished' ? (({ partial: _partial, ...rest }) => ({ ...rest, status: 'completed' as const, message: undefined }))(e) : e,
    );
    const first = EventJournal.open(file, { log: () => undefined });
    expect(first.append(older)).toBe(older.length);
    first.close();

    const { events } = await runWords(['apple', 'Banana!', 'cherry', 'date', 'elder']);
    const journal = EventJournal.open(file, { log: () => undefined });
    cleanups.unshift(() => journal.close());
    expect(journal.append(events)).toBe(events.length);
    const olderId = older[0]?.run_id ?? '';
    const newId = events[0]?.run_id ?? '';
    expect(journal.run(olderId)?.run).toMatchObject({ status: 'completed' });
    expect(journal.run(olderId)?.run.partial).toBeUndefined();
    expect(journal.run(newId)?.run).toMatchObject({ status: 'completed_with_failures', partial: { items_failed: 1, items: 5 } });
    expect(journal.runsPage({ status: ['completed_with_failures'] }).runs.map((r) => r.run.run_id)).toEqual([newId]);
    expect(journal.runsPage({ status: ['completed'] }).runs.map((r) => r.run.run_id)).toEqual([olderId]);
  });
});
