import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WorkflowGraph, WorkflowNode, WorkflowNodeInput } from './document';
import { indexGraph } from './graph-index';
import { FINAL_INVOCATION_STATUSES, invocationId, type InvocationStatus, type Lineage } from './invocation';
import { portsOf } from './ports';
import { graphOf } from './testing/graphs';
import { SchedulerHarness } from './testing/scheduler-harness';
import { createScheduler, schedule, type SchedulerCommand, type SchedulerState } from './scheduler';

/**
 * Property tests over generated graphs: random valid DAGs of input/template/tool/assert/iterate/
 * collect/output nodes, driven by a random host that answers `run` commands in any order with
 * done, failed, emit (streamed items), waiting and resumed, and sometimes cancels the run.
 */

const FINAL = new Set<InvocationStatus>(FINAL_INVOCATION_STATUSES);
/** A value a node sends, its scope, and the iterates whose collects it depends on. */
type Value = { node: string; port: string; scope: string[]; after: string[] };
const STEP_KINDS = ['tool', 'template', 'assert', 'iterate', 'collect', 'source'] as const;
const Step = fc.record({
  // Weighted towards iterates, their stages and collects, so nesting and gathering come up often.
  kind: fc.constantFrom(...STEP_KINDS, 'iterate', 'iterate', 'tool', 'collect') as fc.Arbitrary<(typeof STEP_KINDS)[number]>,
  picks: fc.array(fc.oneof({ arbitrary: fc.integer({ min: -3, max: -1 }), weight: 3 }, { arbitrary: fc.nat(), weight: 1 }), { minLength: 1, maxLength: 3 }),
  optional: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  concurrency: fc.integer({ min: 1, max: 3 }),
});
const Recipe = fc.record({
  steps: fc.array(Step, { minLength: 1, maxLength: 10 }),
  outputs: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  optional: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  /** Also allow a node inside an iterate to need that iterate's own collect (invalid: it must be refused, not hang). */
  loose: fc.boolean(),
});
type Recipe = typeof Recipe extends fc.Arbitrary<infer T> ? T : never;

const isPrefix = (short: string[], long: string[]) => short.length <= long.length && short.every((s, i) => long[i] === s);

/**
 * A recipe becomes a graph: every node's inputs come from one chain of nested scopes, and (unless
 * `loose`) no node inside an iterate needs the collect of that same iterate.
 */
function build(recipe: Recipe): WorkflowGraph {
  const nodes: WorkflowNodeInput[] = [{ id: 'in', kind: 'input', fields: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }];
  const values: Value[] = ['a', 'b', 'c'].map((port) => ({ node: 'in', port, scope: [], after: [] }));
  const edges: string[] = [];
  recipe.steps.forEach((step, i) => {
    const id = `n${i}`;
    // A negative pick is one of the last values (chains, nested iterates and their collects), else any.
    const recent = (from: Value[], p: number) => from[p < 0 ? Math.max(0, from.length + p) : p % from.length] as Value;
    const pick = (k: number) => recent(values, step.picks[k] ?? 0);
    const nested = values.filter((v) => v.scope.length > 0);
    const kind = step.kind === 'collect' && nested.length === 0 ? 'template' : step.kind;
    if (kind === 'iterate') {
      const src = pick(0);
      nodes.push({ id, kind: 'iterate', concurrency: step.concurrency });
      edges.push(`${src.node}.${src.port}->${id}.list`);
      values.push({ node: id, port: 'item', scope: [...src.scope, id], after: src.after });
    } else if (kind === 'collect') {
      const src = recent(nested, step.picks[0] ?? 0);
      nodes.push({ id, kind: 'collect' });
      edges.push(`${src.node}.${src.port}->${id}.item`);
      values.push({ node: id, port: 'list', scope: src.scope.slice(0, -1), after: [...src.after, src.scope.at(-1) ?? ''] });
    } else if (kind === 'assert') {
      const src = pick(0);
      nodes.push({ id, kind: 'assert', checks: [{ check: 'non_empty' }] });
      edges.push(`${src.node}.${src.port}->${id}.value`);
      values.push({ node: id, port: 'value', scope: src.scope, after: src.after });
    } else if (kind === 'source') {
      nodes.push({ id, kind: 'tool', server: 'srv', tool: 'make' });
      values.push({ node: id, port: 'result', scope: [], after: [] });
    } else {
      const primary = pick(0);
      const sources = [primary, ...step.picks.slice(1).map((_, k) => pick(k + 1)).filter((v) => isPrefix(v.scope, primary.scope) && (recipe.loose || !v.after.some((x) => primary.scope.includes(x))))];
      const after = [...new Set(sources.flatMap((v) => v.after))];
      const inputs = sources.map((_, k) => ({ name: `x${k}`, required: !step.optional[k] }));
      sources.forEach((v, k) => edges.push(`${v.node}.${v.port}->${id}.x${k}`));
      if (kind === 'tool') {
        nodes.push({ id, kind: 'tool', server: 'srv', tool: 'work', inputs });
        values.push({ node: id, port: step.picks.length % 2 ? 'result' : 'text', scope: primary.scope, after });
      } else {
        nodes.push({ id, kind: 'template', template: 'x', inputs });
        values.push({ node: id, port: 'output', scope: primary.scope, after });
      }
    }
  });
  const top = values.filter((v) => v.scope.length === 0);
  const fields = [...new Set(recipe.outputs.map((p) => p % top.length))].map((p, k) => ({ value: top[p] as Value, name: `o${k}`, required: !recipe.optional[k] }));
  nodes.push({ id: 'out', kind: 'output', fields: fields.map((f) => ({ name: f.name, required: f.required })) });
  fields.forEach((f) => edges.push(`${f.value.node}.${f.value.port}->out.${f.name}`));
  return graphOf(nodes, edges);
}

interface DriveOptions {
  /** Percent chance per step that the host cancels the run. */
  cancelRate: number;
}

/** Plays a random host; checks the concurrency bound after every step; round-trips the state through JSON once. */
function drive(graph: WorkflowGraph, g: fc.GeneratorValue, options: DriveOptions): { h: SchedulerHarness; problems: string[] } {
  const h = new SchedulerHarness(graph);
  const nodes = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const limits = new Map(graph.nodes.flatMap((n) => (n.kind === 'iterate' ? [[n.id, n.concurrency] as const] : [])));
  const problems: string[] = [];
  // Every value is a list of lists of unique strings, so an iterate over an item (nested) has a list too.
  const length = () => (g(fc.nat, 5) === 0 ? 0 : 1 + g(fc.nat, 2));
  const list = (prefix: string) => Array.from({ length: length() }, (_, k) => Array.from({ length: length() }, (_, j) => `${prefix}#${k}.${j}`));
  h.send({ type: 'start', inputs: { a: list('a'), b: list('b'), c: list('c') } });
  const roundTripAt = g(fc.nat, 20);
  let emitted = 0;
  for (let step = 0; step < 2000 && !h.finished; step++) {
    if (step === roundTripAt) {
      const text = JSON.stringify(h.state);
      const copy = JSON.parse(text) as SchedulerState;
      if (JSON.stringify(copy) !== text) problems.push('the state changed through JSON');
      h.state = copy;
    }
    const running = [...h.running.values()];
    if (running.length === 0) break;
    if (g(fc.nat, 99) < options.cancelRate) {
      h.send({ type: 'cancel' });
      break;
    }
    const inv = running[g(fc.nat, running.length - 1)];
    if (!inv) break;
    const node = nodes.get(inv.node) as WorkflowNode;
    const ports = portsOf(node).outputs.map((p) => p.name);
    if (h.status.get(inv.id) === 'waiting') {
      h.send({ type: 'resumed', id: inv.id });
    } else {
      const roll = g(fc.nat, 99);
      if (roll < 12) h.send({ type: 'failed', id: inv.id, failure: { code: 'tool_error', message: `${inv.id} failed` } });
      else if (roll < 22) h.send({ type: 'waiting', id: inv.id });
      else if (roll < 40 && ports.length > 0) h.send({ type: 'emit', id: inv.id, port: ports[g(fc.nat, ports.length - 1)] as string, value: `${inv.id}~${emitted++}` });
      // Now and then a port is left out of the outputs: its consumers see it missing.
      else h.send({ type: 'done', id: inv.id, outputs: Object.fromEntries(ports.filter(() => g(fc.nat, 9) > 0).map((p) => [p, list(`${inv.id}.${p}`)])) });
    }
    problems.push(...overConcurrency(h, limits));
  }
  if (!h.finished) problems.push(`the run did not finish; running: ${[...h.running.keys()].join(', ')}`);
  return { h, problems };
}

/** Items in flight per iterate invocation: items with any invocation not final. */
function overConcurrency(h: SchedulerHarness, limits: Map<string, number>): string[] {
  const open = new Map<string, Set<number>>();
  for (const [id, status] of h.status) {
    if (FINAL.has(status)) continue;
    const { lineage } = h.get(id);
    lineage.forEach((step, d) => {
      const key = invocationId(step.iterate, lineage.slice(0, d));
      const set = open.get(key) ?? new Set<number>();
      set.add(step.index);
      open.set(key, set);
    });
  }
  return [...open].flatMap(([key, items]) => {
    const iterate = key.split('[')[0] ?? key;
    return items.size > (limits.get(iterate) ?? 4) ? [`${key} has ${items.size} items in flight (limit ${limits.get(iterate)})`] : [];
  });
}

type Status = Extract<SchedulerCommand, { type: 'status' }>;

/** Everything that must hold of a finished run, as a list of what did not. */
function checkRun(graph: WorkflowGraph, h: SchedulerHarness): string[] {
  const problems = [...h.violations];
  const index = indexGraph(graph);
  const depthOfValues = (node: string) => {
    const scope = index.scope.get(node) ?? [];
    const kind = index.nodes.get(node)?.kind;
    return kind === 'iterate' ? scope.length + 1 : kind === 'collect' ? scope.length - 1 : scope.length;
  };
  const finals = new Map<string, Status>();
  for (const c of h.statusCommands()) if (FINAL.has(c.status)) finals.set(c.invocation.id, c);

  // Every invocation ends in exactly one final status.
  for (const id of h.status.keys()) {
    const n = h.finals(id).length;
    if (n !== 1) problems.push(`${id} has ${n} final statuses`);
  }
  // What ran got exactly the values of the same lineage; a missing value only on an optional input.
  for (const id of h.runs) {
    const inv = h.get(id);
    const node = index.nodes.get(inv.node) as WorkflowNode;
    for (const decl of portsOf(node).inputs) {
      for (const e of index.incoming.get(inv.node)?.get(decl.name) ?? []) {
        if (index.nodes.get(e.from.node)?.kind === 'iterate') continue;
        const source = finals.get(invocationId(e.from.node, inv.lineage.slice(0, depthOfValues(e.from.node))));
        const sent = source?.status === 'done' ? source.outputs : undefined;
        if (sent && Object.hasOwn(sent, e.from.port)) {
          if (JSON.stringify(inv.inputs[decl.name]) !== JSON.stringify(sent[e.from.port])) problems.push(`${id}.${decl.name} is not ${source?.invocation.id}.${e.from.port}`);
        } else if (decl.required !== false) problems.push(`${id} ran without its required ${decl.name} (${source?.invocation.id ?? e.from.node} ${source?.status ?? 'never final'})`);
        else if (Object.hasOwn(inv.inputs, decl.name)) problems.push(`${id}.${decl.name} has a value nobody sent`);
      }
    }
  }
  // An item is the element of its iterate's list at its index: the streamed items in order when the
  // producer emitted, otherwise its finished list.
  const itemsOf = (iterate: string, lineage: Lineage): unknown[] | undefined => {
    const feed = index.incoming.get(iterate)?.get('list')?.[0];
    if (!feed) return undefined;
    if (index.nodes.get(feed.from.node)?.kind === 'iterate') {
      // Nested: the list is the outer iterate's item for this lineage.
      const outer = itemsOf(feed.from.node, lineage);
      return outer?.[lineage[depthOfValues(feed.from.node) - 1]?.index ?? -1] as unknown[] | undefined;
    }
    const producer = invocationId(feed.from.node, lineage.slice(0, depthOfValues(feed.from.node)));
    const emits = h.events.flatMap((ev) => (ev.type === 'emit' && ev.id === producer && ev.port === feed.from.port ? [ev.value] : []));
    return emits.length > 0 ? emits : (finals.get(producer)?.outputs?.[feed.from.port] as unknown[] | undefined);
  };
  for (const id of h.runs) {
    const inv = h.get(id);
    for (const [port, edges] of index.incoming.get(inv.node) ?? []) {
      for (const e of edges) {
        if (index.nodes.get(e.from.node)?.kind !== 'iterate') continue;
        const depth = depthOfValues(e.from.node);
        const list = itemsOf(e.from.node, inv.lineage);
        const at = inv.lineage[depth - 1]?.index ?? -1;
        if (list && JSON.stringify(inv.inputs[port]) !== JSON.stringify(list[at])) problems.push(`${id}.${port} is ${JSON.stringify(inv.inputs[port])}, not item ${at} of ${e.from.node}`);
      }
    }
  }
  // A collect lists the values of the items whose source is done with that port, in item order.
  for (const c of finals.values()) {
    if (c.status !== 'done' || index.nodes.get(c.invocation.node)?.kind !== 'collect') continue;
    const e = index.incoming.get(c.invocation.node)?.get('item')?.[0];
    if (!e) continue;
    const prefix = JSON.stringify(c.invocation.lineage);
    const items = index.nodes.get(e.from.node)?.kind === 'iterate' ? itemsOf(e.from.node, c.invocation.lineage) : [...finals.values()]
      .filter((s) => s.invocation.node === e.from.node && s.status === 'done' && Object.hasOwn(s.outputs ?? {}, e.from.port) && JSON.stringify(s.invocation.lineage.slice(0, -1)) === prefix)
      .sort((a, b) => (a.invocation.lineage.at(-1)?.index ?? 0) - (b.invocation.lineage.at(-1)?.index ?? 0))
      .map((s) => s.outputs?.[e.from.port]);
    if (JSON.stringify(c.outputs?.list) !== JSON.stringify(items)) problems.push(`${c.invocation.id} listed ${JSON.stringify(c.outputs?.list)}, not ${JSON.stringify(items)}`);
  }
  // A hosted node is skipped only when a required source did not deliver.
  for (const c of finals.values()) {
    const node = index.nodes.get(c.invocation.node) as WorkflowNode;
    if (c.status !== 'skipped' || !['tool', 'template', 'assert', 'output'].includes(node.kind)) continue;
    const starved = portsOf(node).inputs.some((decl) =>
      (index.incoming.get(node.id)?.get(decl.name) ?? []).some((e) => {
        if (decl.required === false) return false;
        if (index.nodes.get(e.from.node)?.kind === 'iterate') return false;
        const source = finals.get(invocationId(e.from.node, c.invocation.lineage.slice(0, depthOfValues(e.from.node))));
        return source?.status !== 'done' || !Object.hasOwn(source.outputs ?? {}, e.from.port);
      }),
    );
    if (!starved) problems.push(`${c.invocation.id} was skipped with every required input delivered`);
  }
  // The same events replayed into a fresh scheduler give the same commands and the same state.
  let replayed = createScheduler(graph);
  const again: SchedulerCommand[] = [];
  for (const event of h.events) {
    const next = schedule(replayed, event);
    replayed = next.state;
    again.push(...next.commands);
  }
  if (JSON.stringify(again) !== JSON.stringify(h.log)) problems.push('replaying the events gave other commands');
  if (JSON.stringify(replayed) !== JSON.stringify(h.state)) problems.push('replaying the events gave another state');
  // The run's status follows its output.
  const out = finals.get('out');
  if (h.finished?.status === 'completed' && out?.status !== 'done') problems.push('completed without its output');
  if (h.finished?.status === 'failed' && out?.status === 'done') problems.push('failed with its output done');
  return problems;
}

describe('scheduler over generated graphs (property)', () => {
  it('generated graphs are valid for the scheduler: no cycle, no unrelated scopes meeting', () => {
    fc.assert(
      fc.property(Recipe, (recipe) => {
        const index = indexGraph(build(recipe));
        expect(index.cycle).toBeUndefined();
        expect(index.scopeConflicts).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('a strict recipe never gives a graph the scheduler refuses', () => {
    fc.assert(
      fc.property(Recipe, (recipe) => {
        const h = new SchedulerHarness(build({ ...recipe, loose: false }));
        h.send({ type: 'start', inputs: { a: [], b: [], c: [] } });
        expect(h.finished?.failure?.code).not.toBe('invalid_graph');
      }),
      { numRuns: 200 },
    );
  });

  /** A generated graph, a random host (cancelling at `cancelRate` percent per step), every run check, then `then`. */
  const driven = (cancelRate: number, then: (h: SchedulerHarness) => void) =>
    fc.property(Recipe, fc.gen(), (recipe, g) => {
      const graph = build(recipe);
      const { h, problems } = drive(graph, g, { cancelRate });
      expect([...problems, ...checkRun(graph, h)]).toEqual([]);
      then(h);
    });

  it('no invocation runs twice, nothing runs without its required inputs, collect keeps item order, concurrency holds, every invocation ends once and the run finishes', () => {
    fc.assert(
      driven(0, (h) => {
        expect(h.finished?.status).not.toBe('cancelled');
        expect(h.running.size).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it('cancel at any point leaves nothing running, nothing pending and no run after it', () => {
    fc.assert(
      driven(15, (h) => {
        if (h.finished?.status !== 'cancelled') return;
        expect([...h.status.values()].filter((s) => !FINAL.has(s))).toEqual([]);
        const at = h.log.findIndex((c) => c.type === 'finished');
        expect(h.log.slice(at + 1)).toEqual([]);
        expect(h.send({ type: 'done', id: h.runs.at(-1) ?? 'in', outputs: {} })).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
