import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { RunRow } from '../../db/db';
import { routeHref } from '../../app/routing';
import { memberOfOutputId } from '@shared/pattern/member-label';

/** `question`: the run waits, but its question is not stored in this page and the host is not reachable. */
export type WaitingKind = Intervention['kind'] | 'question';

/** A question a run asked in its events: the node that asked it, for a workflow run, and the pattern member, when a member agent asked. */
export interface AskedQuestion {
  intervention: Intervention;
  node: string | undefined;
  member?: string;
}

/** One question waiting for a person, wherever it is. */
export interface WaitingItem {
  key: string;
  run_id: string;
  workflow_id: string | undefined;
  workflow_name: string;
  node: string | undefined;
  /** A pattern node's member agent that asks (its member id). */
  member?: string;
  kind: WaitingKind;
  asks: string;
  /** When the question was asked (for a question not stored here: when its run started). */
  since: string;
  /** Present when the question itself is known: it can be answered in place. */
  intervention: Intervention | undefined;
}

/**
 * A run's questions its events leave open, each named by the node whose invocation asked it. An agent
 * node's question names the agent's own run; it is answered through the workflow's run, as the host lists it.
 */
export function askedIn(events: readonly RunEvent[]): AskedQuestion[] {
  const nodeOf = new Map<string, string>();
  const answered = new Set<string>();
  const asked: Array<{ intervention: Intervention; invocation: string | undefined; member: string | undefined }> = [];
  for (const e of events) {
    if (e.type === 'node.invocation' && e.invocation_id) nodeOf.set(e.invocation_id, e.node);
    else if (e.type === 'intervention.requested') asked.push({ intervention: { ...e.intervention, run_id: e.run_id }, invocation: e.invocation_id, member: e.pattern_member });
    else if (e.type === 'intervention.answered') answered.add(e.intervention_id);
  }
  return asked
    .filter((a) => !answered.has(a.intervention.id))
    .map((a) => ({ intervention: a.intervention, node: a.invocation ? nodeOf.get(a.invocation) : undefined, ...(a.member !== undefined ? { member: memberOfOutputId(a.member) } : {}) }));
}

export interface WaitingSources {
  /** What the host holds (the authority, also after a restart); undefined when it has not said. */
  pending: readonly Intervention[] | undefined;
  /** The runs this page stored as waiting. */
  runs: readonly RunRow[];
  /** Per run id: its open questions as its stored events show them. */
  asked: ReadonlyMap<string, readonly AskedQuestion[]>;
  /** Questions whose answer this page stored: answered, though the host's list may not have caught up yet. */
  answered?: ReadonlySet<string>;
  workflowNames: ReadonlyMap<string, string>;
}

/**
 * Every question waiting for a person, oldest first. When the host answered, its list is what waits
 * (a run stored as waiting that it does not list was answered elsewhere); the page adds what it knows
 * (workflow, node). Without the host, the page's waiting runs are what it has.
 */
export function mergeWaiting({ pending, runs, asked, answered = new Set(), workflowNames }: WaitingSources): WaitingItem[] {
  const runOf = new Map(runs.map((r) => [r.run_id, r]));
  const nameOf = (run: RunRow | undefined) => (run ? (workflowNames.get(run.workflow_id) ?? run.spec_name) : 'Unknown workflow');
  const item = (intervention: Intervention, node: string | undefined, member?: string): WaitingItem => {
    const run = runOf.get(intervention.run_id);
    return {
      key: intervention.id,
      run_id: intervention.run_id,
      workflow_id: run?.workflow_id,
      workflow_name: nameOf(run),
      node,
      ...(member !== undefined ? { member } : {}),
      kind: intervention.kind,
      asks: whatItAsks(intervention),
      since: intervention.requested_at,
      intervention,
    };
  };
  const questions = new Map([...asked.values()].flat().map((q) => [q.intervention.id, q]));
  const items: WaitingItem[] =
    pending !== undefined
      ? pending.filter((i) => !answered.has(i.id)).map((i) => item(i, questions.get(i.id)?.node, questions.get(i.id)?.member))
      : runs.flatMap((run): WaitingItem[] => {
          const open = asked.get(run.run_id) ?? [];
          if (open.length > 0) return open.map((q) => item(q.intervention, q.node, q.member));
          return [{ key: `run:${run.run_id}`, run_id: run.run_id, workflow_id: run.workflow_id, workflow_name: nameOf(run), node: undefined, kind: 'question', asks: run.task ?? 'The run waits for your answer.', since: run.started_at, intervention: undefined }];
        });
  return items.sort((a, b) => a.since.localeCompare(b.since) || a.key.localeCompare(b.key));
}

/** How many questions wait per workflow (for the workflow cards). */
export function waitingByWorkflow(items: readonly WaitingItem[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const i of items) if (i.workflow_id !== undefined) counts.set(i.workflow_id, (counts.get(i.workflow_id) ?? 0) + 1);
  return counts;
}

/** Where to answer it: the node in a workflow run, or the run. */
export function waitingHref(item: WaitingItem): string {
  return routeHref(item.node !== undefined ? { name: 'run', runId: item.run_id, tab: 'nodes', node: item.node } : { name: 'run', runId: item.run_id, tab: 'rounds' });
}

/** What the question asks, in a line. */
export function whatItAsks(intervention: Intervention): string {
  const d = intervention.decision;
  if (intervention.kind === 'confirmation' && d?.decision_type === 'tool_call') return `Run ${d.tool_name}?`;
  if (d?.decision_type === 'ask_user') return d.question;
  if (d?.decision_type === 'request_confirmation') return d.message;
  return intervention.reason || (d?.decision_type === 'tool_call' ? `Run ${d.tool_name}?` : 'The teacher did not want to decide this alone.');
}

export function waitingLabel(count: number): string {
  return count === 0 ? 'Nothing waits for you' : `${count} waiting for you`;
}

/** The page title with the count in front ("(3) Steward"); without it at 0. */
export function titleWithCount(title: string, count: number): string {
  const base = title.replace(/^\(\d+\) /, '');
  return count > 0 ? `(${count}) ${base}` : base;
}
