import type { RunEvent } from '@shared/contracts/events';
import { roundNumber } from '@shared/contracts/round-number';
import { EvidencePack, type ChangedFile, type MonitorTrigger, type PhasePlan, type RoundFact } from '@shared/scs/contracts';

export type RecentEvent = EvidencePack['recent'][number];

/** One line per event, enough for the monitor to cite it by id. */
export function summarizeEvent(e: RunEvent): RecentEvent {
  const summary = ((): string => {
    switch (e.type) {
      case 'decision.selected':
        return `${e.source} decision: ${e.decision.decision_type === 'tool_call' ? `${e.decision.tool_name} ${JSON.stringify(e.decision.arguments).slice(0, 120)}` : e.decision.decision_type}`;
      case 'tool.executed':
        return `${e.execution.tool}: ${e.execution.is_error ? `error: ${e.execution.content.slice(0, 120)}` : `ok (${e.execution.content.length} chars)`}`;
      case 'verdict.received':
        return e.attempt.verdict ? `teacher ${e.attempt.verdict.verdict} [${e.attempt.verdict.reason_codes.join(', ')}]: ${e.attempt.verdict.explanation}` : `unusable verdict: ${e.attempt.problem ?? ''}`;
      case 'decision.authorized':
        return e.authorization.ok ? 'authorized' : `not authorized: ${e.authorization.reason}`;
      case 'round.completed':
        return `round ${roundNumber(e.record.round)} ${e.record.outcome}${e.record.reason ? ` (${e.record.reason})` : ''}`;
      case 'candidate.validated':
        return e.validation.ok ? 'candidate valid' : `candidate invalid: ${e.validation.issues.map((i) => i.code).join(', ')}`;
      default:
        return 'round' in e && e.round !== undefined ? `round ${roundNumber(e.round)}` : '';
    }
  })();
  return { id: e.id, type: e.type, summary: summary.slice(0, 240) };
}

/** Keeps the last 20 events of the run (the seed's evidence bound), transcripts and the privacy log left out. */
export class RecentEvents {
  private readonly items: RecentEvent[] = [];

  add(event: RunEvent): void {
    if (event.type === 'scs.transcript' || event.type === 'model.called' || event.type === 'model.answered') return;
    this.items.push(summarizeEvent(event));
    if (this.items.length > 20) this.items.shift();
  }

  list(): RecentEvent[] {
    return [...this.items];
  }
}

/**
 * The evidence pack (seed 001): the last 20 events, the plan, the failures, the criteria, the
 * phase's changed files, and the decisions so far within the transcript budget.
 */
export function evidencePack(input: {
  trigger: MonitorTrigger;
  task: string;
  plan?: PhasePlan;
  recent: RecentEvent[];
  facts: RoundFact[];
  changed?: ChangedFile[];
  transcript?: string;
  note?: string;
  rounds_used: number;
  budget: number;
}): EvidencePack {
  return EvidencePack.parse({
    trigger: input.trigger,
    task: input.task,
    plan: input.plan,
    recent: input.recent.slice(-20),
    failures: input.facts.filter((f) => f.failed).slice(-20),
    acceptance_criteria: input.plan?.acceptance_criteria ?? [],
    changed_files: (input.changed ?? []).slice(-20),
    transcript: input.transcript ?? '',
    note: input.note,
    rounds_used: input.rounds_used,
    budget: input.budget,
  });
}
