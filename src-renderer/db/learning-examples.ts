import type { EntityTable, Table } from 'dexie';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { LearningExample } from '@shared/contracts/learning-export';
import type { EncodedPrompt } from '@shared/learning/learning-context';
import type { RunRow } from '@shared/history/run-summary';

/** A learning example as the page stores it (db.ts declares the table; typed here so this module never imports db.ts). */
export type LearningExampleRow = Omit<LearningExample, 'context'> & EncodedPrompt & { seq: number };

function isLearningEvent(e: RunEvent): e is RunEventOf<'learning.example'> {
  return e.type === 'learning.example';
}

/**
 * The learning examples in a batch of events, each keyed by its event id (so storing them again
 * changes nothing). `specIdOf` names the workflow a run came from, when known. The prompt is kept as
 * the event holds it (a reference to an earlier example's and what is new): nothing is rebuilt here,
 * so storing an example costs the same whatever the order its run's examples arrive in.
 */
export function learningRowsFromEvents(events: readonly RunEvent[], specIdOf: (runId: string) => string | undefined): LearningExampleRow[] {
  return events.filter(isLearningEvent).map((e) => learningRow(e, specIdOf(e.run_id)));
}

/** One example as stored: its event's fields as the export's example has them, and its prompt as the event encodes it. */
export function learningRow(e: RunEventOf<'learning.example'>, spec: string | undefined): LearningExampleRow {
  return {
    id: e.id,
    run_id: e.run_id,
    seq: e.seq,
    ...(e.invocation_id !== undefined ? { invocation_id: e.invocation_id } : {}),
    // '' is a run row made before its start arrived: its workflow is not known yet.
    ...(spec !== undefined && spec !== '' ? { spec_id: spec } : {}),
    ts: e.ts,
    round: e.round,
    kind: e.kind,
    context: e.context,
    ...(e.context_ref !== undefined ? { context_ref: e.context_ref } : {}),
    ...(e.context_head !== undefined ? { context_head: e.context_head } : {}),
    ...(e.rule !== undefined ? { rule: e.rule } : {}),
    ...(e.student_candidate !== undefined ? { student_candidate: e.student_candidate } : {}),
    ...(e.verdict !== undefined ? { verdict: e.verdict } : {}),
    ...(e.final_decision !== undefined ? { final_decision: e.final_decision } : {}),
    reason_codes: e.reason_codes,
    agreement: e.agreement,
    models: e.models,
  };
}

/**
 * At ingest: the batch's learning examples, a dry run's never kept. `runOf` gives each run's row as ingest
 * just wrote it (it stores the batch's runs first), so nothing is read back.
 */
export function learningRowsForIngest(events: readonly RunEvent[], runOf: (runId: string) => Pick<RunRow, 'workflow_id' | 'dry_run'> | undefined): LearningExampleRow[] {
  return learningRowsFromEvents(events, (runId) => runOf(runId)?.workflow_id).filter((r) => runOf(r.run_id)?.dry_run !== true);
}

/** Of these examples' runs, the dry runs (as their stored summaries say). */
export async function dryRunIds(db: { runs: EntityTable<RunRow, 'run_id'> }, examples: readonly { run_id: string }[]): Promise<Set<string>> {
  const runIds = [...new Set(examples.map((e) => e.run_id))];
  const runs = await db.runs.bulkGet(runIds);
  return new Set(runs.flatMap((run) => (run?.dry_run === true ? [run.run_id] : [])));
}

/**
 * A dry run's start that arrives after its examples (a replay may reorder) takes them away again:
 * a dry run executed nothing, and journals written before dry runs stopped recording examples hold some.
 */
export async function forgetDryRunExamples(db: { learning_examples: EntityTable<LearningExampleRow, 'id'> }, events: readonly RunEvent[]): Promise<void> {
  const dry = events.flatMap((e) => (e.type === 'run.started' && e.dry_run ? [e.run_id] : []));
  if (dry.length > 0) await db.learning_examples.where('run_id').anyOf(dry).delete();
}

/** The v1 → v2 upgrade: every `learning.example` event already stored becomes a learning example, a dry run's excepted. */
export async function backfillLearningExamples(
  events: Table<RunEvent, string>,
  runs: Table<RunRow, string>,
  examples: Table<LearningExampleRow, string>,
): Promise<void> {
  const stored = await events.where('type').equals('learning.example').toArray();
  if (stored.length === 0) return;
  const runRows = await runs.toArray();
  const specOf = new Map(runRows.map((r) => [r.run_id, r.workflow_id]));
  // Dry runs teach nothing: told by their stored start, which an old summary may not carry.
  const starts = await events.where('type').equals('run.started').toArray();
  const dry = new Set(starts.flatMap((e) => (e.type === 'run.started' && e.dry_run ? [e.run_id] : [])));
  await examples.bulkPut(learningRowsFromEvents(stored, (runId) => specOf.get(runId)).filter((r) => !dry.has(r.run_id)));
}

/**
 * The v5 → v6 upgrade: examples were stored with their whole prompts (each round copying the one before);
 * they are distilled again from their events, which hold the prompts by reference, and keep their workflow.
 */
export async function storeLearningByReference(
  events: Table<RunEvent, string>,
  runs: Table<RunRow, string>,
  examples: Table<LearningExampleRow, string>,
): Promise<void> {
  await examples.clear();
  await backfillLearningExamples(events, runs, examples);
}
