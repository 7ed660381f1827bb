import type { RunEvent } from '@shared/contracts/events';
import type { MonitorDecision, ScsRecord } from '@shared/scs/contracts';

/** What an accepted phase leads to (rolling phases: by default, the next milestone). */
const ACCEPT_NEXT = {
  supervisor_continue: ' (phase continues)',
  finish: ' → finish',
  supervisor_execute: ' → next phase',
  committee_rethink: ' → next phase',
} as const satisfies Record<NonNullable<MonitorDecision['next_required_action']>, string>;

/** Compact SCS lines for the terminal (seed 001: state, not the internal debate). */
export function formatScsEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'scs.enabled':
      return event.active ? `scs=on (${event.reason})` : `scs off (${event.reason})`;
    case 'scs.committee.plan_drafted': {
      const draft = event.attempt > 1 ? ` (draft ${event.attempt})` : '';
      if (event.alternatives && event.alternatives.length > 1) {
        return [`scs committee drafted ${event.alternatives.length} alternative phase plans${draft}`, ...event.alternatives.map((p, i) => `  ${i + 1}. ${p.phase_goal}`)].join('\n');
      }
      return event.plan ? `scs committee drafted phase plan${draft}` : `scs committee draft unusable: ${event.error ?? 'malformed'}`;
    }
    case 'scs.student.plan_approved': {
      const { choice, edit } = event.decision;
      const chose = event.alternatives ? ` ${choice ?? 1} of ${event.alternatives}` : '';
      const edited = edit ? ` with edits (${Object.keys(edit).join(', ')})` : '';
      return `scs student approved plan${chose}${edited} confidence=${event.decision.confidence.toFixed(2)}`;
    }
    case 'scs.student.plan_vetoed':
      return event.alternatives ? `scs student vetoed all ${event.alternatives} alternative plans: ${event.decision.reason}` : `scs student vetoed plan: ${event.decision.reason}`;
    case 'scs.student.rethink_requested':
      return `scs student requested rethink: ${event.decision.reason}`;
    case 'scs.student.phase_accepted':
      return `scs student accepted phase ${event.phase} confidence=${event.decision.confidence.toFixed(2)}${ACCEPT_NEXT[event.decision.next_required_action ?? 'supervisor_execute']}`;
    case 'scs.student.phase_rejected':
      return `scs student rejected phase ${event.phase}: ${event.decision.reason}`;
    case 'scs.student.finish_allowed':
      return `scs student allowed finish confidence=${event.decision.confidence.toFixed(2)}`;
    case 'scs.student.finish_rejected':
      return `scs student rejected finish: ${event.decision.reason}`;
    case 'scs.budget.extended':
      return `scs student extended the step budget to ${event.budget} rounds`;
    case 'scs.budget.denied':
      return `scs student denied a budget extension: ${event.decision.reason}`;
    case 'scs.supervisor.phase_started':
      return `scs supervisor started phase ${event.phase}: ${event.plan.phase_goal}`;
    case 'scs.supervisor.phase_blocked':
      return `scs supervisor blocked: ${event.reasons.join('; ')}`;
    case 'scs.supervisor.phase_stopped':
      return `scs supervisor stopped phase ${event.phase}: stop condition "${event.condition}" (${event.matched})${event.changed_files.length ? `, ${event.changed_files.length} changed file(s)` : ''}`;
    case 'scs.warning':
      return `scs warning: ${event.message}`;
    default:
      return undefined;
  }
}

/** The status line: `scs=on model=… phase=2 decision=phase_accepted`. */
export function formatScsStatus(record: ScsRecord): string {
  const state = record.active ? 'on' : 'off';
  return `scs=${state} mode=${record.mode} model=${record.model || '-'} phase=${record.phase} decision=${record.decision ?? 'none'} status=${record.status}`;
}
