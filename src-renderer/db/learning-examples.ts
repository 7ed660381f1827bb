import type { Table } from 'dexie';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { learningExampleFromEvent } from '@shared/learning/export-formats';
import type { LearningExampleRow, RunRow } from './db';

function isLearningEvent(e: RunEvent): e is RunEventOf<'learning.example'> {
  return e.type === 'learning.example';
}

/**
 * The learning examples in a batch of events, each keyed by its event id (so storing them again
 * changes nothing). `specIdOf` names the workflow a run came from, when known.
 */
export function learningRowsFromEvents(events: readonly RunEvent[], specIdOf: (runId: string) => string | undefined): LearningExampleRow[] {
  return events.filter(isLearningEvent).map((e) => {
    const spec = specIdOf(e.run_id);
    return learningExampleFromEvent(e, spec === '' ? undefined : spec);
  });
}

/** The v1 → v2 upgrade: every `learning.example` event already stored becomes a learning example. */
export async function backfillLearningExamples(
  events: Table<RunEvent, string>,
  runs: Table<RunRow, string>,
  examples: Table<LearningExampleRow, string>,
): Promise<void> {
  const stored = await events.where('type').equals('learning.example').toArray();
  if (stored.length === 0) return;
  const runRows = await runs.toArray();
  const specOf = new Map(runRows.map((r) => [r.run_id, r.workflow_id]));
  await examples.bulkPut(learningRowsFromEvents(stored, (runId) => specOf.get(runId)));
}
