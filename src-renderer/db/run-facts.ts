import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';

export interface RunFacts {
  started?: RunEventOf<'run.started'>;
  handovers: RunEventOf<'handover'>[];
  /** Requests no answer has been recorded for (empty once the run finished). */
  pending: Intervention[];
  answeredIds: Set<string>;
  finished: boolean;
}

/** What the run view shows beside the rounds: how the run was set up, handovers, open questions. */
export function deriveRunFacts(events: readonly RunEvent[]): RunFacts {
  let started: RunEventOf<'run.started'> | undefined;
  const handovers: RunEventOf<'handover'>[] = [];
  const requested = new Map<string, Intervention>();
  const answeredIds = new Set<string>();
  let finished = false;
  for (const e of events) {
    switch (e.type) {
      case 'run.started':
        started = e;
        break;
      case 'handover':
        if (!handovers.some((h) => h.id === e.id)) handovers.push(e);
        break;
      case 'intervention.requested':
        requested.set(e.intervention.id, e.intervention);
        break;
      case 'intervention.answered':
        answeredIds.add(e.intervention_id);
        break;
      case 'run.finished':
        finished = true;
        break;
      default:
        break;
    }
  }
  const pending = finished ? [] : [...requested.values()].filter((i) => !answeredIds.has(i.id));
  handovers.sort((a, b) => a.seq - b.seq);
  return { started, handovers, pending, answeredIds, finished };
}

/**
 * Open requests for a run: those its events show, plus what the host reports waiting (after a
 * restart the host is the authority), minus any the events show answered.
 */
export function pendingInterventions(facts: RunFacts, fromHost: readonly Intervention[] | undefined, runId: string): Intervention[] {
  if (facts.finished) return [];
  const byId = new Map(facts.pending.map((i) => [i.id, i]));
  for (const i of fromHost ?? []) if (i.run_id === runId && !facts.answeredIds.has(i.id)) byId.set(i.id, i);
  return [...byId.values()].sort((a, b) => a.round - b.round);
}
