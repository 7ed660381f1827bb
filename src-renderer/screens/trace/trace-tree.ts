import type { RunEvent, RunEventType } from '@shared/contracts/events';
import { invocationId, type Lineage } from '@shared/workflow/invocation';
import { roundNumber } from '@shared/contracts/round-number';
import { memberRunPlace } from '../run/pattern-timeline';
import { addModelCall, emptyModelUsage, isModelCall, type ModelUsageTotals } from '../../db/model-usage';

/**
 * A run's events as a tree of spans nested by layer, each span timed from its events: what the Trace tab draws as a
 * collapsible waterfall. Pure (no DOM, no Dexie). Every event appears exactly once, as a leaf; a span is only a
 * grouping, so its time is its events' (it holds all of them by construction).
 */

/**
 * The span layers, outermost first. Each one places an event below the layers before it; a new layer is one more
 * rule in SPAN_RULES and one more label here. `pattern`: a pattern node's iteration, and in it each member's run.
 */
export const SPAN_LAYERS = ['node', 'pattern', 'phase', 'round', 'step'] as const;
export type SpanLayer = (typeof SPAN_LAYERS)[number];

/** What a round does, in boundary order: the step layer's spans. */
export const STEP_KINDS = ['candidate', 'review', 'verdict', 'decision', 'authorization', 'execution'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Where an event sits (the layer filter): its innermost span's layer, a round's step by name, `run` at the top. */
export const EVENT_LAYERS = ['run', 'node', 'pattern', 'phase', 'round', ...STEP_KINDS] as const;
export type EventLayer = (typeof EVENT_LAYERS)[number];

export const EVENT_LAYER_LABELS = {
  run: 'Run',
  node: 'Workflow node',
  pattern: 'Pattern iteration',
  phase: 'SCS phase',
  round: 'Round',
  candidate: 'Candidate',
  review: 'Review',
  verdict: 'Verdict',
  decision: 'Decision',
  authorization: 'Authorization',
  execution: 'Execution',
} satisfies Record<EventLayer, string>;

const STEP_OF: Partial<Record<RunEventType, StepKind>> = {
  'candidate.proposed': 'candidate',
  'candidate.validated': 'candidate',
  'review.decided': 'review',
  'verdict.received': 'verdict',
  'decision.selected': 'decision',
  // Committed to the history once authorized: the boundary crossing, one step.
  'decision.authorized': 'authorization',
  'decision.committed': 'authorization',
  'tool.executed': 'execution',
  // A call's progress sits with the call it reports on.
  'tool.progress': 'execution',
  'response.delivered': 'execution',
};

export interface TraceEventNode {
  kind: 'event';
  /** The event's id. */
  id: string;
  event: RunEvent;
  layer: EventLayer;
  /** Epoch ms: when it began (a model call or tool run started `latency_ms`/`duration_ms` before it was recorded) and ended. */
  start: number;
  end: number;
}

export interface TraceSpan {
  kind: 'span';
  /** The path of segment keys from the top: unique in the tree, stable as events arrive. */
  id: string;
  layer: SpanLayer;
  label: string;
  /** The latest thing the span's own events say about it (a node's status, a round's outcome, a phase's goal). */
  detail?: string;
  children: TraceNode[];
  start: number;
  end: number;
  /** Events below it, at any depth. */
  events: number;
}

export type TraceNode = TraceSpan | TraceEventNode;

export interface TraceTree {
  /** Run-level events and the outermost spans, in order. */
  children: TraceNode[];
  /** The run's time axis (epoch ms); start === end for an empty or instant trace. */
  start: number;
  end: number;
  /** Event types present, in first-seen order (the type filter's choices). */
  types: RunEventType[];
  /** Layers present (the layer filter's choices), in EVENT_LAYERS order. */
  layers: EventLayer[];
  /** Per span id, its model calls summed (spans with none are absent). */
  usage: ReadonlyMap<string, ModelUsageTotals>;
}

interface Segment {
  layer: SpanLayer;
  key: string;
  label: string;
}

/** What the rules need to know beyond the event itself: computed once, in sequence order. */
interface Context {
  /** A node invocation's lineage: the iterates (and items) it runs under. */
  lineage: Map<string, Lineage>;
  /** Per `${scope}#${round}`: the SCS phase under way when the round started. */
  roundPhase: Map<string, number | undefined>;
  /** A model retry (it carries no round) in the round that was open when it happened. */
  retryRound: Map<string, number>;
}

interface SpanRule {
  layer: SpanLayer;
  segments(e: RunEvent, ctx: Context): Segment[];
  /** What one of the span's own events says about it; the latest by sequence wins. */
  detail?(e: RunEvent): string | undefined;
  /** The event that opens the span, when it has one: the span is ordered by it rather than by its first event. */
  opens?(e: RunEvent): boolean;
  /** A span of this layer holding a single event is not drawn: the event's row stands for it. */
  inlineSingle?: boolean;
}

/** Whose rounds an event's are: a node invocation's, or one pattern member's run in it (members count rounds from 0 each). */
const scopeOf = (e: RunEvent) => (e.pattern_member === undefined ? (e.invocation_id ?? '') : `${e.invocation_id ?? ''}|${e.pattern_member}`);

/** A pattern iteration's span segment (step from 0, iteration from 1). */
function iterationSegment(step: number, iteration: number): Segment {
  return { layer: 'pattern', key: `${step}.${iteration}`, label: step > 0 ? `Step ${step + 1} · iteration ${iteration}` : `Iteration ${iteration}` };
}
const roundOf = (e: RunEvent, ctx: Context): number | undefined => ('round' in e ? e.round : ctx.retryRound.get(e.id));

/**
 * An invocation's place: each iterate that fanned it out, and the item within it, outermost first (from its
 * lineage, not its `parent`, which names the upstream invocation whose output started it), then itself.
 */
function invocationPath(id: string, ctx: Context): Segment[] {
  const lineage = ctx.lineage.get(id) ?? [];
  const path = lineage.flatMap((step, i): Segment[] => [
    { layer: 'node', key: invocationId(step.iterate, lineage.slice(0, i)), label: step.iterate },
    { layer: 'node', key: `${step.iterate}=${step.index}`, label: `${step.iterate} item ${step.index + 1}` },
  ]);
  return [...path, { layer: 'node', key: id, label: id }];
}

const SPAN_RULES: readonly SpanRule[] = [
  {
    layer: 'node',
    segments: (e, ctx) => (e.invocation_id === undefined ? [] : invocationPath(e.invocation_id, ctx)),
    detail: (e) => (e.type === 'node.invocation' ? e.status : undefined),
  },
  {
    layer: 'pattern',
    segments: (e) => {
      if (e.type === 'pattern.iteration') return [iterationSegment(e.step, e.iteration)];
      if (e.type === 'pattern.judgment') return [iterationSegment(e.judgment.step, e.judgment.iteration)];
      const place = e.pattern_member === undefined ? undefined : memberRunPlace(e.pattern_member);
      if (!place || e.pattern_member === undefined) return [];
      return [iterationSegment(place.step, place.iteration), { layer: 'pattern', key: e.pattern_member, label: place.member_id }];
    },
    detail: (e) => (e.type === 'agent.finished' ? e.status : e.type === 'pattern.judgment' ? e.judgment.verdict?.verdict : undefined),
  },
  {
    layer: 'phase',
    segments: (e, ctx) => {
      const own = e.type.startsWith('scs.') && 'phase' in e && typeof e.phase === 'number' && e.phase > 0 ? e.phase : undefined;
      const round = roundOf(e, ctx);
      const phase = own ?? (round === undefined ? undefined : ctx.roundPhase.get(`${scopeOf(e)}#${round}`));
      return phase === undefined ? [] : [{ layer: 'phase', key: String(phase), label: `Phase ${phase}` }];
    },
    detail: (e) => (e.type === 'scs.supervisor.phase_started' ? e.plan.phase_goal : undefined),
  },
  {
    layer: 'round',
    segments: (e, ctx) => {
      const round = roundOf(e, ctx);
      return round === undefined ? [] : [{ layer: 'round', key: String(round), label: `Round ${roundNumber(round)}` }];
    },
    detail: (e) => (e.type === 'round.completed' ? e.record.outcome.replace(/_/g, ' ') : e.type === 'round.started' ? `${e.proposer} proposes` : undefined),
    opens: (e) => e.type === 'round.started',
  },
  {
    layer: 'step',
    segments: (e) => {
      const step = STEP_OF[e.type];
      return step === undefined ? [] : [{ layer: 'step', key: step, label: step }];
    },
    inlineSingle: true,
  },
];

const RULE_OF = new Map(SPAN_RULES.map((r) => [r.layer, r]));

/** The time an event was recorded, in epoch ms (NaN for an unreadable timestamp). */
function recordedAt(e: RunEvent): number {
  return Date.parse(e.ts);
}

/** How long the work an event records took, when it says: a model call's latency, a tool run's duration. */
export function eventDuration(e: RunEvent): number {
  const ms = e.type === 'candidate.proposed' ? e.reply.latency_ms : e.type === 'verdict.received' ? e.attempt.reply?.latency_ms : e.type === 'scs.transcript' ? e.latency_ms : e.type === 'tool.executed' ? e.execution.duration_ms : undefined;
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * The context pass, one event at a time in sequence order. `observe` says whether the event changed where an
 * event already placed belongs (an invocation's lineage arriving after its first events, a round's phase settled by
 * its round.started after its tool snapshot went under another): an incremental tree is then built again.
 */
class ContextTracker {
  readonly ctx: Context = { lineage: new Map(), roundPhase: new Map(), retryRound: new Map() };
  private readonly phase = new Map<string, number>();
  private readonly open = new Map<string, number>();
  private readonly fromStart = new Set<string>();
  /** Invocations with an event placed: a lineage set later moves them. */
  readonly placed = new Set<string>();

  observe(e: RunEvent): boolean {
    const { ctx } = this;
    let moved = false;
    const scope = scopeOf(e);
    if (e.type === 'node.invocation' && e.invocation_id !== undefined && !ctx.lineage.has(e.invocation_id)) {
      ctx.lineage.set(e.invocation_id, e.lineage);
      if (e.lineage.length > 0 && this.placed.has(e.invocation_id)) moved = true;
    }
    if (e.type === 'scs.supervisor.phase_started') this.phase.set(scope, e.phase);
    if ('round' in e) {
      const key = `${scope}#${e.round}`;
      // The phase under way when the round started; its tool snapshot may come before the phase did.
      if (e.type === 'round.started') {
        const now = this.phase.get(scope);
        if (ctx.roundPhase.has(key) && !this.fromStart.has(key) && ctx.roundPhase.get(key) !== now) moved = true;
        ctx.roundPhase.set(key, now);
        this.fromStart.add(key);
        this.open.set(scope, e.round);
      } else if (!this.fromStart.has(key) && !ctx.roundPhase.has(key)) ctx.roundPhase.set(key, this.phase.get(scope));
      if (e.type === 'round.completed' && this.open.get(scope) === e.round) this.open.delete(scope);
    }
    const current = this.open.get(scope);
    if (e.type === 'model.retry' && current !== undefined) ctx.retryRound.set(e.id, current);
    return moved;
  }
}

interface SpanState {
  span: TraceSpan;
  parent: SpanState | undefined;
  /** A layer whose single-event spans are not drawn: while it holds one event, its parent's list holds that event. */
  inline: boolean;
  /** Its opening event is in: it sorts at that event's sequence number, else at its first child's. */
  opened: boolean;
  key: number;
}

/**
 * The trace tree kept as events arrive (issue 9: a live run's trace is not rebuilt on every batch). Each event is
 * placed once: its spans' times, counts, details and model usage are updated on the way down, and a list is
 * re-ordered only when a span's opening event arrives after its first one. `work` counts what was done (events
 * placed, list entries passed over to keep order) for the counting test; `tree()` is a new object each time
 * (React's memos), over the same spans.
 */
export class TraceTreeBuilder {
  private readonly tracker = new ContextTracker();
  private readonly root: TraceNode[] = [];
  private readonly spans = new Map<string, SpanState>();
  private readonly usage = new Map<string, ModelUsageTotals>();
  private readonly types: RunEventType[] = [];
  private readonly seenTypes = new Set<RunEventType>();
  private readonly layers = new Set<EventLayer>();
  private start = Infinity;
  private end = -Infinity;
  private lastTime = 0;
  private lastSeq = -Infinity;
  /** Events placed so far. */
  count = 0;
  work = 0;

  /** A tree of these events (sorted by sequence): the context is read from all of them before any is placed. */
  static of(events: readonly RunEvent[]): TraceTreeBuilder {
    const builder = new TraceTreeBuilder();
    for (const e of events) builder.tracker.observe(e);
    for (const e of events) builder.place(e);
    return builder;
  }

  /**
   * Adds events that follow the ones placed (sorted, each after the last). False when they do not follow (nothing
   * added), or when one of them changes where earlier events belong: this builder is then done with, and the tree
   * built again from all the events (TraceTreeBuilder.of).
   */
  append(events: readonly RunEvent[]): boolean {
    let seq = this.lastSeq;
    for (const e of events) {
      if (e.seq <= seq) return false;
      seq = e.seq;
    }
    for (const e of events) {
      if (this.tracker.observe(e)) return false;
      this.place(e);
    }
    return true;
  }

  tree(): TraceTree {
    return {
      children: this.root,
      start: Number.isFinite(this.start) ? this.start : 0,
      end: Number.isFinite(this.end) ? this.end : 0,
      types: [...this.types],
      layers: EVENT_LAYERS.filter((l) => this.layers.has(l)),
      usage: this.usage,
    };
  }

  private place(e: RunEvent): void {
    this.work += 1;
    this.count += 1;
    this.lastSeq = e.seq;
    if (e.invocation_id !== undefined) this.tracker.placed.add(e.invocation_id);
    if (!this.seenTypes.has(e.type)) {
      this.seenTypes.add(e.type);
      this.types.push(e.type);
    }
    const ctx = this.tracker.ctx;
    const path = SPAN_RULES.flatMap((rule) => rule.segments(e, ctx));
    let parent: SpanState | undefined;
    let id = '';
    for (const seg of path) {
      id = `${id}/${seg.layer}:${seg.key}`;
      let state = this.spans.get(id);
      if (!state) {
        const span: TraceSpan = { kind: 'span', id, layer: seg.layer, label: seg.label, children: [], start: Infinity, end: -Infinity, events: 0 };
        state = { span, parent, inline: RULE_OF.get(seg.layer)?.inlineSingle === true, opened: false, key: e.seq };
        this.spans.set(id, state);
        // Its key is the newest in its list, so it goes last; an inline span shows up with its first event (below).
        if (!state.inline) this.listOf(parent).push(span);
      }
      parent = state;
    }
    const innermost = parent;
    if (innermost) {
      const rule = RULE_OF.get(innermost.span.layer);
      const detail = rule?.detail?.(e);
      if (detail !== undefined) innermost.span.detail = detail;
      if (!innermost.opened && rule?.opens?.(e)) {
        innermost.opened = true;
        this.rekey(innermost, e.seq);
      }
    }
    // An unreadable timestamp takes the one before it: the event still shows, at a plausible place.
    const at = recordedAt(e);
    const end = Number.isFinite(at) ? at : this.lastTime;
    this.lastTime = end;
    const last = path.at(-1);
    const layer: EventLayer = last === undefined ? 'run' : last.layer === 'step' ? (last.key as StepKind) : last.layer;
    this.layers.add(layer);
    const node: TraceEventNode = { kind: 'event', id: e.id, event: e, layer, start: end - eventDuration(e), end };
    if (!innermost) this.root.push(node);
    else {
      const children = innermost.span.children;
      children.push(node);
      if (innermost.inline && children.length === 1) this.listOf(innermost.parent).push(node);
      else if (innermost.inline && children.length === 2) this.replace(this.listOf(innermost.parent), children[0]!, innermost.span);
    }
    for (let s = innermost; s; s = s.parent) {
      s.span.start = Math.min(s.span.start, node.start);
      s.span.end = Math.max(s.span.end, node.end);
      s.span.events += 1;
      if (isModelCall(e)) {
        const totals = this.usage.get(s.span.id) ?? emptyModelUsage();
        addModelCall(totals, e);
        this.usage.set(s.span.id, totals);
      }
    }
    this.start = Math.min(this.start, node.start);
    this.end = Math.max(this.end, node.end);
  }

  private listOf(state: SpanState | undefined): TraceNode[] {
    return state ? state.span.children : this.root;
  }

  private keyOf(node: TraceNode): number {
    return node.kind === 'event' ? node.event.seq : (this.spans.get(node.id)?.key ?? 0);
  }

  /** A span's key changed: it moves to its place in its list, and a parent ordered by its first child follows. */
  private rekey(state: SpanState, key: number): void {
    for (let s: SpanState | undefined = state, k = key; s; ) {
      if (s.key === k) return;
      s.key = k;
      const list = this.listOf(s.parent);
      this.move(list, s.span, k);
      const parent: SpanState | undefined = s.parent;
      if (!parent || parent.opened) return;
      const first = parent.span.children[0];
      s = parent;
      k = first ? this.keyOf(first) : parent.key;
    }
  }

  /** Moves `node` to where `key` sorts in `list`; both searches start from the end, where a newly keyed node is. */
  private move(list: TraceNode[], node: TraceNode, key: number): void {
    let from = list.length - 1;
    while (from >= 0 && list[from] !== node) from -= 1;
    this.work += list.length - from;
    if (from < 0) return;
    list.splice(from, 1);
    let to = list.length;
    while (to > 0 && this.keyOf(list[to - 1]!) > key) to -= 1;
    this.work += list.length - to;
    list.splice(to, 0, node);
  }

  private replace(list: TraceNode[], old: TraceNode, next: TraceNode): void {
    let at = list.length - 1;
    while (at >= 0 && list[at] !== old) at -= 1;
    this.work += list.length - at;
    if (at >= 0) list[at] = next;
  }
}

/** Builds the tree of a run's events (any order in; sequence order out). */
export function buildTraceTree(input: readonly RunEvent[]): TraceTree {
  return TraceTreeBuilder.of([...input].sort((a, b) => a.seq - b.seq)).tree();
}
