import { describe, expect, it } from 'vitest';
import { collect, graphOf, input, iterate, output, template } from './testing/graphs';
import { SchedulerHarness } from './testing/scheduler-harness';

/** The `skipped` settlement a supervisor's skip feeds for a hosted node (issue 11). */
describe('a supervisor skip of a hosted invocation', () => {
  const graph = graphOf(
    [input('in', 'items'), iterate('each'), template('work', '{{x}}!', 'x'), collect('all'), output('out', 'list')],
    ['in.items->each.list', 'each.item->work.x', 'work.output->all.item', 'all.list->out.list'],
  );

  it('settles the item skipped, closes the collect with the other items, and completes the run', () => {
    const h = new SchedulerHarness(graph);
    h.send({ type: 'start', inputs: { items: ['a', 'b', 'c'] } });
    for (const inv of h.runningOf('work')) {
      if (inv.inputs.x === 'b') h.send({ type: 'skipped', id: inv.id, reason: 'a poisoned item' });
      else h.done(inv.id, { output: `${String(inv.inputs.x)}!` });
    }
    expect(h.violations).toEqual([]);
    expect(h.finals('work[each=1]')).toEqual(['skipped']);
    const skipped = h.statusCommands().find((c) => c.invocation.id === 'work[each=1]' && c.status === 'skipped');
    expect(skipped?.failure).toEqual({ code: 'supervisor_skipped', message: 'a poisoned item' });
    expect(h.statusCommands().find((c) => c.invocation.node === 'all' && c.status === 'done')?.outputs).toEqual({ list: ['a!', 'c!'], left_out: 1 });
    expect(h.finished).toMatchObject({ status: 'completed', outputs: { list: ['a!', 'c!'] } });
    expect(h.finished?.failure).toBeUndefined();
  });

  it('is ignored for an invocation that is not running (a skip never reopens a final one)', () => {
    const h = new SchedulerHarness(graph);
    h.send({ type: 'start', inputs: { items: ['a'] } });
    const [inv] = h.runningOf('work');
    if (!inv) throw new Error('work did not run');
    h.done(inv.id, { output: 'a!' });
    expect(h.send({ type: 'skipped', id: inv.id, reason: 'late' })).toEqual([]);
    expect(h.finished?.status).toBe('completed');
  });
});
