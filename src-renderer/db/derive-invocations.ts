import type { FinalRunStatus, RunEvent, RunEventOf } from '@shared/contracts/events';
import type { TrimmedText } from '@shared/util/trim-text';
import type { Intervention } from '@shared/contracts/intervention';
import type { TakenRoute } from '@shared/contracts/routes';
import { invocationId, type InvocationStatus, type Lineage, type NodeFailure } from '@shared/workflow/invocation';
import { invocationText } from '@shared/workflow/invocation-text';

/** One node invocation of a workflow run, as the run view and the editor show it. */
export interface InvocationView {
  id: string;
  node: string;
  /** The node's kind and label from workflow.started (absent until that event is in). */
  kind?: string;
  /** The node's label, or its id when it has none. */
  label: string;
  lineage: Lineage;
  parent?: string;
  /** Nesting in the list: an item sits one level under the invocation of its iterate. */
  depth: number;
  status: InvocationStatus;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  failure?: NodeFailure;
  /** Texts of its inputs/outputs the host stored trimmed (`outputs.text`…), with their full sizes. */
  trimmed?: TrimmedText[];
  started_at?: string;
  finished_at?: string;
  /** Completed rounds: an agent node's nested agent's, a tool node's one call through the boundary; 0 for other kinds. */
  rounds: number;
  /** How an agent node's nested agent ended. */
  agent?: { status: FinalRunStatus; message?: string; /** The declared route its reroute took, and who chose it. */ route?: TakenRoute };
  /** The run ended (a host stop, a crash) while this invocation had not: it will not go on. */
  cut_off?: true;
  /** A question to a person this invocation waits on (answered through the workflow's run). */
  intervention?: Intervention;
  /** Sequence numbers of the invocation's first event and of the event that set `status`. */
  first_seq: number;
  status_seq: number;
}

/** A node's invocations taken together: the editor colours the node by `status`. */
export interface NodeStateView {
  status: InvocationStatus;
  counts: Partial<Record<InvocationStatus, number>>;
  total: number;
}

/**
 * How a node with several invocations (an iterate's items) is summed up: what needs a person
 * first (waiting), then what is under way (running), then what went wrong (failed: it should not
 * hide behind items still to come), then what is still to come (pending), and only then the quiet
 * ends: cancelled, skipped, and done last, so a node shows done only when every invocation is.
 */
export const NODE_STATUS_PRECEDENCE = ['waiting', 'running', 'failed', 'pending', 'cancelled', 'skipped', 'done'] as const satisfies readonly InvocationStatus[];

const FINAL = new Set<InvocationStatus>(['done', 'failed', 'skipped', 'cancelled']);

/** The run's workflow.started event, or undefined for an agent run (or before it arrived). */
export function workflowStartOf(events: readonly RunEvent[]): RunEventOf<'workflow.started'> | undefined {
  for (const e of events) if (e.type === 'workflow.started') return e;
  return undefined;
}

/**
 * Node invocations from a run's events, in any order and with duplicates (a replay): events are
 * folded in sequence order, so the latest status wins and the result is the same for the same set.
 * Listed as a tree: top-level invocations in the order they began, each iterate followed by its
 * items (by item index), each item's invocations in the order they began.
 */
export function deriveInvocations(events: readonly RunEvent[]): InvocationView[] {
  const ordered = [...new Map(events.map((e) => [e.id, e])).values()].sort((a, b) => a.seq - b.seq);
  const nodes = new Map((workflowStartOf(ordered)?.nodes ?? []).map((n) => [n.id, n]));
  const views = new Map<string, InvocationView>();
  // The last round per invocation and, in a pattern node, per member run (each counts its own rounds).
  const rounds = new Map<string, Map<string, number>>();
  const addRound = (id: string, member: string | undefined, round: number) => {
    const runs = rounds.get(id) ?? new Map<string, number>();
    runs.set(member ?? '', Math.max(runs.get(member ?? '') ?? -1, round));
    rounds.set(id, runs);
  };
  const asked = new Map<string, Intervention>();
  const answered = new Set<string>();
  let finished = false;

  for (const e of ordered) {
    if (e.type === 'run.finished') finished = true;
    const id = e.invocation_id;
    if (id === undefined) continue;
    switch (e.type) {
      case 'node.invocation': {
        const node = nodes.get(e.node);
        const view: InvocationView = views.get(id) ?? {
          id,
          node: e.node,
          kind: node?.kind,
          label: node?.label ?? e.node,
          lineage: e.lineage,
          depth: 0,
          status: e.status,
          rounds: 0,
          first_seq: e.seq,
          status_seq: e.seq,
        };
        view.status = e.status;
        view.status_seq = e.seq;
        if (e.parent !== undefined) view.parent = e.parent;
        if (e.inputs) view.inputs = e.inputs;
        if (e.outputs) view.outputs = e.outputs;
        if (e.failure) view.failure = e.failure;
        if (e.trimmed?.length) view.trimmed = [...new Map([...(view.trimmed ?? []), ...e.trimmed].map((t) => [t.path, t])).values()];
        if (e.status === 'running' && view.started_at === undefined) view.started_at = e.ts;
        view.finished_at = FINAL.has(e.status) ? e.ts : undefined;
        views.set(id, view);
        break;
      }
      case 'round.completed':
        addRound(id, e.pattern_member, e.round);
        break;
      case 'agent.finished': {
        const view = views.get(id);
        if (view) view.agent = { status: e.status, ...(e.message !== undefined ? { message: e.message } : {}), ...(e.route !== undefined ? { route: e.route } : {}) };
        addRound(id, e.pattern_member, e.rounds - 1);
        break;
      }
      case 'intervention.requested':
        // The nested agent names its own run; the host answers it through the workflow's run.
        asked.set(id, { ...e.intervention, run_id: e.run_id });
        break;
      case 'intervention.answered':
        answered.add(e.intervention_id);
        break;
      default:
        break;
    }
  }

  for (const view of views.values()) {
    view.rounds = [...(rounds.get(view.id)?.values() ?? [])].reduce((n, last) => n + Math.max(last + 1, 0), 0);
    if (finished && !FINAL.has(view.status)) view.cut_off = true;
    const question = asked.get(view.id);
    if (question && !answered.has(question.id) && !finished && !FINAL.has(view.status)) view.intervention = question;
  }
  return asTree(views);
}

/** Each item under the invocation of the iterate that opened it (an item whose iterate is not in yet stays at the top). */
function asTree(views: Map<string, InvocationView>): InvocationView[] {
  const children = new Map<string | undefined, InvocationView[]>();
  for (const view of views.values()) {
    const last = view.lineage.at(-1);
    const owner = last ? invocationId(last.iterate, view.lineage.slice(0, -1)) : undefined;
    const key = owner !== undefined && owner !== view.id && views.has(owner) ? owner : undefined;
    children.set(key, [...(children.get(key) ?? []), view]);
  }
  const itemIndex = (v: InvocationView) => v.lineage.at(-1)?.index ?? 0;
  const out: InvocationView[] = [];
  const seen = new Set<string>();
  const walk = (key: string | undefined, depth: number) => {
    const list = [...(children.get(key) ?? [])].sort((a, b) => (key === undefined ? 0 : itemIndex(a) - itemIndex(b)) || a.first_seq - b.first_seq);
    for (const view of list) {
      if (seen.has(view.id)) continue;
      seen.add(view.id);
      out.push({ ...view, depth });
      walk(view.id, depth + 1);
    }
  };
  walk(undefined, 0);
  return out;
}

/** "Classify · item 3" (items counted from 1; nested items "item 2.3"), as the CLI prints it too. */
export function invocationLabel(view: Pick<InvocationView, 'label' | 'lineage'>): string {
  return invocationText(view.label, view.lineage);
}

/**
 * Per node id: its invocations counted by status, and the status the node shows (see
 * NODE_STATUS_PRECEDENCE). A cut-off invocation counts as cancelled: the run ended around it, and
 * a node must not show running (or waiting) forever.
 */
export function nodeStates(invocations: readonly Pick<InvocationView, 'node' | 'status' | 'cut_off'>[]): Record<string, NodeStateView> {
  const states: Record<string, NodeStateView> = {};
  for (const inv of invocations) {
    const status = inv.cut_off ? 'cancelled' : inv.status;
    const state = (states[inv.node] ??= { status, counts: {}, total: 0 });
    state.counts[status] = (state.counts[status] ?? 0) + 1;
    state.total += 1;
  }
  for (const state of Object.values(states)) state.status = NODE_STATUS_PRECEDENCE.find((s) => (state.counts[s] ?? 0) > 0) ?? state.status;
  return states;
}
