import { describe, expect, it } from 'vitest';
import type { WorkflowNodeInput } from './document';
import { collect, graphOf, input, iterate, output, template } from './testing/graphs';
import { SchedulerHarness } from './testing/scheduler-harness';
import type { SchedulerCommand } from './scheduler';

const tool = (id: string, ...inputs: Array<string | { name: string; required: boolean }>): WorkflowNodeInput => ({
  id,
  kind: 'tool',
  server: 'srv',
  tool: id,
  inputs: inputs.map((i) => (typeof i === 'string' ? { name: i } : i)),
});
const agent = (id: string, ...inputs: string[]): WorkflowNodeInput =>
  ({ id, kind: 'agent', instructions: 'Help.', task: 'Do it.', inputs: inputs.map((name) => ({ name })) }) as WorkflowNodeInput;
const iterateN = (id: string, concurrency: number): WorkflowNodeInput => ({ id, kind: 'iterate', concurrency });

const runsIn = (commands: SchedulerCommand[]) => commands.flatMap((c) => (c.type === 'run' ? [c.invocation.id] : []));
const finishedIn = (commands: SchedulerCommand[]) => commands.find((c) => c.type === 'finished');

function started(h: SchedulerHarness, inputs: Record<string, unknown> = {}): SchedulerHarness {
  h.send({ type: 'start', inputs });
  return h;
}

describe('scheduler: joins and lineage', () => {
  it('a join waits for every one of its inputs and then runs once with all of them', () => {
    const g = graphOf(
      [input('in', 'q'), tool('a', 'q'), tool('b', 'q'), tool('j', 'x', 'y'), output('out', 'r')],
      ['in.q->a.q', 'in.q->b.q', 'a.text->j.x', 'b.text->j.y', 'j.text->out.r'],
    );
    const h = started(new SchedulerHarness(g), { q: 'hello' });
    expect(h.runs).toEqual(['a', 'b']);
    expect(h.get('a').inputs).toEqual({ q: 'hello' });
    expect(runsIn(h.done('a', { text: 'A' }))).toEqual([]);
    expect(h.status.get('j')).toBe('pending');
    expect(runsIn(h.done('b', { text: 'B' }))).toEqual(['j']);
    expect(h.get('j').inputs).toEqual({ x: 'A', y: 'B' });
    const end = finishedIn(h.done('j', { text: 'J' }));
    expect(end).toEqual({ type: 'finished', status: 'completed', outputs: { r: 'J' } });
    expect(h.violations).toEqual([]);
  });

  it('values meet by lineage: each item joins its own branches, and an outer value is shared by every item', () => {
    const g = graphOf(
      [input('in', 'files', 'style'), tool('rules', 'style'), iterate('each'), tool('a', 'v'), tool('b', 'v'), tool('j', 'a', 'b', 'r'), collect('all'), output('out', 'list')],
      ['in.files->each.list', 'in.style->rules.style', 'each.item->a.v', 'each.item->b.v', 'a.text->j.a', 'b.text->j.b', 'rules.text->j.r', 'j.text->all.item', 'all.list->out.list'],
    );
    const h = started(new SchedulerHarness(g), { files: ['f0', 'f1', 'f2'], style: 'terse' });
    // Answered in a scrambled order, the outer value last.
    for (const id of ['b[each=2]', 'a[each=0]', 'b[each=0]', 'a[each=2]', 'a[each=1]']) h.done(id, { text: `${id}:${String(h.get(id).inputs.v)}` });
    expect(runsIn(h.log)).not.toContain('j[each=0]');
    h.done('rules', { text: 'R' });
    expect(h.runningOf('j').map((i) => i.id)).toEqual(['j[each=0]', 'j[each=2]']);
    h.done('b[each=1]', { text: 'b[each=1]:f1' });
    for (const i of [0, 1, 2]) {
      expect(h.get(`j[each=${i}]`).inputs).toEqual({ a: `a[each=${i}]:f${i}`, b: `b[each=${i}]:f${i}`, r: 'R' });
      expect(h.get(`j[each=${i}]`).lineage).toEqual([{ iterate: 'each', index: i }]);
      expect(h.get(`j[each=${i}]`).parent).toBe('each');
    }
    for (const i of [2, 0, 1]) h.done(`j[each=${i}]`, { text: `J${i}` });
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { list: ['J0', 'J1', 'J2'] } });
    expect(h.runs.filter((id) => id === 'rules')).toHaveLength(1);
    expect(h.violations).toEqual([]);
  });
});

describe('scheduler: iterate', () => {
  it('never has more items in flight than its concurrency, and an item stays in flight until its last stage is final', () => {
    const g = graphOf(
      [input('in', 'list'), iterateN('each', 2), tool('s1', 'v'), tool('s2', 'v'), collect('all'), output('out', 'list')],
      ['in.list->each.list', 'each.item->s1.v', 's1.text->s2.v', 's2.text->all.item', 'all.list->out.list'],
    );
    const h = started(new SchedulerHarness(g), { list: [0, 1, 2, 3, 4] });
    const inFlight = () => new Set([...h.running.values()].map((i) => i.lineage[0]?.index)).size;
    expect(h.runs).toEqual(['s1[each=0]', 's1[each=1]']);
    // Item 0's first stage is done but its second is not: no new item yet.
    expect(runsIn(h.done('s1[each=0]', { text: 'x' }))).toEqual(['s2[each=0]']);
    expect(inFlight()).toBe(2);
    expect(runsIn(h.done('s2[each=0]', { text: 'y0' }))).toEqual(['s1[each=2]']);
    while (h.running.size > 0) {
      expect(inFlight()).toBeLessThanOrEqual(2);
      const next = [...h.running.values()].at(-1);
      if (!next) break;
      h.done(next.id, { text: `y${next.lineage[0]?.index}` });
    }
    expect(h.finished?.outputs).toEqual({ list: ['y0', 'y1', 'y2', 'y3', 'y4'] });
    expect(h.violations).toEqual([]);
  });

  it('streamed items start downstream work before the producer is done (the streaming chain: chunk → embed → upsert)', () => {
    const g = graphOf(
      [input('in', 'doc'), tool('chunk', 'doc'), iterateN('each', 4), tool('embed', 'text'), tool('upsert', 'vector'), collect('all'), output('out', 'ids')],
      ['in.doc->chunk.doc', 'chunk.result->each.list', 'each.item->embed.text', 'embed.result->upsert.vector', 'upsert.text->all.item', 'all.list->out.ids'],
    );
    const h = started(new SchedulerHarness(g), { doc: 'a long text' });
    expect(h.runs).toEqual(['chunk']);
    expect(runsIn(h.send({ type: 'emit', id: 'chunk', port: 'result', value: 'part 0' }))).toEqual(['embed[each=0]']);
    expect(h.get('embed[each=0]').inputs).toEqual({ text: 'part 0' });
    expect(runsIn(h.done('embed[each=0]', { result: [0.1] }))).toEqual(['upsert[each=0]']);
    h.send({ type: 'emit', id: 'chunk', port: 'result', value: 'part 1' });
    // Item 0 at upsert while item 1 is at embed, and the producer still running.
    expect(h.status.get('chunk')).toBe('running');
    expect(h.status.get('upsert[each=0]')).toBe('running');
    expect(h.status.get('embed[each=1]')).toBe('running');
    h.done('upsert[each=0]', { text: 'id0' });
    // The producer's done closes the stream; its value on that port is not iterated again.
    expect(runsIn(h.done('chunk', { result: ['part 0', 'part 1', 'part 2'] }))).toEqual([]);
    h.done('embed[each=1]', { result: [0.2] });
    h.done('upsert[each=1]', { text: 'id1' });
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { ids: ['id0', 'id1'] } });
    expect(h.violations).toEqual([]);
  });

  it('a producer that streamed its items may end done without repeating them', () => {
    const g = graphOf(
      [input('in', 'doc'), tool('chunk', 'doc'), iterateN('each', 4), tool('embed', 'text'), collect('all'), output('out', 'ids')],
      ['in.doc->chunk.doc', 'chunk.result->each.list', 'each.item->embed.text', 'embed.text->all.item', 'all.list->out.ids'],
    );
    const h = started(new SchedulerHarness(g), { doc: 'd' });
    h.send({ type: 'emit', id: 'chunk', port: 'result', value: 'p0' });
    h.done('chunk', { text: 'chunked' });
    h.done('embed[each=0]', { text: 'e0' });
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { ids: ['e0'] } });
  });

  it('a producer failing mid-stream lets released items finish, drops the rest and never presents the partial list as complete', () => {
    const g = graphOf(
      [input('in', 'doc'), tool('chunk', 'doc'), iterateN('each', 1), tool('embed', 'text'), collect('all'), output('out', 'ids')],
      ['in.doc->chunk.doc', 'chunk.result->each.list', 'each.item->embed.text', 'embed.text->all.item', 'all.list->out.ids'],
    );
    const h = started(new SchedulerHarness(g), { doc: 'd' });
    for (const part of ['p0', 'p1', 'p2']) h.send({ type: 'emit', id: 'chunk', port: 'result', value: part });
    expect(h.runningOf('embed').map((i) => i.id)).toEqual(['embed[each=0]']);
    h.failed('chunk', 'disk gone');
    expect(h.status.get('embed[each=0]')).toBe('running');
    h.done('embed[each=0]', { text: 'e0' });
    expect(h.runs).not.toContain('embed[each=1]');
    expect(h.finals('each')).toEqual(['skipped']);
    expect(h.finals('all')).toEqual(['skipped']);
    expect(h.finished?.status).toBe('failed');
    expect(h.finished?.failure?.message).toBe('disk gone');
    expect(h.violations).toEqual([]);
  });

  it('collect keeps item order and leaves failed and skipped items out, counting them', () => {
    const g = graphOf(
      [input('in', 'list'), iterateN('each', 8), tool('extract', 'v'), tool('check', 'v'), collect('all'), output('out', 'list')],
      ['in.list->each.list', 'each.item->extract.v', 'extract.text->check.v', 'check.text->all.item', 'all.list->out.list'],
    );
    const h = started(new SchedulerHarness(g), { list: ['a', 'b', 'c', 'd', 'e'] });
    h.failed('extract[each=1]');
    for (const i of [4, 3, 2, 0]) h.done(`extract[each=${i}]`, { text: `x${i}` });
    h.failed('check[each=3]');
    for (const i of [4, 2, 0]) h.done(`check[each=${i}]`, { text: `c${i}` });
    expect(h.finals('check[each=1]')).toEqual(['skipped']);
    const all = h.statusCommands().find((c) => c.invocation.id === 'all' && c.status === 'done');
    expect(all?.outputs).toEqual({ list: ['c0', 'c2', 'c4'], left_out: 2 });
    // The output got its inputs: a batch with some failed items completes.
    expect(h.finished?.status).toBe('completed');
    expect(h.violations).toEqual([]);
  });

  it('an iterate fed straight into its collect gathers the items themselves, in order', () => {
    const g = graphOf([input('in', 'list'), iterateN('each', 2), collect('all'), output('out', 'list')], ['in.list->each.list', 'each.item->all.item', 'all.list->out.list']);
    const h = started(new SchedulerHarness(g), { list: ['a', 'b', 'c', 'd', 'e'] });
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { list: ['a', 'b', 'c', 'd', 'e'] } });
  });

  it('nested iterates give two-level lineages; the inner collect closes per outer item and the outer one keeps outer order', () => {
    const g = graphOf(
      [input('in', 'groups'), iterateN('group', 2), iterateN('member', 2), tool('greet', 'who', 'group'), collect('per_group'), collect('all'), output('out', 'list')],
      ['in.groups->group.list', 'group.item->member.list', 'member.item->greet.who', 'group.item->greet.group', 'greet.text->per_group.item', 'per_group.list->all.item', 'all.list->out.list'],
    );
    const h = started(new SchedulerHarness(g), { groups: [['ann', 'bob', 'cy'], ['dee']] });
    expect(h.runs.sort()).toEqual(['greet[group=0,member=0]', 'greet[group=0,member=1]', 'greet[group=1,member=0]']);
    expect(h.get('greet[group=1,member=0]')).toMatchObject({ lineage: [{ iterate: 'group', index: 1 }, { iterate: 'member', index: 0 }], parent: 'member[group=1]', inputs: { who: 'dee', group: ['dee'] } });
    while (h.running.size > 0) {
      const next = [...h.running.values()].at(-1);
      if (!next) break;
      h.done(next.id, { text: `hi ${String(next.inputs.who)}` });
    }
    expect(h.finished?.outputs).toEqual({ list: [['hi ann', 'hi bob', 'hi cy'], ['hi dee']] });
    expect(h.violations).toEqual([]);
  });

  it('an empty list completes at once with an empty collect', () => {
    const g = graphOf([input('in', 'list'), iterate('each'), tool('t', 'v'), collect('all'), output('out', 'list')], ['in.list->each.list', 'each.item->t.v', 't.text->all.item', 'all.list->out.list']);
    const h = started(new SchedulerHarness(g), { list: [] });
    expect(h.runs).toEqual([]);
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { list: [] } });
  });

  it('a value that is not a list fails the iterate by name', () => {
    const g = graphOf([input('in', 'list'), iterate('each'), tool('t', 'v'), collect('all'), output('out', 'list')], ['in.list->each.list', 'each.item->t.v', 't.text->all.item', 'all.list->out.list']);
    const h = started(new SchedulerHarness(g), { list: 'nope' });
    expect(h.finished?.status).toBe('failed');
    expect(h.finished?.failure).toEqual({ code: 'invalid_input', message: 'each: expected a list to iterate over, got string' });
  });
});

describe('scheduler: failure, cancel, waiting', () => {
  it('a failure skips what requires it; an optional input that never arrives lets the node run without it', () => {
    const g = graphOf(
      [input('in', 'q'), tool('a', 'q'), tool('needs', 'x'), tool('maybe', 'q', { name: 'x', required: false }), output('out', 'r')],
      ['in.q->a.q', 'a.text->needs.x', 'in.q->maybe.q', 'a.text->maybe.x', 'maybe.text->out.r'],
    );
    const h = started(new SchedulerHarness(g), { q: 'Q' });
    h.failed('a', 'server refused');
    expect(h.finals('needs')).toEqual(['skipped']);
    expect(h.runs).toEqual(['a', 'maybe']);
    expect(h.get('maybe').inputs).toEqual({ q: 'Q' });
    h.done('maybe', { text: 'M' });
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { r: 'M' } });
  });

  it('a run whose output never gets its inputs fails with the first failure', () => {
    const g = graphOf([input('in', 'q'), tool('a', 'q'), tool('b', 'x'), output('out', 'r')], ['in.q->a.q', 'a.text->b.x', 'b.text->out.r']);
    const h = started(new SchedulerHarness(g), { q: 'Q' });
    h.failed('a', 'first');
    expect(h.runs).toEqual(['a']);
    expect(h.finished).toEqual({ type: 'finished', status: 'failed', outputs: {}, failure: { code: 'tool_error', message: 'first' } });
    expect(h.finals('out')).toEqual(['skipped']);
  });

  it('a missing required run input fails the run by its name before anything runs', () => {
    const g = graphOf([input('in', 'q'), tool('a', 'q'), output('out', 'r')], ['in.q->a.q', 'a.text->out.r']);
    const h = started(new SchedulerHarness(g), {});
    expect(h.runs).toEqual([]);
    expect(h.finished?.failure).toEqual({ code: 'invalid_input', message: 'the run needs a value for input q' });
  });

  it('cancel aborts everything running, cancels everything pending, finishes at once and nothing runs after it', () => {
    const g = graphOf(
      [input('in', 'list'), iterateN('each', 2), tool('s1', 'v'), tool('s2', 'v'), collect('all'), output('out', 'list')],
      ['in.list->each.list', 'each.item->s1.v', 's1.text->s2.v', 's2.text->all.item', 'all.list->out.list'],
    );
    const h = started(new SchedulerHarness(g), { list: [1, 2, 3, 4] });
    h.done('s1[each=0]', { text: 'x' });
    h.send({ type: 'waiting', id: 's1[each=1]' });
    const commands = h.send({ type: 'cancel' });
    expect(commands.filter((c) => c.type === 'abort').map((c) => (c.type === 'abort' ? c.id : '')).sort()).toEqual(['s1[each=1]', 's2[each=0]']);
    expect(finishedIn(commands)).toEqual({ type: 'finished', status: 'cancelled', outputs: {} });
    for (const [id, status] of h.status) expect([id, status]).toEqual([id, expect.stringMatching(/^(done|cancelled)$/)]);
    expect(h.finals('each')).toEqual(['cancelled']);
    expect(h.finals('all')).toEqual(['cancelled']);
    // The host's late answers change nothing.
    expect(h.done('s2[each=0]', { text: 'late' })).toEqual([]);
    expect(h.send({ type: 'cancel' })).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  it('cancel before start finishes cancelled with nothing run', () => {
    const g = graphOf([input('in', 'q'), tool('a', 'q'), output('out', 'r')], ['in.q->a.q', 'a.text->out.r']);
    const h = new SchedulerHarness(g);
    expect(h.send({ type: 'cancel' })).toEqual([{ type: 'finished', status: 'cancelled', outputs: {} }]);
    expect(h.send({ type: 'start', inputs: { q: 1 } })).toEqual([]);
  });

  it('an invocation waiting for a person is reported waiting, stays in flight, and runs on when resumed', () => {
    const g = graphOf(
      [input('in', 'list'), iterateN('each', 1), agent('ask', 'v'), collect('all'), output('out', 'list')],
      ['in.list->each.list', 'each.item->ask.v', 'ask.output->all.item', 'all.list->out.list'],
    );
    const h = started(new SchedulerHarness(g), { list: ['a', 'b'] });
    const waiting = h.send({ type: 'waiting', id: 'ask[each=0]' });
    expect(waiting).toEqual([{ type: 'status', invocation: h.get('ask[each=0]'), status: 'waiting' }]);
    expect(h.runs).toEqual(['ask[each=0]']);
    // The state survives a restart as JSON.
    h.state = JSON.parse(JSON.stringify(h.state)) as typeof h.state;
    expect(h.send({ type: 'resumed', id: 'ask[each=0]' }).map((c) => (c.type === 'status' ? c.status : c.type))).toEqual(['running']);
    expect(runsIn(h.done('ask[each=0]', { output: 'A' }))).toEqual(['ask[each=1]']);
    h.done('ask[each=1]', { output: 'B' });
    expect(h.finished?.outputs).toEqual({ list: ['A', 'B'] });
    expect(h.violations).toEqual([]);
  });

  it('answers for unknown, pending or finished invocations change nothing', () => {
    const g = graphOf([input('in', 'q'), tool('a', 'q'), tool('b', 'x'), output('out', 'r')], ['in.q->a.q', 'a.text->b.x', 'b.text->out.r']);
    const h = started(new SchedulerHarness(g), { q: 'Q' });
    expect(h.done('constructor', {})).toEqual([]);
    expect(h.done('b', { text: 'early' })).toEqual([]);
    expect(h.send({ type: 'emit', id: 'toString', port: 'x', value: 1 })).toEqual([]);
    h.done('a', { text: 'A' });
    expect(h.done('a', { text: 'again' })).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  it('an output port answered with undefined counts as missing, the same whether or not the state went through JSON', () => {
    const g = graphOf(
      [input('in', 'q'), tool('a', 'q'), tool('b', 'x'), tool('c', 'x'), output('out', 'r')],
      ['in.q->a.q', 'a.text->b.x', 'a.text->c.x', 'b.text->out.r'],
    );
    const live = started(new SchedulerHarness(g), { q: 'Q' });
    live.done('a', { text: undefined });
    const persisted = started(new SchedulerHarness(g), { q: 'Q' });
    persisted.done('a', { text: undefined });
    expect(live.finals('b')).toEqual(['skipped']);
    expect(live.finals('c')).toEqual(['skipped']);
    persisted.state = JSON.parse(JSON.stringify(persisted.state)) as typeof persisted.state;
    expect(JSON.stringify(persisted.state)).toBe(JSON.stringify(live.state));
  });

  it('a list element that is undefined is null, as in JSON, whether it came in a list or streamed', () => {
    const g = graphOf(
      [input('in', 'list'), tool('chunk', 'doc'), iterateN('each', 1), iterateN('streamed', 1), tool('t', 'v'), tool('u', 'v'), output('out', 'r')],
      ['in.list->each.list', 'in.list->chunk.doc', 'chunk.result->streamed.list', 'each.item->t.v', 'streamed.item->u.v', 'in.list->out.r'],
    );
    const h = started(new SchedulerHarness(g), { list: [undefined] });
    h.send({ type: 'emit', id: 'chunk', port: 'result', value: undefined });
    h.state = JSON.parse(JSON.stringify(h.state)) as typeof h.state;
    expect(h.get('t[each=0]').inputs).toEqual({ v: null });
    expect(h.get('u[streamed=0]').inputs).toEqual({ v: null });
  });

  it('a graph with a cycle finishes failed at start, naming it, and runs nothing', () => {
    const g = graphOf([tool('a', 'x'), tool('b', 'x'), output('out', 'r')], ['a.text->b.x', 'b.text->a.x', 'b.text->out.r']);
    const h = started(new SchedulerHarness(g));
    expect(h.runs).toEqual([]);
    expect(h.finished?.failure?.code).toBe('invalid_graph');
    expect(h.finished?.failure?.message).toContain('a → b');
  });

  it('a node inside an iterate that waits for the collect of that same iterate fails the run at start instead of waiting forever', () => {
    const g = graphOf(
      [input('in', 'list'), iterate('each'), collect('all'), tool('t', 'v', 'everything'), output('out', 'r')],
      ['in.list->each.list', 'each.item->all.item', 'each.item->t.v', 'all.list->t.everything', 'all.list->out.r'],
    );
    const h = started(new SchedulerHarness(g), { list: ['a'] });
    expect(h.runs).toEqual([]);
    expect(h.finished?.failure).toEqual({ code: 'invalid_graph', message: 'the workflow cannot run: t runs once per item of each but needs the collect all of each, which waits for every item' });
  });
});

describe('scheduler: the reference shapes of seed 004', () => {
  it('batch fan-out: list → iterate → extract → summarize → collect', () => {
    const g = graphOf(
      [input('in', 'folder'), tool('list', 'folder'), iterateN('each', 4), tool('extract', 'path'), agent('summarize', 'text'), collect('summaries'), output('out', 'report')],
      ['in.folder->list.folder', 'list.result->each.list', 'each.item->extract.path', 'extract.text->summarize.text', 'summarize.output->summaries.item', 'summaries.list->out.report'],
    );
    const files = Array.from({ length: 10 }, (_, i) => `f${i}.txt`);
    const h = started(new SchedulerHarness(g), { folder: '/docs' });
    h.done('list', { result: files });
    // Answered newest first, so items complete out of order.
    while (h.running.size > 0) {
      expect(new Set([...h.running.values()].map((i) => i.lineage[0]?.index)).size).toBeLessThanOrEqual(4);
      const next = [...h.running.values()].at(-1);
      if (!next) break;
      if (next.node === 'extract') h.done(next.id, { text: `text of ${String(next.inputs.path)}` });
      else h.done(next.id, { output: `summary of ${String(next.inputs.text)}` });
    }
    expect(h.finished).toEqual({ type: 'finished', status: 'completed', outputs: { report: files.map((f) => `summary of text of ${f}`) } });
    expect(h.runs.filter((id) => id.startsWith('summarize'))).toHaveLength(10);
    expect(h.violations).toEqual([]);
  });

  it('a finished invocation keeps no copy of its inputs in the state: a large batch stays small to persist', () => {
    const g = graphOf([input('in', 'list'), iterateN('each', 4), tool('t', 'v'), collect('all'), output('out', 'n')], ['in.list->each.list', 'each.item->t.v', 't.text->all.item', 'all.list->out.n']);
    const big = 'x'.repeat(1000);
    const h = started(new SchedulerHarness(g), { list: Array.from({ length: 50 }, () => big) });
    while (h.running.size > 0) {
      const next = [...h.running.values()][0];
      if (next) h.done(next.id, { text: 'ok' });
    }
    expect(h.finished?.status).toBe('completed');
    expect(Object.values(h.state.invocations).filter((i) => Object.keys(i.inputs).length > 0).map((i) => i.node)).toEqual([]);
  });

  it('a chain of paid model calls runs one after another, and a failure stops every later paid call', () => {
    const g = graphOf(
      [input('in', 'topic'), agent('draft', 'topic'), agent('critique', 'draft'), agent('revise', 'critique'), output('out', 'text')],
      ['in.topic->draft.topic', 'draft.output->critique.draft', 'critique.output->revise.critique', 'revise.output->out.text'],
    );
    const ok = started(new SchedulerHarness(g), { topic: 'bees' });
    expect(ok.runs).toEqual(['draft']);
    expect(runsIn(ok.done('draft', { output: 'D' }))).toEqual(['critique']);
    expect(runsIn(ok.done('critique', { output: 'C' }))).toEqual(['revise']);
    expect(ok.get('revise').inputs).toEqual({ critique: 'C' });
    ok.done('revise', { output: 'R' });
    expect(ok.finished?.outputs).toEqual({ text: 'R' });

    const broken = started(new SchedulerHarness(g), { topic: 'bees' });
    broken.done('draft', { output: 'D' });
    broken.failed('critique', 'model refused the key');
    expect(broken.runs).toEqual(['draft', 'critique']);
    expect(broken.finals('revise')).toEqual(['skipped']);
    expect(broken.finished?.failure?.message).toBe('model refused the key');
  });

  it('streaming chain: chunk → embed → upsert, every item flowing before the producer has finished', () => {
    const g = graphOf(
      [input('in', 'doc'), tool('chunk', 'doc'), iterateN('each', 2), tool('embed', 'text'), tool('upsert', 'vector'), collect('all'), output('out', 'ids')],
      ['in.doc->chunk.doc', 'chunk.result->each.list', 'each.item->embed.text', 'embed.result->upsert.vector', 'upsert.text->all.item', 'all.list->out.ids'],
    );
    const h = started(new SchedulerHarness(g), { doc: 'text' });
    for (let i = 0; i < 6; i++) {
      h.send({ type: 'emit', id: 'chunk', port: 'result', value: `c${i}` });
      // Drain everything released so far while the producer keeps running.
      for (let guard = 0; guard < 10 && h.running.size > 1; guard++) {
        for (const inv of [...h.running.values()]) {
          if (inv.node === 'embed') h.done(inv.id, { result: [i] });
          else if (inv.node === 'upsert') h.done(inv.id, { text: `id-${inv.lineage[0]?.index}` });
        }
      }
      expect(h.status.get(`upsert[each=${i}]`)).toBe('done');
      expect(h.status.get('chunk')).toBe('running');
    }
    h.done('chunk', { result: [] });
    expect(h.finished?.outputs).toEqual({ ids: ['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5'] });
    expect(h.violations).toEqual([]);
  });
});

describe('scheduler: templates used as stages', () => {
  it('a template with no inputs runs once at the start', () => {
    const g = graphOf([template('hello', 'hi'), output('out', 'r')], ['hello.output->out.r']);
    const h = started(new SchedulerHarness(g));
    expect(h.runs).toEqual(['hello']);
    h.done('hello', { output: 'hi' });
    expect(h.finished?.outputs).toEqual({ r: 'hi' });
  });
});
