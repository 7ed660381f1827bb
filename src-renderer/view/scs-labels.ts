import { SCS_ROLE_LABELS, type MonitorDecisionKind, type MonitorTrigger, type ScsMode } from '@shared/scs/contracts';
import type { ScsActor, ScsEntry, ScsEntryKind } from '../db/derive-scs';

/** The mode selector's choices, each with its one-line explanation. */
export const SCS_MODE_OPTIONS = [
  { value: 'off', label: 'Off', hint: 'No task gates: the decision boundary alone rules each round.' },
  { value: 'on', label: 'On', hint: 'A committee plans each phase, the student monitors it on evidence, the supervisor executes only the approved plan.' },
  { value: 'auto', label: 'Auto', hint: 'On for risky work (protected tools offered, a long step budget, earlier failures); off for short read-only tasks.' },
] as const satisfies readonly { value: ScsMode; label: string; hint: string }[];

/** The compact status on a workflow card. */
export const SCS_MODE_SHORT = {
  off: 'Off',
  on: 'On · committee plans, student monitors',
  auto: 'Auto · on for risky work',
} satisfies Record<ScsMode, string>;

export const SCS_ACTOR_LABELS = { ...SCS_ROLE_LABELS, scs: 'SCS' } satisfies Record<ScsActor, string>;

export const SCS_TRIGGER_LABELS = {
  plan: 'plan review',
  tool_failure: 'after a failed round',
  loop_guard: 'loop guard: the same failure again',
  periodic: 'periodic review',
  finish: 'finish gate',
  budget: 'near the step budget',
  stop_condition: 'a stop condition matched',
  file_batch: 'a batch of file changes',
} satisfies Record<MonitorTrigger, string>;

/** The monitor's last decision, as the status says it. */
export const MONITOR_DECISION_WORDS = {
  approve_plan: 'the plan was approved',
  veto_plan: 'the plan was vetoed',
  rethink_plan: 'the committee was asked to rethink',
  accept_phase: 'the phase was accepted',
  reject_phase: 'the phase was rejected',
  finish_allowed: 'the finish was allowed',
  finish_rejected: 'the finish was refused',
  extend_steps: 'the step budget was extended',
  deny_extension: 'a longer step budget was denied',
} satisfies Record<MonitorDecisionKind, string>;

export type EntryTone = 'good' | 'bad' | 'warn' | 'neutral';

export const SCS_ENTRY_TONES = {
  enabled: 'neutral',
  plan_drafted: 'neutral',
  plan_approved: 'good',
  plan_vetoed: 'bad',
  rethink_requested: 'warn',
  phase_started: 'good',
  phase_blocked: 'bad',
  phase_stopped: 'warn',
  phase_accepted: 'good',
  phase_rejected: 'bad',
  finish_allowed: 'good',
  finish_rejected: 'bad',
  budget_extended: 'good',
  budget_denied: 'bad',
  warning: 'warn',
} satisfies Record<ScsEntryKind, EntryTone>;

/** What happened, in a few words (the role is said beside it). */
export function scsEntryTitle(entry: ScsEntry): string {
  switch (entry.kind) {
    case 'enabled':
      return entry.active ? 'SCS gates this run' : 'SCS stays off';
    case 'plan_drafted':
      if (!entry.plan) return `Draft ${entry.attempt} of the phase ${entry.phase} plan was unusable`;
      if (entry.alternatives && entry.alternatives.length > 1) return `Drafted ${entry.alternatives.length} alternative plans for phase ${entry.phase}${entry.attempt > 1 ? ` (draft ${entry.attempt})` : ''}`;
      return entry.attempt > 1 ? `Redrafted the phase ${entry.phase} plan (draft ${entry.attempt})` : `Drafted the phase ${entry.phase} plan`;
    case 'plan_approved':
      return entry.alternatives ? `Chose plan ${entry.decision.choice ?? 1} of ${entry.alternatives}${entry.decision.edit ? ' and edited it' : ''}` : entry.decision.edit ? 'Approved the plan with edits' : 'Approved the plan';
    case 'plan_vetoed':
      return entry.alternatives ? `Vetoed all ${entry.alternatives} plans` : 'Vetoed the plan';
    case 'rethink_requested':
      return 'Asked the committee to rethink';
    case 'phase_started':
      return `Started phase ${entry.phase}`;
    case 'phase_blocked':
      return `Phase ${entry.phase} blocked`;
    case 'phase_stopped':
      return `Stopped phase ${entry.phase} for review: a stop condition matched`;
    case 'phase_accepted':
      // accept_phase ends the phase (the committee drafts the next) unless it keeps it going or asks for the finish.
      return entry.decision.next_required_action === 'supervisor_continue'
        ? `Accepted phase ${entry.phase} so far`
        : entry.decision.next_required_action === 'finish'
          ? `Accepted phase ${entry.phase}: the task may finish`
          : `Accepted phase ${entry.phase}: on to the next phase`;
    case 'phase_rejected':
      return `Rejected phase ${entry.phase}`;
    case 'finish_allowed':
      return 'Allowed the finish';
    case 'finish_rejected':
      return 'Refused the finish';
    case 'budget_extended':
      return `Extended the step budget to ${entry.budget} rounds`;
    case 'budget_denied':
      return 'Denied a longer step budget';
    case 'warning':
      return 'Warning';
  }
}
