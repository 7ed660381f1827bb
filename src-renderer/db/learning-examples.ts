import type { Table } from 'dexie';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { learningExampleFromEvent } from '@shared/learning/export-formats';
import { PromptBook, promptKey, referencedKey } from '@shared/learning/learning-context';
import type { LearningExampleRow, RunRow, StewardDb } from './db';

function isLearningEvent(e: RunEvent): e is RunEventOf<'learning.example'> {
  return e.type === 'learning.example';
}

/**
 * The learning examples in a batch of events, each keyed by its event id (so storing them again
 * changes nothing). `specIdOf` names the workflow a run came from, when known. A prompt stored as
 * a reference to an earlier example's is rebuilt whole from `prompts` (what earlier batches
 * rebuilt) or from this batch; one that cannot be is stored with none, so it is never exported.
 */
export function learningRowsFromEvents(
  events: readonly RunEvent[],
  specIdOf: (runId: string) => string | undefined,
  prompts: PromptBook = new PromptBook(),
): LearningExampleRow[] {
  const inOrder = events.filter(isLearningEvent).sort((a, b) => (a.run_id === b.run_id ? a.seq - b.seq : a.run_id < b.run_id ? -1 : 1));
  return inOrder.map((e) => {
    const spec = specIdOf(e.run_id);
    const prompt = prompts.resolve(e);
    return learningExampleFromEvent(e, spec === '' ? undefined : spec, prompt.ok ? prompt.context : []);
  });
}

// The prompts rebuilt so far, per database (tests open several): the next example refers to the last one of its agent run.
const PROMPTS_KEPT = 512;
const booksByDb = new WeakMap<object, PromptBook>();

/**
 * At ingest: the batch's learning examples, their prompts rebuilt. A referenced example that
 * neither this page session nor the batch has seen (a reload mid-run) is read back from the
 * examples already stored; two agents of a workflow run share rounds, so its event says whose it is.
 */
export async function learningRowsForIngest(
  db: Pick<StewardDb, 'events' | 'learning_examples' | 'runs'>,
  events: readonly RunEvent[],
  specIdOf: (runId: string) => string | undefined,
): Promise<LearningExampleRow[]> {
  const prompts = booksByDb.get(db.learning_examples) ?? new PromptBook(PROMPTS_KEPT);
  booksByDb.set(db.learning_examples, prompts);
  const inBatch = new Set(events.filter(isLearningEvent).map(promptKey));
  for (const e of events.filter(isLearningEvent)) {
    const key = referencedKey(e);
    if (key === undefined || !e.context_ref || inBatch.has(key) || prompts.has(key)) continue;
    const { round, kind } = e.context_ref;
    const candidates = await db.learning_examples.where('run_id').equals(e.run_id).filter((x) => x.round === round && x.kind === kind).toArray();
    const owners = await db.events.bulkGet(candidates.map((c) => c.id));
    const base = candidates.find((_, i) => owners[i]?.invocation_id === e.invocation_id);
    if (base && base.context.length > 0) prompts.add(key, base.context);
  }
  const rows = learningRowsFromEvents(events, specIdOf, prompts);
  // The batch's runs are already summarised (ingest stores them first): a dry run's examples are never kept.
  const dry = await dryRunIds(db, rows);
  return dry.size === 0 ? rows : rows.filter((r) => !dry.has(r.run_id));
}

/** Of these examples' runs, the dry runs (as their stored summaries say). */
export async function dryRunIds(db: Pick<StewardDb, 'runs'>, examples: readonly { run_id: string }[]): Promise<Set<string>> {
  const runIds = [...new Set(examples.map((e) => e.run_id))];
  const runs = await db.runs.bulkGet(runIds);
  return new Set(runs.flatMap((run) => (run?.dry_run === true ? [run.run_id] : [])));
}

/**
 * A dry run's start that arrives after its examples (a replay may reorder) takes them away again:
 * a dry run executed nothing, and journals written before dry runs stopped recording examples hold some.
 */
export async function forgetDryRunExamples(db: Pick<StewardDb, 'learning_examples'>, events: readonly RunEvent[]): Promise<void> {
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
