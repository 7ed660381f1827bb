import type { RunEvent, RunEventType } from '@shared/contracts/events';
import { invocationId, type Lineage } from '@shared/workflow/invocation';
import { roundNumber } from '@shared/contracts/round-number';

/**
 * A run's events as a tree of spans nested by layer, each span timed from its events: what the Trace tab draws as a
 * collapsible waterfall. Pure (no DOM, no Dexie). Every event appears exactly once, as a leaf; a span is only a
 * grouping, so its time is its events' (it holds all of them by construction).
 */

/**
 * The span layers, outermost first. Each one places an event below the layers before it; a new layer (issue 12's
 * pattern iterations go between `node` and `phase`) is one more rule in SPAN_RULES and one more label here.
 */
export const SPAN_LAYERS = ['node', 'phase', 'round', 'step'] as const;
export type SpanLayer = (typeof SPAN_LAYERS)[number];

/** What a round does, in boundary order: the step layer's spans. */
export const STEP_KINDS = ['candidate', 'review', 'verdict', 'decision', 'authorization', 'execution'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Where an event sits (the layer filter): its innermost span's layer, a round's step by name, `run` at the top. */
export const EVENT_LAYERS = ['run', 'node', 'phase', 'round', ...STEP_KINDS] as const;
export type EventLayer = (typeof EVENT_LAYERS)[number];

export const EVENT_LAYER_LABELS = {
  run: 'Run',
  node: 'Workflow node',
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

const scopeOf = (e: RunEvent) => e.invocation_id ?? '';
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

function context(events: readonly RunEvent[]): Context {
  const ctx: Context = { lineage: new Map(), roundPhase: new Map(), retryRound: new Map() };
  const phase = new Map<string, number>();
  const open = new Map<string, number>();
  const fromStart = new Set<string>();
  for (const e of events) {
    const scope = scopeOf(e);
    if (e.type === 'node.invocation' && e.invocation_id !== undefined && !ctx.lineage.has(e.invocation_id)) ctx.lineage.set(e.invocation_id, e.lineage);
    if (e.type === 'scs.supervisor.phase_started') phase.set(scope, e.phase);
    if ('round' in e) {
      const key = `${scope}#${e.round}`;
      // The phase under way when the round started; its tool snapshot may come before the phase did.
      if (e.type === 'round.started') {
        ctx.roundPhase.set(key, phase.get(scope));
        fromStart.add(key);
        open.set(scope, e.round);
      } else if (!fromStart.has(key) && !ctx.roundPhase.has(key)) ctx.roundPhase.set(key, phase.get(scope));
      if (e.type === 'round.completed' && open.get(scope) === e.round) open.delete(scope);
    }
    const current = open.get(scope);
    if (e.type === 'model.retry' && current !== undefined) ctx.retryRound.set(e.id, current);
  }
  return ctx;
}


/** Builds the tree of a run's events (any order in; sequence order out). */
export function buildTraceTree(input: readonly RunEvent[]): TraceTree {
  const events = [...input].sort((a, b) => a.seq - b.seq);
  const ctx = context(events);
  const root: TraceNode[] = [];
  const spans = new Map<string, TraceSpan>();
  const orderOf = new Map<TraceNode, number>();
  // Spans whose opening event is in: they sort at its sequence number.
  const opened = new Set<TraceSpan>();
  const types: RunEventType[] = [];
  const seenTypes = new Set<RunEventType>();
  const layers = new Set<EventLayer>();
  let lastTime = 0;

  for (const e of events) {
    if (!seenTypes.has(e.type)) {
      seenTypes.add(e.type);
      types.push(e.type);
    }
    const path = SPAN_RULES.flatMap((rule) => rule.segments(e, ctx));
    let siblings = root;
    let id = '';
    for (const seg of path) {
      id = `${id}/${seg.layer}:${seg.key}`;
      let span = spans.get(id);
      if (!span) {
        span = { kind: 'span', id, layer: seg.layer, label: seg.label, children: [], start: Infinity, end: -Infinity, events: 0 };
        spans.set(id, span);
        siblings.push(span);
        orderOf.set(span, e.seq);
      }
      siblings = span.children;
    }
    const innermost = spans.get(id);
    if (innermost) {
      const rule = RULE_OF.get(innermost.layer);
      const detail = rule?.detail?.(e);
      if (detail !== undefined) innermost.detail = detail;
      if (!opened.has(innermost) && rule?.opens?.(e)) {
        opened.add(innermost);
        orderOf.set(innermost, e.seq);
      }
    }
    // An unreadable timestamp takes the one before it: the event still shows, at a plausible place.
    const at = recordedAt(e);
    const end = Number.isFinite(at) ? at : lastTime;
    lastTime = end;
    const last = path.at(-1);
    const layer: EventLayer = last === undefined ? 'run' : last.layer === 'step' ? (last.key as StepKind) : last.layer;
    layers.add(layer);
    const node: TraceEventNode = { kind: 'event', id: e.id, event: e, layer, start: end - eventDuration(e), end };
    siblings.push(node);
    orderOf.set(node, e.seq);
  }

  const children = finish(root, orderOf, opened);
  const start = Math.min(...children.map((c) => c.start));
  const end = Math.max(...children.map((c) => c.end));
  return {
    children,
    start: Number.isFinite(start) ? start : 0,
    end: Number.isFinite(end) ? end : 0,
    types,
    layers: EVENT_LAYERS.filter((l) => layers.has(l)),
  };
}

/** Orders, times and counts each span from its children (post-order); unwraps single-event spans of an inline layer. */
function finish(nodes: TraceNode[], orderOf: Map<TraceNode, number>, opened: ReadonlySet<TraceSpan>): TraceNode[] {
  const key = (n: TraceNode): number => orderOf.get(n) ?? 0;
  const out = nodes.map((n): TraceNode => {
    if (n.kind === 'event') return n;
    n.children = finish(n.children, orderOf, opened);
    const only = n.children[0];
    if (n.children.length === 1 && only?.kind === 'event' && RULE_OF.get(n.layer)?.inlineSingle) {
      orderOf.set(only, key(n));
      return only;
    }
    // A span sorts by its opening event (a round by round.started, not by the tool snapshot before it), else by its first child.
    if (!opened.has(n)) orderOf.set(n, Math.min(...n.children.map(key)));
    n.start = Math.min(...n.children.map((c) => c.start));
    n.end = Math.max(...n.children.map((c) => c.end));
    n.events = n.children.reduce((sum, c) => sum + (c.kind === 'event' ? 1 : c.events), 0);
    return n;
  });
  return out.sort((a, b) => key(a) - key(b));
}
