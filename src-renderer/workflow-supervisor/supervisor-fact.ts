import type { RunEvent } from '@shared/contracts/events';
import type { RunRow } from '../db/db';
import { workflowStartOf } from '../db/derive-invocations';

/**
 * The run header's supervision fact. An agent run's "Supervision" is the teacher's review (on/off);
 * a workflow run's is its workflow supervisor (issue 11), named by `workflow.started`, so a run a
 * supervisor carried never reads "Supervision: Off".
 */
export function supervisionFact(run: Pick<RunRow, 'supervision_enabled' | 'workflow'>, events: readonly RunEvent[]): { term: string; value: string } {
  const started = workflowStartOf(events);
  if (run.workflow === undefined && started === undefined) return { term: 'Supervision', value: run.supervision_enabled ? 'On' : 'Off' };
  const who = started?.supervisor;
  if (who) return { term: 'Supervisor', value: who.kind === 'person' ? 'you' : `model (${who.label})` };
  // A trace from before workflow.started named its supervisor: only its escalations say it was supervised.
  const supervised = run.workflow?.supervised === true || events.some((e) => e.type === 'supervisor.escalated');
  return { term: 'Supervisor', value: supervised ? 'on' : 'off' };
}
