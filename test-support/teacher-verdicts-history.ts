import { eventId, RunEvent } from '../src-shared/contracts/events';
import { twoAgentHistory } from './two-agent-workflow';

/**
 * The two-agent workflow's recorded history (two-agent-workflow.ts) with each reviewed round's
 * review context as a supervised run records it — the student's reply and its validation beside the
 * parsed candidate — so every teacher verdict in it is a case `steward eval verdicts --teacher` (and
 * "Replay past verdicts" on a teacher profile) can put to a candidate teacher. The reader's reads
 * were accepted; one writer round in `writerBlockEvery` was a protected write the teacher blocked.
 * `runPrefix` renames its runs, so it can be imported beside `twoAgentHistory`'s own.
 */
export function teacherVerdictsHistory(workflowId: string, options: Parameters<typeof twoAgentHistory>[1] & { runPrefix?: string }): RunEvent[] {
  const prefix = options.runPrefix ?? '';
  return twoAgentHistory(workflowId, options).map((recorded) => {
    const runId = `${prefix}${recorded.run_id}`;
    const event = prefix === '' ? recorded : RunEvent.parse({ ...recorded, run_id: runId, id: eventId(runId, recorded.seq) });
    if (event.type !== 'round.completed' || event.record.candidate.reply !== undefined || event.record.candidate.parsed === undefined) return event;
    const { record } = event;
    const reply = { text: JSON.stringify(record.candidate.parsed?.raw), tool_calls: [], model: 'replay' };
    return RunEvent.parse({ ...event, record: { ...record, candidate: { ...record.candidate, reply }, validation: { ok: true, issues: [] } } });
  });
}
