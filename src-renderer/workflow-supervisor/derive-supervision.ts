import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { DecidedBy, Escalation, SupervisorAction, SupervisorVerdict } from '@shared/supervisor/contracts';
import type { Lineage } from '@shared/workflow/invocation';

/**
 * What a workflow run's supervisor did, built from the run's events only (`supervisor.escalated`,
 * `supervisor.verdict`), in any order and with duplicates: events are folded by sequence number,
 * so the same set of events always gives the same view. The graph, the intervention feed and the
 * run report all read this one fold.
 */

export type VerdictNext = RunEventOf<'supervisor.verdict'>['next'];

/** One escalation and, once it is in, its verdict. */
export interface InterventionEntry {
  escalation_id: string;
  node: string;
  invocation_id?: string;
  lineage: Lineage;
  /** Absent when the verdict arrived without its escalation (a cut trace). */
  escalation?: Escalation;
  escalated_seq?: number;
  verdict?: SupervisorVerdict;
  next?: VerdictNext;
  verdict_seq?: number;
  /** A person is asked (a `supervisor_escalation` intervention): the verdict waits for them. */
  asks_person?: true;
}

/** A node's badges: per action, how many verdicts and who decided them; `deciding`: escalations still open. */
export interface NodeSupervision {
  deciding: number;
  /** Of those, escalations waiting for a person's verdict. */
  waiting_for_person: number;
  verdicts: Partial<Record<SupervisorAction, { count: number; decided_by: DecidedBy[] }>>;
}

export interface SkipItem {
  node: string;
  lineage: Lineage;
  reason: string;
  decided_by: DecidedBy;
}

export interface SupervisionView {
  /** Every escalation in the order it was raised (a verdict without one: at the verdict's place). */
  entries: InterventionEntry[];
  byNode: Record<string, NodeSupervision>;
  skips: SkipItem[];
  /** Escalations the supervisor was asked about (turns > 0): what `max_decisions` counts. */
  decisions: number;
  cost_usd: number;
  /** At least one verdict was applied: the run was carried by its supervisor. */
  supervised: boolean;
}

type SupervisorEvent = RunEventOf<'supervisor.escalated'> | RunEventOf<'supervisor.verdict'> | RunEventOf<'intervention.requested'>;
const isSupervisorEvent = (e: RunEvent): e is SupervisorEvent =>
  e.type === 'supervisor.escalated' || e.type === 'supervisor.verdict' || (e.type === 'intervention.requested' && e.intervention.supervision !== undefined);

export function deriveSupervision(events: readonly RunEvent[]): SupervisionView {
  const ordered = [...new Map(events.filter(isSupervisorEvent).map((e) => [e.id, e])).values()].sort((a, b) => a.seq - b.seq);
  const byId = new Map<string, InterventionEntry>();
  for (const e of ordered) {
    if (e.type === 'supervisor.escalated') {
      const x = e.escalation;
      const entry = byId.get(x.id) ?? { escalation_id: x.id, node: x.node, lineage: x.correlation_lineage };
      byId.set(x.id, { ...entry, node: x.node, lineage: x.correlation_lineage, escalation: x, escalated_seq: e.seq, ...(e.invocation_id !== undefined ? { invocation_id: e.invocation_id } : {}) });
    } else if (e.type === 'intervention.requested') {
      const x = e.intervention.supervision?.escalation;
      if (!x) continue;
      const entry = byId.get(x.id) ?? { escalation_id: x.id, node: x.node, lineage: x.correlation_lineage };
      byId.set(x.id, { ...entry, asks_person: true });
    } else {
      const id = e.verdict.escalation_id;
      const entry = byId.get(id) ?? { escalation_id: id, node: e.node, lineage: [] };
      byId.set(id, { ...entry, verdict: e.verdict, next: e.next, verdict_seq: e.seq, ...(entry.invocation_id === undefined && e.invocation_id !== undefined ? { invocation_id: e.invocation_id } : {}) });
    }
  }
  // An intervention alone (its escalation event not in yet) is no entry: the escalation is what the feed lists.
  const entries = [...byId.values()].filter((e) => e.escalated_seq !== undefined || e.verdict_seq !== undefined).sort((a, b) => firstSeq(a) - firstSeq(b));

  const byNode: Record<string, NodeSupervision> = {};
  const skips: SkipItem[] = [];
  let decisions = 0;
  let cost = 0;
  for (const entry of entries) {
    const node = (byNode[entry.node] ??= { deciding: 0, waiting_for_person: 0, verdicts: {} });
    const v = entry.verdict;
    if (!v) {
      node.deciding += 1;
      if (entry.asks_person) node.waiting_for_person += 1;
      continue;
    }
    const badge = (node.verdicts[v.verdict.action] ??= { count: 0, decided_by: [] });
    badge.count += 1;
    if (!badge.decided_by.includes(v.decided_by)) badge.decided_by.push(v.decided_by);
    if (v.turns > 0) decisions += 1;
    cost += v.cost_usd;
    if (v.verdict.action === 'skip') skips.push({ node: entry.node, lineage: entry.lineage, reason: v.verdict.reason, decided_by: v.decided_by });
  }
  return { entries, byNode, skips, decisions, cost_usd: cost, supervised: entries.some((e) => e.verdict !== undefined) };
}

const firstSeq = (e: InterventionEntry): number => Math.min(e.escalated_seq ?? Infinity, e.verdict_seq ?? Infinity);
