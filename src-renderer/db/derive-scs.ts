import type { RunEvent, RunEventOf, RunEventType } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { ChangedFile, MonitorDecision, MonitorDecisionKind, MonitorTrigger, PhasePlan, ScsMode } from '@shared/scs/contracts';

/** The SCS events that become timeline entries (the transcript is attached to one, not an entry). */
type ScsEntryEvent = Exclude<Extract<RunEventType, `scs.${string}`>, 'scs.transcript'>;

export const SCS_ENTRY_KINDS = {
  'scs.enabled': 'enabled',
  'scs.committee.plan_drafted': 'plan_drafted',
  'scs.student.plan_approved': 'plan_approved',
  'scs.student.plan_vetoed': 'plan_vetoed',
  'scs.student.rethink_requested': 'rethink_requested',
  'scs.student.phase_accepted': 'phase_accepted',
  'scs.student.phase_rejected': 'phase_rejected',
  'scs.student.finish_allowed': 'finish_allowed',
  'scs.student.finish_rejected': 'finish_rejected',
  'scs.budget.extended': 'budget_extended',
  'scs.budget.denied': 'budget_denied',
  'scs.supervisor.phase_started': 'phase_started',
  'scs.supervisor.phase_blocked': 'phase_blocked',
  'scs.supervisor.phase_stopped': 'phase_stopped',
  'scs.warning': 'warning',
} as const satisfies Record<ScsEntryEvent, string>;
export type ScsEntryKind = (typeof SCS_ENTRY_KINDS)[ScsEntryEvent];

/** The monitor's decisions (the seed's student), one event type each. */
export type MonitorEntryKind = Extract<ScsEntryKind, 'plan_approved' | 'plan_vetoed' | 'rethink_requested' | 'phase_accepted' | 'phase_rejected' | 'finish_allowed' | 'finish_rejected' | 'budget_extended' | 'budget_denied'>;

/** Who acted, in SCS's own (reversed) names; `scs` is the controller itself (activation, warnings). */
export type ScsActor = 'committee' | 'monitor' | 'executor' | 'scs';

/**
 * Where an entry sits among the rounds. SCS events carry no round: the place comes from the
 * sequence — before the first round, inside a round (the finish gate runs during authorization),
 * or after a completed round (monitor reviews, replans).
 */
export type ScsPlacement = { at: 'before_rounds' } | { at: 'during' | 'after'; round: number };

/** What the committee or monitor was asked, and what it answered (`scs.transcript`). */
export interface ScsTranscript {
  id: string;
  role: 'committee' | 'monitor';
  trigger?: MonitorTrigger;
  messages: ChatMessage[];
  reply: string;
}

interface EntryBase {
  /** The event's id (evidence cites event ids). */
  id: string;
  seq: number;
  actor: ScsActor;
  placement: ScsPlacement;
  /** The conversation that produced this entry, when the committee or monitor was asked. */
  transcript?: ScsTranscript;
}

export type ScsEntry =
  | (EntryBase & { kind: 'enabled'; mode: ScsMode; active: boolean; reason: string; model: string })
  | (EntryBase & { kind: 'plan_drafted'; phase: number; attempt: number; plan?: PhasePlan; error?: string; alternatives?: PhasePlan[] })
  /** `alternatives`: a plan review over that many alternative plans (the choice and any edit are in `decision`). */
  | (EntryBase & { kind: MonitorEntryKind; phase: number; trigger: MonitorTrigger; decision: MonitorDecision; budget: number; alternatives?: number })
  | (EntryBase & { kind: 'phase_started'; phase: number; plan: PhasePlan })
  | (EntryBase & { kind: 'phase_blocked'; phase: number; reasons: string[] })
  | (EntryBase & { kind: 'phase_stopped'; phase: number; round: number; condition: string; matched: string; evidence: string[]; changed_files: ChangedFile[] })
  | (EntryBase & { kind: 'warning'; message: string });
export type ScsEntryOf<K extends ScsEntryKind> = Extract<ScsEntry, { kind: K }>;
export type FinishGateEntry = ScsEntryOf<MonitorEntryKind> & { kind: 'finish_allowed' | 'finish_rejected' };

export interface ScsTimeline {
  /** The last activation decision (`scs.enabled`); absent when the run did not ask for SCS (mode off). */
  enabled?: { mode: ScsMode; active: boolean; reason: string; model: string };
  /** Every gate in sequence order, each with its place among the rounds. */
  entries: ScsEntry[];
  /** SCS gated (part of) this run: there is something to show beside the rounds. */
  active: boolean;
  /** The latest phase the supervisor started (0: none yet). */
  phase: number;
  /** The monitor's latest decision. */
  decision?: MonitorDecisionKind;
  /** The phase gate ran out of bounds: the run is blocked with these reasons. */
  blocked?: { phase: number; reasons: string[] };
  /** The finish gate's ruling, by the round whose `complete` it ruled on. */
  finishGates: Map<number, FinishGateEntry>;
  /** Who SCS is waiting for at the end of the events (meaningful while the run is running). */
  awaiting?: 'committee' | 'monitor';
}

const MONITOR_KINDS: readonly ScsEntryKind[] = ['plan_approved', 'plan_vetoed', 'rethink_requested', 'phase_accepted', 'phase_rejected', 'finish_allowed', 'finish_rejected', 'budget_extended', 'budget_denied'];

export function isMonitorEntry(entry: ScsEntry): entry is ScsEntryOf<MonitorEntryKind> {
  return MONITOR_KINDS.includes(entry.kind);
}

function isEntryEvent(e: RunEvent): e is RunEventOf<ScsEntryEvent> {
  return e.type in SCS_ENTRY_KINDS;
}

function toEntry(e: RunEventOf<ScsEntryEvent>, placement: ScsPlacement): ScsEntry {
  const base = { id: e.id, seq: e.seq, placement };
  switch (e.type) {
    case 'scs.enabled':
      return { ...base, kind: 'enabled', actor: 'scs', mode: e.mode, active: e.active, reason: e.reason, model: e.model };
    case 'scs.committee.plan_drafted':
      return { ...base, kind: 'plan_drafted', actor: 'committee', phase: e.phase, attempt: e.attempt, plan: e.plan, error: e.error, ...(e.alternatives ? { alternatives: e.alternatives } : {}) };
    case 'scs.supervisor.phase_started':
      return { ...base, kind: 'phase_started', actor: 'executor', phase: e.phase, plan: e.plan };
    case 'scs.supervisor.phase_blocked':
      return { ...base, kind: 'phase_blocked', actor: 'executor', phase: e.phase, reasons: e.reasons };
    case 'scs.supervisor.phase_stopped':
      return { ...base, kind: 'phase_stopped', actor: 'executor', phase: e.phase, round: e.round, condition: e.condition, matched: e.matched, evidence: e.evidence, changed_files: e.changed_files };
    case 'scs.warning':
      return { ...base, kind: 'warning', actor: 'scs', message: e.message };
    default:
      return {
        ...base,
        kind: SCS_ENTRY_KINDS[e.type],
        actor: 'monitor',
        phase: e.phase,
        trigger: e.trigger,
        decision: e.decision,
        budget: e.budget,
        ...(e.alternatives !== undefined ? { alternatives: e.alternatives } : {}),
      };
  }
}

/** Events that say nothing about where SCS stands (they follow a round's end, or are kept aside). */
const QUIET: ReadonlySet<RunEventType> = new Set(['learning.example', 'handover', 'scs.transcript', 'tools.snapshot']);

/**
 * The SCS timeline of a run from its events: the phase gates in order, each placed among the
 * rounds, with the committee's or monitor's transcript attached to the entry it produced. The host
 * emits a transcript right before the event its reply decided (a committee reply → the drafted
 * plan; a monitor reply → its decision, or the warning / blocked state an unusable reply led to).
 */
export function deriveScsTimeline(events: readonly RunEvent[]): ScsTimeline {
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  const entries: ScsEntry[] = [];
  const seen = new Set<string>();
  const pending: { committee?: ScsTranscript; monitor?: ScsTranscript } = {};
  let inRound: number | undefined;
  let lastCompleted: number | undefined;
  let last: RunEvent | undefined;
  let failedLast = false;

  for (const e of ordered) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    if (!QUIET.has(e.type)) last = e;
    switch (e.type) {
      case 'round.started':
        inRound = e.round;
        break;
      case 'round.completed':
        inRound = undefined;
        lastCompleted = e.round;
        failedLast = e.record.outcome === 'failed' || e.record.outcome === 'blocked' || e.record.execution?.is_error === true;
        break;
      case 'scs.transcript':
        pending[e.role] = { id: e.id, role: e.role, trigger: e.trigger, messages: e.messages, reply: e.reply };
        break;
      default:
        if (!isEntryEvent(e)) break;
        {
          const placement: ScsPlacement = inRound !== undefined ? { at: 'during', round: inRound } : lastCompleted !== undefined ? { at: 'after', round: lastCompleted } : { at: 'before_rounds' };
          const entry = toEntry(e, placement);
          const from = entry.kind === 'plan_drafted' ? 'committee' : isMonitorEntry(entry) || entry.kind === 'warning' || entry.kind === 'phase_blocked' ? 'monitor' : undefined;
          const transcript = from ? pending[from] : undefined;
          if (from && transcript) {
            entry.transcript = transcript;
            pending[from] = undefined;
          }
          entries.push(entry);
        }
        break;
    }
  }

  let enabled: ScsTimeline['enabled'];
  let phase = 0;
  let decision: MonitorDecisionKind | undefined;
  let blocked: ScsTimeline['blocked'];
  const finishGates = new Map<number, FinishGateEntry>();
  for (const entry of entries) {
    if (entry.kind === 'enabled') enabled = { mode: entry.mode, active: entry.active, reason: entry.reason, model: entry.model };
    if (entry.kind === 'phase_started') phase = Math.max(phase, entry.phase);
    if (entry.kind === 'phase_blocked') blocked = { phase: entry.phase, reasons: entry.reasons };
    if (!isMonitorEntry(entry)) continue;
    decision = entry.decision.decision;
    if ((entry.kind === 'finish_allowed' || entry.kind === 'finish_rejected') && entry.placement.at === 'during') finishGates.set(entry.placement.round, { ...entry, kind: entry.kind });
  }
  const active = entries.some((e) => e.kind !== 'enabled' || e.active);
  const gating = active && enabled?.active === true && !blocked && decision !== 'finish_allowed';
  return { enabled, entries, active, phase, decision, blocked, finishGates, awaiting: gating ? awaitingAfter(last, failedLast) : undefined };
}

/** Who answers next, from the last event that moved the run (see QUIET). */
function awaitingAfter(last: RunEvent | undefined, failedLast: boolean): ScsTimeline['awaiting'] {
  switch (last?.type) {
    case 'scs.enabled':
    case 'scs.student.plan_vetoed':
    case 'scs.student.rethink_requested':
    case 'scs.student.phase_rejected':
      return 'committee';
    // Rolling phases: an accepted phase that neither goes on nor finishes waits for the next milestone's draft.
    case 'scs.student.phase_accepted':
      return last.decision.next_required_action === 'supervisor_continue' || last.decision.next_required_action === 'finish' ? undefined : 'committee';
    // A stopped phase waits for the monitor's review of its evidence.
    case 'scs.supervisor.phase_stopped':
      return 'monitor';
    case 'scs.committee.plan_drafted':
      return last.plan ? 'monitor' : 'committee';
    // A `complete` was selected: the finish gate asks the monitor before authorizing it.
    case 'decision.selected':
      return last.decision.decision_type === 'complete' ? 'monitor' : undefined;
    // A failed or blocked round always sends the monitor a review.
    case 'round.completed':
      return failedLast ? 'monitor' : undefined;
    default:
      return undefined;
  }
}

/** The seed's compact status line, e.g. `scs=on model=replay phase=1 decision=finish_allowed`. */
export function scsStatusLine(timeline: ScsTimeline): string | undefined {
  const enabled = timeline.enabled;
  if (!enabled) return undefined;
  if (!timeline.active) return `SCS off (${enabled.reason})`;
  // The mode shows in the reason ("SCS is on", "auto: protected tools offered (…)").
  return [`scs=on`, `model=${enabled.model}`, `phase=${timeline.phase}`, `decision=${timeline.decision ?? 'none'}`, timeline.blocked ? 'status=blocked' : ''].filter(Boolean).join(' ');
}

/** An evidence id the monitor cited, resolved against the run's events (ids it made up stay unresolved). */
export interface EvidenceTarget {
  id: string;
  seq: number;
  type: RunEventType;
  round?: number;
}

export function evidenceIndex(events: readonly RunEvent[]): Map<string, EvidenceTarget> {
  const index = new Map<string, EvidenceTarget>();
  for (const e of events) index.set(e.id, { id: e.id, seq: e.seq, type: e.type, round: 'round' in e ? e.round : undefined });
  return index;
}
