import { describe, expect, it } from 'vitest';
import { runStatusLabel } from '../contracts/events';
import { invocationId, type Lineage } from './invocation';
import { partialCountsText, partialFailureOf, partialMessage, partialStatusLabel, partialWhereText, type InvocationEnd } from './partial-failure';

const item = (index: number, iterate = 'each'): Lineage => [{ iterate, index }];
const end = (node: string, lineage: Lineage, status: InvocationEnd['status'], extra: Partial<InvocationEnd> = {}): InvocationEnd => ({ id: invocationId(node, lineage), node, lineage, status, ...extra });
const refused = { code: 'assert_failed', message: 'check 1 (regex): the value does not match /^[a-z]+$/' };

/** input → iterate `each` over five words → assert `work` per item → collect → output; item 2 (index 1) refused. */
function fiveItems(failedIndexes: number[] = [1]): InvocationEnd[] {
  return [
    end('in', [], 'done'),
    end('each', [], 'done', { outputs: { count: 5 } }),
    ...[0, 1, 2, 3, 4].map((i) => (failedIndexes.includes(i) ? end('work', item(i), 'failed', { failure: refused }) : end('work', item(i), 'done'))),
    end('gather', [], 'done', { outputs: { list: [], left_out: failedIndexes.length } }),
    end('out', [], 'done'),
  ];
}

describe('a workflow run that completed with failures', () => {
  it('a run where nothing failed has no partial failure: it is a plain completion', () => {
    expect(partialFailureOf(fiveItems([]))).toBeUndefined();
  });

  it('one refused item of five reads "1 of 5 items failed", named "work · item 2" as the app numbers items, with its reason', () => {
    const partial = partialFailureOf(fiveItems([1]));
    expect(partial).toEqual({
      items_failed: 1,
      items: 5,
      nodes_failed: 0,
      failed: [{ invocation_id: 'work[each=1]', node: 'work', lineage: item(1), where: 'work · item 2', failure: refused }],
    });
    if (!partial) throw new Error('expected a partial failure');
    expect(partialStatusLabel(partial)).toBe('Completed · 1 of 5 items failed');
    expect(runStatusLabel('completed_with_failures', false, partial)).toBe('Completed · 1 of 5 items failed');
    expect(partialMessage(partial)).toBe('1 of 5 items failed: work · item 2. The outputs are without what it would have given.');
  });

  it('the status reads the same when a supervisor also acted, and without counts it still is not "Completed"', () => {
    const partial = partialFailureOf(fiveItems([1]));
    expect(runStatusLabel('completed_with_failures', true, partial)).toBe('Completed · 1 of 5 items failed');
    expect(runStatusLabel('completed_with_failures')).toBe('Completed with failures');
  });

  it('names the node by its label, as the nodes list does', () => {
    const partial = partialFailureOf(fiveItems([1]), (node) => (node === 'work' ? 'Check word' : node));
    expect(partial?.failed[0]?.where).toBe('Check word · item 2');
  });

  it('counts an item once however many of its invocations failed, and lists the first three places then how many more', () => {
    const ends = [...fiveItems([0, 2, 3, 4]), end('note', item(0), 'failed', { failure: { code: 'tool_error', message: 'the server said no' } })];
    const partial = partialFailureOf(ends);
    expect(partial).toMatchObject({ items_failed: 4, items: 5, nodes_failed: 0 });
    if (!partial) throw new Error('expected a partial failure');
    expect(partial.failed).toHaveLength(5);
    expect(partialWhereText(partial)).toBe('work · item 1, work · item 3, work · item 4 and 2 more');
    expect(partialCountsText(partial)).toBe('4 of 5 items failed');
  });

  it('a failed node outside any item (a branch the outputs did not need) counts as a node', () => {
    const ends = [...fiveItems([]), end('notify', [], 'failed', { failure: { code: 'tool_error', message: 'unreachable' } })];
    const partial = partialFailureOf(ends);
    expect(partial).toMatchObject({ items_failed: 0, nodes_failed: 1 });
    if (!partial) throw new Error('expected a partial failure');
    expect(partialStatusLabel(partial)).toBe('Completed · 1 node failed');
    expect(partialCountsText({ ...partial, items_failed: 2, items: 5 })).toBe('2 of 5 items and 1 node failed');
  });

  it('nested items are numbered "item 2.3" and counted against the inner iterate of their own outer item', () => {
    const outer = (i: number): Lineage => [{ iterate: 'folders', index: i }];
    const inner = (o: number, i: number): Lineage => [...outer(o), { iterate: 'files', index: i }];
    const ends = [
      end('folders', [], 'done', { outputs: { count: 2 } }),
      end('files', outer(0), 'done', { outputs: { count: 2 } }),
      end('files', outer(1), 'done', { outputs: { count: 3 } }),
      end('read', inner(0, 0), 'done'),
      end('read', inner(0, 1), 'done'),
      end('read', inner(1, 0), 'done'),
      end('read', inner(1, 1), 'done'),
      end('read', inner(1, 2), 'failed', { failure: refused }),
    ];
    const partial = partialFailureOf(ends);
    // Only the folder whose file failed counts its files: 1 of its 3.
    expect(partial).toMatchObject({ items_failed: 1, items: 3, failed: [{ where: 'read · item 2.3' }] });
  });

  it('an iterate that never completed its list counts the items it opened', () => {
    const ends = [end('each', [], 'skipped'), end('work', item(0), 'done'), end('work', item(1), 'failed', { failure: refused })];
    expect(partialFailureOf(ends)).toMatchObject({ items_failed: 1, items: 2 });
  });

  it('a failure without a recorded reason still names one', () => {
    const partial = partialFailureOf([end('work', item(0), 'failed')]);
    expect(partial?.failed[0]?.failure).toEqual({ code: 'failed', message: 'the node failed' });
  });
});
