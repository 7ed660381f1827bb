import type { RunEvent } from '@shared/contracts/events';
import type { RunRow, StewardDb, WorkflowRunFacts } from './db';
import { forgetDryRunExamples, learningRowsForIngest } from './learning-examples';
import { runWords, traceWords } from './search-words';
import { keepPromotionCounts, promotionTables } from './promotion-counts';

export interface IngestOptions {
  /**
   * The caller knows none of these events is stored yet (a journal frame past this database's
   * cursor): they are not read back first. Without it every id is checked (a replay stores nothing twice).
   */
  fresh?: boolean;
}

export interface IngestResult {
  /** Every id in the batch: all of them are durably stored once this resolves, so ack them all. */
  ids: string[];
  /** Events not stored before this batch. */
  fresh: number;
}

/**
 * Stores pushed events and updates the run summaries in ONE transaction. Event ids are the key,
 * so a replay (the host re-pushes whatever was not acked) stores nothing twice, and the summary
 * update is idempotent. Learning examples are distilled in the same transaction (keyed by event
 * id, so idempotent too). Resolves after commit; only then may the caller acknowledge the ids.
 */
export async function ingestEvents(db: StewardDb, events: readonly RunEvent[], options: IngestOptions = {}): Promise<IngestResult> {
  const unique = [...new Map(events.map((e) => [e.id, e])).values()];
  if (unique.length === 0) return { ids: [], fresh: 0 };
  const ids = unique.map((e) => e.id);

  return db.transaction('rw', [db.events, db.runs, db.learning_examples, ...promotionTables(db)], async () => {
    const before = options.fresh ? [] : await db.events.bulkGet(ids);
    const isFresh = new Set(options.fresh ? ids : ids.filter((_, i) => before[i] === undefined));
    await db.events.bulkPut(unique);

    const byRun = new Map<string, RunEvent[]>();
    for (const e of unique) {
      const runBatch = byRun.get(e.run_id);
      if (runBatch) runBatch.push(e);
      else byRun.set(e.run_id, [e]);
    }

    const runIds = [...byRun.keys()];
    const rows = await db.runs.bulkGet(runIds);
    const updated: RunRow[] = [];
    runIds.forEach((runId, i) => {
      const runBatch = (byRun.get(runId) ?? []).sort((a, b) => a.seq - b.seq);
      const freshCount = runBatch.filter((e) => isFresh.has(e.id)).length;
      const next = summarize(rows[i], runBatch, freshCount);
      if (next) updated.push(next);
    });
    if (updated.length > 0) await db.runs.bulkPut(updated);

    const runOf = new Map<string, RunRow>();
    for (const row of [...rows, ...updated]) if (row) runOf.set(row.run_id, row);
    const examples = learningRowsForIngest(unique, (runId) => runOf.get(runId));
    if (examples.length > 0) await db.learning_examples.bulkPut(examples);
    await forgetDryRunExamples(db, unique);
    // A run's start arriving after its examples (it should not, but a replay may reorder) fills in their workflow.
    // Only a run stored before this batch can have examples stored before it (every batch writes its runs' rows).
    const storedBefore = new Set(rows.flatMap((row) => (row ? [row.run_id] : [])));
    for (const e of unique) {
      if (e.type === 'run.started' && storedBefore.has(e.run_id)) {
        await db.learning_examples.where('run_id').equals(e.run_id).modify((ex) => {
          if (ex.spec_id === undefined) ex.spec_id = e.spec_id;
        });
      }
    }
    await keepPromotionCounts(db, unique, (runId) => runOf.get(runId)?.workflow_id);
    return { ids, fresh: isFresh.size };
  });
}

/** Folds a run's events into its summary. Pure and idempotent: the same events give the same row. */
export function summarize(row: RunRow | undefined, events: readonly RunEvent[], freshCount: number): RunRow | undefined {
  const first = events[0];
  if (!first) return row;
  let next: RunRow = row
    ? { ...row, stored_events: row.stored_events + freshCount }
    : {
        // Created by whichever event arrives first; run.started fills in the description.
        run_id: first.run_id,
        workflow_id: '',
        spec_name: 'Unknown workflow',
        status: 'running',
        started_at: first.ts,
        rounds: 0,
        models: { student: '?', teacher: '?' },
        supervision_enabled: false,
        stored_events: freshCount,
      };
  for (const e of events) {
    // A workflow's own events and its nodes' (their nested agents count rounds from 0 each).
    if (e.type === 'workflow.started' || e.invocation_id !== undefined) {
      next = foldWorkflowEvent(next, e);
      continue;
    }
    switch (e.type) {
      case 'run.started':
        next = {
          ...next,
          workflow_id: e.spec_id,
          spec_name: e.spec_name,
          task: e.task,
          started_at: e.ts,
          models: e.models,
          supervision_enabled: e.supervision.enabled,
          phase: e.supervision.phase,
          dry_run: e.dry_run,
          profiles: e.profiles,
        };
        break;
      // Status changes apply in sequence order only: a replayed older event never undoes a newer one.
      case 'intervention.requested':
        if (isLater(next, e.seq) && next.status === 'running') next = { ...next, status: 'waiting', status_seq: e.seq };
        break;
      case 'intervention.answered':
        if (isLater(next, e.seq) && next.status === 'waiting') next = { ...next, status: 'running', status_seq: e.seq };
        break;
      case 'round.completed':
        next = { ...next, rounds: Math.max(next.rounds, e.round + 1) };
        break;
      case 'run.finished':
        next = {
          ...next,
          status: e.status,
          status_seq: e.seq,
          output: e.output ?? outputsSummary(e.outputs),
          message: e.message,
          finished_at: e.ts,
          event_count: e.event_count,
          rounds: Math.max(next.rounds, e.rounds),
        };
        break;
      default:
        break;
    }
  }
  const status = next.workflow ? withWorkflowStatus(next) : next;
  const trace_words = traceWords(row?.trace_words, events);
  const done = trace_words ? { ...status, trace_words } : status;
  // Rewritten with every change: text search's index is always the row's own task, output, message, workflow and
  // models, then the words of its trace (explanations, arguments) read so far.
  return { ...done, words: runWords(done) };
}

function isLater(row: RunRow, seq: number): boolean {
  return row.status_seq === undefined || seq > row.status_seq;
}

const NO_MODEL = '—';
/** The models column of a workflow run whose agent nodes use different models. */
export const PER_NODE = 'per node';

/** A workflow run's facts: each update keeps the latest by sequence or a maximum, so any order gives the same row. */
function foldWorkflowEvent(row: RunRow, e: RunEvent): RunRow {
  const wf: WorkflowRunFacts = row.workflow ?? { nodes: 0, invocations: {}, invocation_rounds: {} };
  const id = e.invocation_id;
  switch (e.type) {
    case 'workflow.started': {
      const placeholder = row.models.student === '?' && row.models.teacher === '?';
      return {
        ...row,
        workflow_id: e.workflow_id,
        spec_name: e.workflow_name,
        started_at: e.ts,
        models: placeholder ? { student: NO_MODEL, teacher: NO_MODEL } : row.models,
        workflow: { ...wf, nodes: e.nodes.length },
        // A dry replay of a workflow run is a dry run like an agent's.
        ...(e.dry_run ? { dry_run: true } : {}),
      };
    }
    case 'node.invocation': {
      const seen = id === undefined ? undefined : wf.invocations[id];
      if (id === undefined || (seen && seen[1] >= e.seq)) return { ...row, workflow: wf };
      return { ...row, workflow: { ...wf, invocations: { ...wf.invocations, [id]: [e.status, e.seq] } } };
    }
    case 'supervisor.verdict':
      return { ...row, workflow: { ...wf, supervised: true } };
    case 'agent.started':
      return {
        ...row,
        models: { student: mergeModel(row.models.student, e.models.student), teacher: mergeModel(row.models.teacher, e.models.teacher) },
        supervision_enabled: row.supervision_enabled || e.supervision.enabled,
        workflow: wf,
      };
    case 'round.completed':
    case 'agent.finished': {
      if (id === undefined) return { ...row, workflow: wf };
      const done = e.type === 'round.completed' ? e.round + 1 : e.rounds;
      const perInvocation = { ...wf.invocation_rounds, [id]: Math.max(wf.invocation_rounds[id] ?? 0, done) };
      const total = Object.values(perInvocation).reduce((a, b) => a + b, 0);
      return { ...row, rounds: Math.max(row.rounds, total), workflow: { ...wf, invocation_rounds: perInvocation } };
    }
    default:
      return { ...row, workflow: wf };
  }
}

/** One model for every agent node, or "per node" once two differ (order-independent). */
function mergeModel(current: string, incoming: string): string {
  if (current === '?' || current === NO_MODEL) return incoming;
  return current === incoming ? current : PER_NODE;
}

/** Until run.finished, a workflow run waits while any of its nodes waits for a person (answering one of two keeps it waiting). */
function withWorkflowStatus(row: RunRow): RunRow {
  if (row.status !== 'running' && row.status !== 'waiting') return row;
  const waiting = Object.values(row.workflow?.invocations ?? {}).some(([status]) => status === 'waiting');
  return { ...row, status: waiting ? 'waiting' : 'running' };
}

const OUTPUT_SUMMARY_CHARS = 4000;

/** A workflow's outputs as the row's output: a single text as it is, otherwise JSON; long ones cut (the run view has them whole). */
export function outputsSummary(outputs: Record<string, unknown> | undefined): string | undefined {
  if (!outputs || Object.keys(outputs).length === 0) return undefined;
  const values = Object.values(outputs);
  const text = values.length === 1 && typeof values[0] === 'string' ? values[0] : JSON.stringify(outputs, null, 2);
  return text.length > OUTPUT_SUMMARY_CHARS ? `${text.slice(0, OUTPUT_SUMMARY_CHARS)}…` : text;
}
