import type { IndexedEdge, GraphIndex } from './graph-index';
import { indexGraph } from './graph-index';
import type { WorkflowGraph, WorkflowNode } from './document';
import { FINAL_INVOCATION_STATUSES, invocationId, type Invocation, type InvocationStatus, type Lineage, type NodeFailure } from './invocation';
import { setOwn } from '../util/set-own';

/**
 * The workflow scheduler: a reducer over the run's events that says what the host runs next.
 * No timers, no I/O, no clock: the same events always give the same commands.
 *
 * - input/iterate/collect/output nodes are handled here (still reported with `status` commands);
 *   every other kind (agent, tool, template, assert, and kinds added later) is a `run` command for
 *   the host. Every invocation is reported `pending` when its lineage opens, then each change.
 * - A node runs once per lineage when every input for that lineage has arrived (a join waits for
 *   all). Values are matched by lineage; an outer-scope value is shared by every item below it.
 * - An iterate releases at most `concurrency` items at a time; an item is in flight until every
 *   invocation of its lineage below that iterate is final. It takes streamed `emit` items before
 *   its producer is done; the producer's `done` then closes the stream (its value on that port is
 *   not iterated again). A producer that fails mid-stream leaves the list incomplete: items already
 *   released finish, the rest are dropped, and the iterate (and its collect) end `skipped`.
 * - Stages below an iterate have no barrier between them.
 * - A collect gathers its `item` values in item order once its iterate is closed and every item is
 *   final; failed and skipped items are left out (counted in its status outputs as `left_out`).
 * - A failed or skipped invocation skips what requires its value; an optional input that will never
 *   arrive lets the node run without it.
 * - Cancel is final in the scheduler: it sends `abort` for every running/waiting invocation, marks
 *   everything not final `cancelled` and sends `finished` (cancelled) at once. Later `done`/`failed`
 *   for aborted invocations are ignored; the host settles its aborted work before it reports the run.
 * - Run status: completed when every output node got its inputs (with no output node: when nothing
 *   failed), failed otherwise with the first failure.
 *
 * The state is plain JSON (persist it with JSON.stringify; it carries the graph), and it can equally
 * be rebuilt by replaying the same events from `createScheduler`. `schedule` takes ownership of the
 * state it is given and returns the next one (the same object, updated): reuse only the returned
 * state. That keeps an event O(work it causes), not O(run size), for 1,000-item iterates.
 * Unknown ids, events for final invocations and events after `finished` give no commands.
 */

export type SchedulerEvent =
  | { type: 'start'; inputs: Record<string, unknown> }
  | { type: 'waiting'; id: string }
  | { type: 'resumed'; id: string }
  | { type: 'emit'; id: string; port: string; value: unknown }
  | { type: 'done'; id: string; outputs: Record<string, unknown> }
  | { type: 'failed'; id: string; failure: NodeFailure }
  /** A supervisor skipped a failed hosted invocation: it settles `skipped` (downstream pruned as for any skip) and the run does not fail. */
  | { type: 'skipped'; id: string; reason: string }
  | { type: 'cancel' };

export type SchedulerCommand =
  | { type: 'run'; invocation: Invocation }
  | { type: 'status'; invocation: Invocation; status: InvocationStatus; outputs?: Record<string, unknown>; failure?: NodeFailure }
  | { type: 'abort'; id: string }
  | { type: 'finished'; status: 'completed' | 'failed' | 'cancelled'; outputs: Record<string, unknown>; failure?: NodeFailure };

export interface InvocationState {
  node: string;
  lineage: Lineage;
  /** For an invocation inside an item: the iterate invocation that opened the item. */
  parent?: string;
  status: InvocationStatus;
  inputs: Record<string, unknown>;
  /** Incoming edges whose value has not been settled yet. */
  awaiting: number;
  /** The item (key in `items`) this invocation keeps in flight. */
  item?: string;
}

export interface IterationState {
  /** Every item received so far, by index (null once released: its value then lives in `values`). */
  items: unknown[];
  released: number;
  inFlight: number;
  settled: number;
  /** No more items will arrive. */
  closed: boolean;
  /** Items came as `emit`s: the producer's `done` closes the stream. */
  streamed: boolean;
  /** The producer failed mid-stream: the list is incomplete. */
  broken: boolean;
}

export interface ItemState {
  iteration: string;
  /** Invocations of this item (at its own level) not final yet. */
  open: number;
}

export interface SchedulerState {
  format: 'steward/scheduler/v1';
  graph: WorkflowGraph;
  phase: 'ready' | 'running' | 'finished';
  invocations: Record<string, InvocationState>;
  /**
   * Values sent by a node for one lineage, by `invocationId(node, lineage)` (for an iterate: the
   * item's lineage, outputs `{item}`). null: it will never send (failed, skipped, cancelled).
   */
  values: Record<string, Record<string, unknown> | null>;
  /** Value key → consumers still waiting for it: [invocation id, edge index]. */
  waiters: Record<string, Array<[string, number]>>;
  /** By iterate invocation id. */
  iterations: Record<string, IterationState>;
  /** Items in flight, by item key (`invocationId(iterate, item lineage)`). */
  items: Record<string, ItemState>;
  /** Collect invocation id → item index → value. */
  collected: Record<string, Record<string, unknown>>;
  /** Invocations not final. */
  active: number;
  /** The first failure of the run. */
  failure?: NodeFailure;
}

/** Kinds the scheduler handles itself; every other kind (agent, tool, template, assert, and kinds added later) runs on the host. */
const INTERNAL = new Set<WorkflowNode['kind']>(['input', 'iterate', 'collect', 'output']);
const hostedKind = (kind: WorkflowNode['kind']) => !INTERNAL.has(kind);
const FINAL = new Set<InvocationStatus>(FINAL_INVOCATION_STATUSES);
const DEFAULT_CONCURRENCY = 4;

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A value of `undefined` is no value: dropped, so the state means the same before and after JSON. */
function defined(outputs: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (outputs === null || typeof outputs !== 'object') return out;
  for (const [k, v] of Object.entries(outputs)) if (v !== undefined) setOwn(out, k, v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The plan: what the scheduler derives from the graph once (cached per graph object, never stored).

interface Plan {
  index: GraphIndex;
  /** Length of a node's invocation lineage (a collect runs one level above the items it gathers). */
  runDepth: Map<string, number>;
  /** Length of the lineage of the values a node sends (an iterate's items are one level deeper). */
  sentDepth: Map<string, number>;
  /** Run scope (iterate ids joined by '/') → the nodes invoked once per lineage of that scope. */
  body: Map<string, string[]>;
  edgesIn: Map<string, IndexedEdge[]>;
  edges: IndexedEdge[];
  required: Map<string, Set<string>>;
  /** Required inputs nothing is connected to (a validation problem; the node is skipped). */
  unconnected: Map<string, string[]>;
  collectsOf: Map<string, string[]>;
  /** node → its outgoing edges into collects / into iterates. */
  toCollect: Map<string, IndexedEdge[]>;
  toIterate: Map<string, IndexedEdge[]>;
  outputs: string[];
  /** Why this graph cannot run at all (the validator names these first). */
  invalid?: string;
}

const plans = new WeakMap<WorkflowGraph, Plan>();

function planOf(graph: WorkflowGraph): Plan {
  const cached = plans.get(graph);
  if (cached) return cached;
  const plan = buildPlan(graph);
  plans.set(graph, plan);
  return plan;
}

function buildPlan(graph: WorkflowGraph): Plan {
  const index = indexGraph(graph);
  const runDepth = new Map<string, number>();
  const sentDepth = new Map<string, number>();
  const body = new Map<string, string[]>();
  const edgesIn = new Map<string, IndexedEdge[]>();
  const required = new Map<string, Set<string>>();
  const unconnected = new Map<string, string[]>();
  const collectsOf = new Map<string, string[]>();
  const toCollect = new Map<string, IndexedEdge[]>();
  const toIterate = new Map<string, IndexedEdge[]>();
  const edges: IndexedEdge[] = [];
  const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  const problems: string[] = [];
  if (index.cycle) problems.push(`the nodes ${index.cycle.join(' → ')} form a cycle`);
  for (const c of index.scopeConflicts) problems.push(`node ${c.node} joins values of unrelated iterations (${c.scopes.map((s) => s.join('/') || 'top level').join(', ')})`);

  // collect ids upstream of each node: a node inside an iterate that needs that iterate's own
  // collect would wait for itself (the collect waits for every item), so the run refuses to start.
  const collectsAbove = new Map<string, Set<string>>();
  for (const id of index.order) {
    const node = index.nodes.get(id) as WorkflowNode;
    const scope = index.scope.get(id) ?? [];
    const above = new Set<string>();
    for (const e of [...(index.incoming.get(id)?.values() ?? [])].flat()) {
      for (const c of collectsAbove.get(e.from.node) ?? []) above.add(c);
      if (index.nodes.get(e.from.node)?.kind === 'collect') above.add(e.from.node);
    }
    collectsAbove.set(id, above);
    const ownScope = node.kind === 'collect' ? scope.slice(0, -1) : scope;
    for (const c of above) {
      const closes = index.closes.get(c);
      if (closes !== undefined && ownScope.includes(closes)) problems.push(`${id} runs once per item of ${closes} but needs the collect ${c} of ${closes}, which waits for every item`);
    }
    const runScope = node.kind === 'collect' ? scope.slice(0, -1) : scope;
    runDepth.set(id, runScope.length);
    sentDepth.set(id, node.kind === 'iterate' ? scope.length + 1 : runScope.length);
    push(body, runScope.join('/'), id);
    if (node.kind === 'collect') {
      const closes = index.closes.get(id);
      if (closes === undefined) problems.push(`collect ${id} has no iterate above it`);
      else push(collectsOf, closes, id);
    }
    const ports = index.ports.get(id);
    const req = new Set((ports?.inputs ?? []).filter((p) => p.required !== false).map((p) => p.name));
    required.set(id, req);
    const byPort = index.incoming.get(id);
    const incoming = byPort ? [...byPort.values()].flat() : [];
    edgesIn.set(id, incoming);
    const missing = [...req].filter((p) => !(byPort?.get(p)?.length));
    if (missing.length > 0 && node.kind !== 'input') unconnected.set(id, missing);
  }
  for (const id of index.order) {
    for (const e of edgesIn.get(id) ?? []) {
      edges[e.index] = e;
      const kind = index.nodes.get(e.to.node)?.kind;
      if (kind === 'collect') push(toCollect, e.from.node, e);
      if (kind === 'iterate') push(toIterate, e.from.node, e);
    }
  }
  const outputs = graph.nodes.filter((n) => n.kind === 'output').map((n) => n.id);
  return {
    index, runDepth, sentDepth, body, edgesIn, edges, required, unconnected, collectsOf, toCollect, toIterate, outputs,
    ...(problems.length > 0 ? { invalid: problems.join('; ') } : {}),
  };
}

// ---------------------------------------------------------------------------------------------

export function createScheduler(graph: WorkflowGraph): SchedulerState {
  return {
    format: 'steward/scheduler/v1',
    graph,
    phase: 'ready',
    invocations: {},
    values: {},
    waiters: {},
    iterations: {},
    items: {},
    collected: {},
    active: 0,
  };
}

type Task =
  | { t: 'sent'; node: string; lineage: Lineage }
  | { t: 'connect'; id: string }
  | { t: 'release'; iteration: string }
  | { t: 'close'; iteration: string };

/** One call of `schedule`: the commands it produces and the follow-ups still to do (a queue, so no deep recursion). */
class Step {
  readonly commands: SchedulerCommand[] = [];
  private readonly tasks: Task[] = [];
  private inputs: Record<string, unknown> = {};

  constructor(
    readonly s: SchedulerState,
    readonly plan: Plan,
  ) {}

  node(id: string): WorkflowNode {
    return this.plan.index.nodes.get(id) as WorkflowNode;
  }

  invocation(id: string, inv: InvocationState): Invocation {
    return { id, node: inv.node, lineage: inv.lineage, ...(inv.parent !== undefined ? { parent: inv.parent } : {}), inputs: { ...inv.inputs } };
  }

  status(id: string, inv: InvocationState, extra: { outputs?: Record<string, unknown>; failure?: NodeFailure } = {}): void {
    this.commands.push({ type: 'status', invocation: this.invocation(id, inv), status: inv.status, ...extra });
  }

  drain(): void {
    // A FIFO of follow-ups: a 1,000-item iterate or a long chain never grows the stack.
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) {
      switch (task.t) {
        case 'sent':
          this.deliver(task.node, task.lineage);
          break;
        case 'connect':
          this.connect(task.id);
          break;
        case 'release':
          this.release(task.iteration);
          break;
        case 'close':
          this.closeIfDone(task.iteration);
          break;
      }
    }
  }

  start(inputs: Record<string, unknown>): void {
    this.inputs = inputs;
    this.s.phase = 'running';
    if (this.plan.invalid !== undefined) {
      this.finish('failed', { code: 'invalid_graph', message: `the workflow cannot run: ${this.plan.invalid}` });
      return;
    }
    this.open([], undefined, undefined);
  }

  /** Creates the invocations of one scope instance (the run, or one item), then connects them. */
  private open(lineage: Lineage, parent: string | undefined, item: string | undefined): string[] {
    const scopeKey = lineage.map((l) => l.iterate).join('/');
    const ids: string[] = [];
    for (const node of this.plan.body.get(scopeKey) ?? []) {
      const id = invocationId(node, lineage);
      const inv: InvocationState = { node, lineage, status: 'pending', inputs: {}, awaiting: 0 };
      if (parent !== undefined) inv.parent = parent;
      if (item !== undefined) inv.item = item;
      this.s.invocations[id] = inv;
      this.s.active += 1;
      this.status(id, inv);
      ids.push(id);
    }
    // Connected only once every invocation of the instance exists: one settling at once may reach the others.
    for (const id of ids) this.tasks.push({ t: 'connect', id });
    return ids;
  }

  private connect(id: string): void {
    const inv = own(this.s.invocations, id);
    if (!inv || inv.status !== 'pending') return;
    const node = this.node(inv.node);
    if (node.kind === 'collect') {
      this.s.collected[id] = {};
      return;
    }
    if (node.kind === 'input') {
      this.runInput(id, inv, node);
      return;
    }
    const missing = this.plan.unconnected.get(inv.node);
    if (missing) {
      this.settle(id, 'skipped', { failure: { code: 'input_not_connected', message: `required input ${missing.join(', ')} is not connected` } });
      return;
    }
    const edges = this.plan.edgesIn.get(inv.node) ?? [];
    inv.awaiting = edges.length;
    for (const e of edges) {
      const key = invocationId(e.from.node, inv.lineage.slice(0, this.plan.sentDepth.get(e.from.node) ?? 0));
      if (Object.hasOwn(this.s.values, key)) this.receive(id, e, this.s.values[key] ?? null);
      else (this.s.waiters[key] ??= []).push([id, e.index]);
      if (FINAL.has(inv.status)) return;
    }
    // With edges, the last value to arrive readies it (in `receive`).
    if (edges.length === 0) this.ready(id, inv);
  }

  private runInput(id: string, inv: InvocationState, node: Extract<WorkflowNode, { kind: 'input' }>): void {
    const outputs: Record<string, unknown> = {};
    for (const f of node.fields) {
      const given = Object.hasOwn(this.inputs, f.name) ? this.inputs[f.name] : undefined;
      const value = given !== undefined ? given : f.default;
      if (value !== undefined) setOwn(outputs, f.name, value);
      else if (f.required !== false) {
        inv.status = 'running';
        this.settle(id, 'failed', { failure: { code: 'invalid_input', message: `the run needs a value for input ${f.name}` } });
        return;
      }
    }
    inv.status = 'running';
    this.settle(id, 'done', { outputs });
  }

  /** A value (or its absence) for one incoming edge of a pending invocation. */
  private receive(id: string, edge: IndexedEdge, sent: Record<string, unknown> | null): void {
    const inv = own(this.s.invocations, id);
    if (!inv || FINAL.has(inv.status)) return;
    inv.awaiting -= 1;
    const present = sent !== null && Object.hasOwn(sent, edge.from.port);
    const value = present ? sent[edge.from.port] : undefined;
    if (this.node(inv.node).kind === 'iterate') {
      this.listArrived(id, inv, present, value, sent === null);
      return;
    }
    if (present) setOwn(inv.inputs, edge.to.port, value);
    else if (this.plan.required.get(inv.node)?.has(edge.to.port)) {
      const notTaken = sent === null ? undefined : this.routeNotTaken(edge, sent);
      this.settle(id, 'skipped', {
        failure: notTaken !== undefined ? { code: 'route_not_taken', message: notTaken } : { code: 'input_missing', message: `input ${edge.to.port} never arrived (${edge.from.node} did not produce ${edge.from.port})` },
      });
      return;
    }
    if (inv.awaiting === 0 && inv.status === 'pending') this.ready(id, inv);
  }

  /**
   * An agent with routes sends on one port only (a route, or `output` when it answered): why the
   * port this edge needs stayed silent, in words; undefined when the producer is not such an agent.
   */
  private routeNotTaken(edge: IndexedEdge, sent: Record<string, unknown>): string | undefined {
    const producer = this.node(edge.from.node);
    if (producer.kind !== 'agent' || producer.routes === undefined) return undefined;
    const taken = producer.routes.find((r) => Object.hasOwn(sent, r.name));
    if (taken !== undefined) return edge.from.port === 'output' ? `${edge.from.node} took route ${taken.name} instead of answering` : `${edge.from.node} took route ${taken.name}, not ${edge.from.port}`;
    if (Object.hasOwn(sent, 'output')) return `${edge.from.node} answered and took no route (not ${edge.from.port})`;
    return undefined;
  }

  private ready(id: string, inv: InvocationState): void {
    const node = this.node(inv.node);
    if (hostedKind(node.kind)) {
      inv.status = 'running';
      this.status(id, inv);
      this.commands.push({ type: 'run', invocation: this.invocation(id, inv) });
    } else if (node.kind === 'output') {
      inv.status = 'running';
      this.settle(id, 'done', { outputs: { ...inv.inputs } });
    }
  }

  private iteration(id: string): IterationState {
    return (this.s.iterations[id] ??= { items: [], released: 0, inFlight: 0, settled: 0, closed: false, streamed: false, broken: false });
  }

  private begin(id: string, inv: InvocationState): void {
    if (inv.status !== 'pending') return;
    inv.status = 'running';
    this.status(id, inv);
  }

  /** `producerFailed`: the producer ended failed, skipped or cancelled (not merely without this port). */
  private listArrived(id: string, inv: InvocationState, present: boolean, value: unknown, producerFailed: boolean): void {
    const it = this.iteration(id);
    if (it.streamed) {
      // The stream is what was iterated; the producer's end only closes it (or breaks it when it failed).
      it.closed = true;
      if (producerFailed) {
        it.broken = true;
        it.items.length = it.released;
      }
      this.tasks.push({ t: 'close', iteration: id });
      return;
    }
    if (!present) {
      this.settle(id, 'skipped', { failure: { code: 'input_missing', message: 'its list never arrived' } });
      return;
    }
    if (!Array.isArray(value)) {
      inv.status = 'running';
      this.settle(id, 'failed', { failure: { code: 'invalid_input', message: `${inv.node}: expected a list to iterate over, got ${value === null ? 'null' : typeof value}` } });
      return;
    }
    this.begin(id, inv);
    it.items = value.map((v: unknown) => (v === undefined ? null : v));
    it.closed = true;
    this.tasks.push({ t: 'release', iteration: id }, { t: 'close', iteration: id });
  }

  emit(id: string, port: string, value: unknown): void {
    const inv = own(this.s.invocations, id);
    if (!inv || (inv.status !== 'running' && inv.status !== 'waiting')) return;
    for (const e of this.plan.toIterate.get(inv.node) ?? []) {
      if (e.from.port !== port) continue;
      const target = invocationId(e.to.node, inv.lineage);
      const iterate = own(this.s.invocations, target);
      if (!iterate || FINAL.has(iterate.status)) continue;
      const it = this.iteration(target);
      if (it.closed) continue;
      this.begin(target, iterate);
      it.streamed = true;
      // As in JSON, a list element is never undefined.
      it.items.push(value === undefined ? null : value);
      this.tasks.push({ t: 'release', iteration: target });
    }
  }

  private release(iteration: string): void {
    const inv = own(this.s.invocations, iteration);
    const it = own(this.s.iterations, iteration);
    if (!inv || !it || FINAL.has(inv.status)) return;
    const node = this.node(inv.node);
    const limit = node.kind === 'iterate' ? (node.concurrency ?? DEFAULT_CONCURRENCY) : DEFAULT_CONCURRENCY;
    while (it.inFlight < limit && it.released < it.items.length) {
      const index = it.released;
      it.released += 1;
      it.inFlight += 1;
      const lineage: Lineage = [...inv.lineage, { iterate: inv.node, index }];
      const key = invocationId(inv.node, lineage);
      const sent = defined({ item: it.items[index] });
      this.s.values[key] = sent;
      it.items[index] = null;
      this.gather(inv.node, lineage, sent);
      const ids = this.open(lineage, iteration, key);
      this.s.items[key] = { iteration, open: ids.length };
      if (ids.length === 0) this.itemSettled(key);
    }
  }

  private itemSettled(key: string): void {
    const item = own(this.s.items, key);
    if (!item) return;
    delete this.s.items[key];
    const it = own(this.s.iterations, item.iteration);
    if (!it) return;
    it.inFlight -= 1;
    it.settled += 1;
    this.tasks.push({ t: 'release', iteration: item.iteration }, { t: 'close', iteration: item.iteration });
  }

  private closeIfDone(iteration: string): void {
    const inv = own(this.s.invocations, iteration);
    const it = own(this.s.iterations, iteration);
    if (!inv || !it || FINAL.has(inv.status)) return;
    if (!it.closed || it.inFlight > 0 || it.settled < it.items.length) return;
    if (it.broken) this.settle(iteration, 'skipped', { failure: { code: 'input_missing', message: `its list stream ended with a failure after ${it.items.length} item(s)` } });
    else this.settle(iteration, 'done', { outputs: { count: it.items.length } });
  }

  /** An invocation reaches a final status: report it, pass its value on, free its item slot. */
  settle(id: string, status: InvocationStatus, extra: { outputs?: Record<string, unknown>; failure?: NodeFailure } = {}): void {
    const inv = own(this.s.invocations, id);
    if (!inv || FINAL.has(inv.status)) return;
    inv.status = status;
    this.s.active -= 1;
    this.status(id, inv, extra);
    // The host got the inputs with `run`; a final invocation needs them no more (the state stays small to persist).
    inv.inputs = {};
    if (status === 'failed' && extra.failure && !this.s.failure) this.s.failure = extra.failure;
    const node = this.node(inv.node);
    if (node.kind === 'iterate') {
      delete this.s.iterations[id];
      const total = typeof extra.outputs?.count === 'number' ? extra.outputs.count : 0;
      for (const collect of this.plan.collectsOf.get(inv.node) ?? []) this.closeCollect(invocationId(collect, inv.lineage), status === 'done' ? total : undefined, inv.node);
    } else {
      const sent = status === 'done' ? defined(extra.outputs) : null;
      this.s.values[id] = sent;
      this.gather(inv.node, inv.lineage, sent);
      this.tasks.push({ t: 'sent', node: inv.node, lineage: inv.lineage });
    }
    if (node.kind === 'collect') delete this.s.collected[id];
    if (inv.item !== undefined) {
      const item = own(this.s.items, inv.item);
      if (item) {
        item.open -= 1;
        if (item.open === 0) this.itemSettled(inv.item);
      }
    }
  }

  /** `total`: how many items the iterate had, or undefined when it did not complete its list. */
  private closeCollect(id: string, total: number | undefined, iterate: string): void {
    const inv = own(this.s.invocations, id);
    if (!inv || FINAL.has(inv.status)) return;
    if (total === undefined) {
      this.settle(id, 'skipped', { failure: { code: 'input_missing', message: `${iterate} did not complete its list` } });
      return;
    }
    const gathered = own(this.s.collected, id) ?? {};
    const count = Object.keys(gathered).length;
    const list: unknown[] = [];
    // Item order: indexes ascending; an item that failed or was skipped has no entry.
    const indexes = Object.keys(gathered).map(Number).sort((a, b) => a - b);
    for (const i of indexes) list.push(gathered[String(i)]);
    this.settle(id, 'done', { outputs: { list, left_out: Math.max(0, total - count) } });
  }

  /**
   * An item-level value reaches the collects it feeds at once, before its item can count as
   * settled: a collect never closes with a value still on its way.
   */
  private gather(node: string, lineage: Lineage, sent: Record<string, unknown> | null): void {
    const last = lineage.at(-1);
    if (last === undefined || sent === null) return;
    for (const e of this.plan.toCollect.get(node) ?? []) {
      if ((this.plan.runDepth.get(e.to.node) ?? 0) + 1 !== lineage.length) continue;
      const gathered = own(this.s.collected, invocationId(e.to.node, lineage.slice(0, -1)));
      if (gathered && Object.hasOwn(sent, e.from.port)) gathered[String(last.index)] = sent[e.from.port];
    }
  }

  /** A node sent its value (or its absence) for one lineage: wake the consumers waiting for it. */
  private deliver(node: string, lineage: Lineage): void {
    const key = invocationId(node, lineage);
    const sent = own(this.s.values, key) ?? null;
    const waiting = own(this.s.waiters, key);
    if (waiting) {
      delete this.s.waiters[key];
      for (const [id, edgeIndex] of waiting) {
        const edge = this.plan.edges[edgeIndex];
        if (edge) this.receive(id, edge, sent);
      }
    }
  }

  cancel(): void {
    for (const [id, inv] of Object.entries(this.s.invocations)) {
      if (FINAL.has(inv.status)) continue;
      if ((inv.status === 'running' || inv.status === 'waiting') && hostedKind(this.node(inv.node).kind)) this.commands.push({ type: 'abort', id });
      inv.status = 'cancelled';
      this.status(id, inv);
    }
    this.s.active = 0;
    this.s.waiters = {};
    this.s.iterations = {};
    this.s.items = {};
    this.s.collected = {};
    this.finish('cancelled');
  }

  finishIfIdle(): void {
    if (this.s.phase !== 'running' || this.s.active > 0) return;
    const complete = this.plan.outputs.length > 0 ? this.plan.outputs.every((o) => own(this.s.invocations, o)?.status === 'done') : this.s.failure === undefined;
    if (complete) this.finish('completed');
    else this.finish('failed', this.s.failure ?? { code: 'output_incomplete', message: `the output did not get its inputs (${this.plan.outputs.filter((o) => own(this.s.invocations, o)?.status !== 'done').join(', ')})` });
  }

  private outputs(): Record<string, unknown> {
    const outputs: Record<string, unknown> = {};
    for (const o of this.plan.outputs) {
      const inv = own(this.s.invocations, o);
      const sent = own(this.s.values, o);
      if (inv?.status === 'done' && sent) Object.assign(outputs, sent);
    }
    return outputs;
  }

  private finish(status: 'completed' | 'failed' | 'cancelled', failure?: NodeFailure): void {
    this.s.phase = 'finished';
    this.commands.push({ type: 'finished', status, outputs: this.outputs(), ...(failure ? { failure } : {}) });
  }
}

export function schedule(state: SchedulerState, event: SchedulerEvent): { state: SchedulerState; commands: SchedulerCommand[] } {
  if (state.phase === 'finished') return { state, commands: [] };
  const step = new Step(state, planOf(state.graph));
  if (state.phase === 'ready') {
    if (event.type === 'start') step.start(event.inputs);
    else if (event.type === 'cancel') {
      state.phase = 'running';
      step.cancel();
    }
  } else {
    const inv = 'id' in event ? own(state.invocations, event.id) : undefined;
    const hosted = inv !== undefined && hostedKind(step.node(inv.node).kind);
    switch (event.type) {
      case 'start':
        break;
      case 'cancel':
        step.cancel();
        break;
      case 'waiting':
        if (hosted && inv.status === 'running') {
          inv.status = 'waiting';
          step.status(event.id, inv);
        }
        break;
      case 'resumed':
        if (hosted && inv.status === 'waiting') {
          inv.status = 'running';
          step.status(event.id, inv);
        }
        break;
      case 'emit':
        if (hosted) step.emit(event.id, event.port, event.value);
        break;
      case 'done':
        if (hosted && (inv.status === 'running' || inv.status === 'waiting')) step.settle(event.id, 'done', { outputs: event.outputs });
        break;
      case 'failed':
        if (hosted && (inv.status === 'running' || inv.status === 'waiting')) step.settle(event.id, 'failed', { failure: event.failure });
        break;
      case 'skipped':
        if (hosted && (inv.status === 'running' || inv.status === 'waiting')) step.settle(event.id, 'skipped', { failure: { code: 'supervisor_skipped', message: event.reason.slice(0, 4000) } });
        break;
    }
  }
  step.drain();
  step.finishIfIdle();
  return { state, commands: step.commands };
}
