import { describe, expect, it } from 'vitest';
import type { WorkflowNodeInput } from './document';
import { formatGraphProblem, validateGraph } from './validate-graph';
import { collect, graphOf, input, iterate, output, template } from './testing/graphs';
import { countingGraph } from './testing/counting-graph';
import { fanOutChain } from './testing/scale-graphs';

const codes = (problems: ReturnType<typeof validateGraph>) => problems.map((p) => p.code);
const agent = (id: string, extra: Record<string, unknown> = {}): WorkflowNodeInput => ({ id, kind: 'agent', instructions: 'Help.', task: 'Do it.', ...extra }) as WorkflowNodeInput;
const tool = (id: string, server: string, name: string, extra: Record<string, unknown> = {}): WorkflowNodeInput => ({ id, kind: 'tool', server, tool: name, ...extra }) as WorkflowNodeInput;
const fsServer = { id: 'fs', command: 'node', args: [] };

describe('validateGraph', () => {
  it('a well-formed chain has no problems', () => {
    const g = graphOf([input('in', 'q'), template('t', 'Q: {{q}}', 'q'), output('out', 'text')], ['in.q->t.q', 't.output->out.text']);
    expect(validateGraph(g)).toEqual([]);
  });

  it('a cycle is reported naming its nodes', () => {
    const g = graphOf(
      [input('in', 'q'), template('a', '{{q}}{{z}}', 'q', 'z'), template('b', '{{x}}', 'x'), output('out', 'text')],
      ['in.q->a.q', 'a.output->b.x', 'b.output->a.z', 'b.output->out.text'],
    );
    const cycle = validateGraph(g).find((p) => p.code === 'cycle');
    expect(cycle).toEqual({ node: 'a', code: 'cycle', message: 'a cycle: a → b → a' });
  });

  it('an edge naming a node or port that does not exist is reported by edge, node and port', () => {
    const g = graphOf([input('in', 'q'), output('out', 'q')], ['in.q->out.q', 'in.q->ghost.q', 'in.nope->out.q', 'in.q->out.nope']);
    const problems = validateGraph(g).filter((p) => p.edge !== undefined);
    expect(problems).toEqual([
      { edge: 1, node: 'ghost', code: 'unknown_node', message: 'edge 2 goes to a node "ghost" that does not exist' },
      { edge: 2, node: 'in', port: 'nope', code: 'unknown_port', message: 'edge 3 leaves from an output "nope" this input node does not have' },
      { edge: 3, node: 'out', port: 'nope', code: 'unknown_port', message: 'edge 4 goes to an input "nope" this output node does not have' },
    ]);
  });

  it('a required input with nothing connected is reported; an optional one is not', () => {
    const g = graphOf(
      [input('in', 'q'), { id: 't', kind: 'template', template: '{{a}}{{b}}', inputs: [{ name: 'a' }, { name: 'b', required: false }] }, output('out', 'text')],
      ['t.output->out.text'],
    );
    expect(validateGraph(g)).toContainEqual({ node: 't', port: 'a', code: 'not_connected', message: 'the required input "a" is not connected' });
    expect(validateGraph(g).some((p) => p.port === 'b')).toBe(false);
  });

  it('an input connected twice is reported', () => {
    const g = graphOf([input('in', 'q', 'r'), output('out', 'text')], ['in.q->out.text', 'in.r->out.text']);
    expect(validateGraph(g)).toEqual([{ node: 'out', port: 'text', code: 'connected_twice', message: 'the input "text" is connected 2 times (edges 1, 2); a port takes one edge' }]);
  });

  it('a type mismatch names the receiving node and port and both types', () => {
    const g = graphOf(
      [{ id: 'in', kind: 'input', fields: [{ name: 'n', type: 'number' }] }, iterate('it'), collect('c'), output('out', 'list')],
      ['in.n->it.list', 'it.item->c.item', 'c.list->out.list'],
    );
    expect(validateGraph(g)).toContainEqual({ edge: 0, node: 'it', port: 'list', code: 'type_mismatch', message: 'a number value from in.n cannot flow into this list input' });
  });

  it('unknown servers and, when the servers are known, unknown tools are reported', () => {
    const g = graphOf(
      [input('in', 'q'), agent('a', { servers: ['fs', 'mail'] }), tool('t1', 'fs', 'read_file', { arguments: { path: '{{q}}' }, inputs: [{ name: 'q' }] }), tool('t2', 'fs', 'rm_rf'), tool('t3', 'web', 'get'), output('out', 'a', 'b', 'c', 'd')],
      ['in.q->t1.q', 'a.output->out.a', 't1.text->out.b', 't2.text->out.c', 't3.text->out.d'],
      { servers: [fsServer] },
    );
    const problems = validateGraph(g, { tools: { fs: ['read_file', 'write_file'] } });
    expect(problems).toEqual([
      { node: 'a', code: 'unknown_server', message: 'uses a server "mail" the workflow does not have' },
      { node: 't2', code: 'unknown_tool', message: 'server "fs" offers no tool "rm_rf" to this workflow' },
      { node: 't3', code: 'unknown_server', message: 'uses a server "web" the workflow does not have' },
    ]);
    // Without the tool lists, a tool name cannot be checked (servers are not started to validate).
    expect(codes(validateGraph(g))).toEqual(['unknown_server', 'unknown_server']);
  });

  it('a template, agent task or tool argument using an input the node does not declare is reported by port', () => {
    const g = graphOf(
      [
        input('in', 'q'),
        template('t', '{{q}} and {{extra}}', 'q'),
        agent('a', { task: 'Summarise {{doc}}', inputs: [{ name: 'q' }] }),
        tool('w', 'fs', 'write_file', { arguments: { path: '{{target.dir}}/x' } }),
        output('out', 'a', 'b', 'c'),
      ],
      ['in.q->t.q', 'in.q->a.q', 't.output->out.a', 'a.output->out.b', 'w.text->out.c'],
      { servers: [fsServer] },
    );
    expect(validateGraph(g)).toEqual([
      { node: 't', port: 'extra', code: 'undeclared_input', message: 'uses {{extra}} but declares no input "extra"' },
      { node: 'a', port: 'doc', code: 'undeclared_input', message: 'uses {{doc}} but declares no input "doc"' },
      { node: 'w', port: 'target', code: 'undeclared_input', message: 'uses {{target}} but declares no input "target"' },
    ]);
  });

  it('a workflow without an output node, or with an output nothing reaches, is reported', () => {
    expect(validateGraph(graphOf([input('in', 'q')]))).toEqual([{ code: 'no_output', message: 'the workflow has no output node' }]);
    const g = graphOf([input('in', 'q'), { id: 'out', kind: 'output', fields: [{ name: 'x', required: false }] }]);
    expect(validateGraph(g)).toEqual([{ node: 'out', code: 'unreachable_output', message: 'no path from an input or source node reaches this output' }]);
  });

  it('a collect with no iterate upstream is reported', () => {
    const g = graphOf([{ id: 'in', kind: 'input', fields: [{ name: 'q', type: 'any' }] }, collect('c'), output('out', 'list')], ['in.q->c.item', 'c.list->out.list']);
    expect(validateGraph(g)).toEqual([{ node: 'c', code: 'collect_without_iterate', message: 'collects items, but no iterate is upstream of it' }]);
  });

  it('items of two unrelated iterates meeting at one node are reported (their items cannot be paired)', () => {
    const g = graphOf(
      [{ id: 'in', kind: 'input', fields: [{ name: 'xs', type: 'list' }, { name: 'ys', type: 'list' }] }, iterate('ix'), iterate('iy'), template('pair', '{{x}}{{y}}', 'x', 'y'), collect('c'), output('out', 'list')],
      ['in.xs->ix.list', 'in.ys->iy.list', 'ix.item->pair.x', 'iy.item->pair.y', 'pair.output->c.item', 'c.list->out.list'],
    );
    expect(validateGraph(g)).toContainEqual({
      node: 'pair',
      code: 'unrelated_scopes',
      message: 'items of iterate ix and items of iterate iy meet here; a node can only join an item with values of its own or an enclosing iterate',
    });
  });

  it('an item value reaching an output without a collect is reported by port', () => {
    const g = graphOf(
      [{ id: 'in', kind: 'input', fields: [{ name: 'xs', type: 'list' }] }, iterate('it'), template('t', '{{x}}', 'x'), output('out', 'text')],
      ['in.xs->it.list', 'it.item->t.x', 't.output->out.text'],
    );
    expect(validateGraph(g)).toEqual([
      { node: 'out', port: 'text', code: 'item_reaches_output', message: 'gets one value per item of iterate it; put a collect before the output' },
    ]);
  });

  it('an assert whose regex cannot run in linear time, or whose schema does not compile, is reported before the run', () => {
    const g = graphOf(
      [input('in', 'q'), { id: 'check', kind: 'assert', checks: [{ check: 'non_empty' }, { check: 'regex', pattern: '(a)\\1' }, { check: 'json_schema', schema: { type: 'nope' } }] }, output('out', 'text')],
      ['in.q->check.value', 'check.value->out.text'],
    );
    expect(validateGraph(g)).toEqual([
      { node: 'check', code: 'invalid_check', message: expect.stringMatching(/^check 2 \(regex\): the pattern uses a backreference/) },
      { node: 'check', code: 'invalid_check', message: expect.stringMatching(/^check 3 \(json_schema\): the schema cannot be used/) },
    ]);
  });

  it('a tool effect naming a server the workflow does not have is reported', () => {
    const g = graphOf([input('in', 'q'), output('out', 'q')], ['in.q->out.q'], { tool_effects: { 'ghost/write': { effect: 'reversible_write' } } as never });
    expect(codes(validateGraph(g))).toEqual(['unknown_server']);
  });
});

describe('validateGraph: bounds and declarations', () => {
  it('iterates nested deeper than a lineage can record are reported at the first one too deep', () => {
    const ids = Array.from({ length: 17 }, (_, i) => `i${i}`);
    const g = graphOf(
      [{ id: 'in', kind: 'input', fields: [{ name: 'xs', type: 'list' }] }, ...ids.map(iterate), ...ids.map((id) => collect(`c${id}`)), output('out', 'list')],
      ['in.xs->i0.list', ...ids.slice(1).map((id, i) => `i${i}.item->${id}.list`), 'i16.item->ci16.item', ...ids.slice(0, -1).map((id, i) => `ci${i + 1}.list->c${id}.item`), 'ci0.list->out.list'],
    );
    expect(validateGraph(g)).toEqual([{ node: 'i16', code: 'too_deep', message: 'iterates nest deeper than 16 levels here' }]);
  });

  it('a required output field with nothing connected is reported by port', () => {
    const g = graphOf([input('in', 'q'), output('out', 'a', 'b')], ['in.q->out.a']);
    expect(validateGraph(g)).toEqual([{ node: 'out', port: 'b', code: 'not_connected', message: 'the required input "b" is not connected' }]);
  });

  it('a node declaring one input name twice is reported', () => {
    const g = graphOf([input('in', 'q'), template('t', '{{q}}', 'q', 'q'), output('out', 'x')], ['in.q->t.q', 't.output->out.x']);
    expect(codes(validateGraph(g))).toEqual(['duplicate_port']);
  });
});

describe('validateGraph at scale', () => {
  it('validates a chain of 10,000 fan-outs (iterate, template, collect) reading each node and edge a bounded number of times', () => {
    // Counted, not timed (bench/shared-scale.ts times it): reads of the graph grow linearly from 5,000 to 10,000 fan-outs.
    const chain = (n: number) => {
      const counting = countingGraph(fanOutChain(n));
      expect(validateGraph(counting.graph)).toEqual([]);
      return { reads: counting.reads(), elements: counting.graph.nodes.length + counting.graph.edges.length };
    };
    const [half, full] = [chain(5_000), chain(10_000)];
    // About 29 reads per node or edge today; a pass scanning the whole graph once per node would read it thousands of times more.
    expect(full.reads).toBeLessThanOrEqual(40 * full.elements);
    expect(full.reads).toBeLessThanOrEqual(2 * half.reads + 100); // linear: twice the graph, twice the reads (plus a fixed cost)
  });
});

describe('formatGraphProblem', () => {
  it('reads node <id> port <port>: message', () => {
    expect(formatGraphProblem({ node: 'out', port: 'text', code: 'x', message: 'is wrong' })).toBe('node out port text: is wrong');
    expect(formatGraphProblem({ node: 'a', code: 'x', message: 'is wrong' })).toBe('node a: is wrong');
    expect(formatGraphProblem({ code: 'x', message: 'no output' })).toBe('workflow: no output');
  });
});
