import { z } from 'zod';
import { RunStatus, SubworkflowParent, type RunEvent } from '../contracts/events';
import { LifecyclePhase } from '../contracts/spec';
import { ProfileVersionRef } from '../contracts/profiles';
import { INVOCATION_STATUSES } from '../workflow/invocation';
import { PartialCounts } from '../workflow/partial-failure';
import { runWords, traceWords, type TraceWord } from './search-words';
import { foldUsage, UsageFacts } from '../accounting/run-cost';

/**
 * A run's summary row, folded from its events: the same function gives the host's history database
 * its runs rows and the page's IndexedDB its index, so both always describe a run alike. The
 * schema checks a row the host sends a page (runs.list) on arrival.
 */

const TraceWordSchema: z.ZodType<TraceWord> = z.tuple([z.string().max(64), z.number().int()]);

/**
 * An invocation's status as the runs list counts it: the node's own, but a call a person declined
 * ("Don't run it": a failure with the code `declined_by_person`, node-outcome.ts) is `declined`,
 * what they decided, not a failure (issue 28). Rows folded before it existed say `failed`.
 */
export const RowInvocationStatus = z.enum([...INVOCATION_STATUSES, 'declined']);
export type RowInvocationStatus = z.infer<typeof RowInvocationStatus>;

/** The failure code of a call a person declined (src-main/workflow/node-outcome.ts: DECLINED). */
const DECLINED_BY_PERSON = 'declined_by_person';

/** What the runs list shows of a workflow run, kept idempotent: each value is the latest by sequence. */
export const WorkflowRunFacts = z
  .object({
    /** Nodes in the graph (workflow.started); 0 until it arrived. */
    nodes: z.number().int().nonnegative(),
    /** Per invocation id: its latest status and the sequence number that set it. */
    invocations: z.record(z.string(), z.tuple([RowInvocationStatus, z.number().int()])),
    /** Per invocation id: its completed rounds (an agent node's, a tool node's one call), each counting from 0. */
    invocation_rounds: z.record(z.string(), z.number().int().nonnegative()),
    /** A workflow supervisor's verdict was applied in this run (its status reads "Completed — supervised"). */
    supervised: z.literal(true).optional(),
  })
  .strict();
export type WorkflowRunFacts = z.infer<typeof WorkflowRunFacts>;

/** A run's summary, derived from its events (idempotently, see summarize). */
export const RunRow = z
  .object({
    run_id: z.string().min(1),
    workflow_id: z.string(),
    spec_name: z.string(),
    task: z.string().optional(),
    status: RunStatus,
    started_at: z.string(),
    finished_at: z.string().optional(),
    /** Completed rounds. */
    rounds: z.number().int().nonnegative(),
    /**
     * An agent run's rounds its events name, a round begun and never completed included (the run
     * view's Rounds tab counts these): with `rounds`, what Runs and the run header say alike ("3 · the
     * 3rd was interrupted", rounds-words.ts). Absent on rows folded before it existed.
     */
    rounds_seen: z.number().int().nonnegative().optional(),
    output: z.string().optional(),
    message: z.string().optional(),
    /** A run that ended `completed_with_failures`: how many items (and nodes) failed, of how many (its run.finished has where and why). */
    partial: PartialCounts.optional(),
    models: z.object({ student: z.string(), teacher: z.string() }).strict(),
    supervision_enabled: z.boolean(),
    /** Lifecycle phase the run used (v2). */
    phase: LifecyclePhase.optional(),
    /** Models were called, no tool executed (v2). */
    dry_run: z.boolean().optional(),
    /** The profile versions the run recorded (v2). */
    profiles: z.record(z.string(), ProfileVersionRef).optional(),
    /** Sequence number of the event that set `status` (waiting ↔ running, final). */
    status_seq: z.number().int().optional(),
    /** Total events of the run, as announced by run.finished. */
    event_count: z.number().int().nonnegative().optional(),
    /** Distinct events of the run stored here (in this page's index, or the host's history); equals event_count once the trace is complete. */
    stored_events: z.number().int().nonnegative(),
    /** A workflow run's nodes: present once any of its workflow events is in. */
    workflow: WorkflowRunFacts.optional(),
    /** Text search's words (search-words.ts: runWords), rewritten with the row; a multi-entry index since v4. */
    words: z.array(z.string()).optional(),
    /** The words of the run's trace read so far, each with where it was first said (search-words.ts: traceWords, capped); part of `words`, not indexed itself. */
    trace_words: z.array(TraceWordSchema).optional(),
    /** What supervision cost (issue 31): the facts of its supervision calls, waits and interventions (accounting/run-cost.ts); absent while there are none. */
    usage: UsageFacts.optional(),
    /** A child run (issue 29: a workflow node's, or an agent's workflow tool call's): the run and invocation that ran it. */
    parent: SubworkflowParent.optional(),
    /** The child runs this run started, by id, in the order they started (at most MAX_ROW_CHILDREN kept; `children_more` when there were more). */
    children: z.array(z.string().max(1000)).max(200).optional(),
    children_more: z.literal(true).optional(),
    /**
     * The run came from an imported trace (a file): it never ran on this host. Not in its events: the host's
     * history knows it (runs.list rows say it), and a page marks its row when an events frame names the run.
     */
    imported: z.literal(true).optional(),
  })
  .strict();
export type RunRow = z.infer<typeof RunRow>;

/** The child run ids a row keeps (a parent that ran more says so: `children_more`). */
export const MAX_ROW_CHILDREN = 200;

/** How many child runs a row says its run has: `200+` when it keeps only the first. */
export function childRunsCount(row: Pick<RunRow, 'children' | 'children_more'>): { count: number; more: boolean } {
  return { count: row.children?.length ?? 0, more: row.children_more === true };
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
    // A round begun counts as seen (the one a host stop cut off included); only a higher one rewrites the row.
    if ('round' in e && typeof e.round === 'number' && e.round + 1 > (next.rounds_seen ?? 0)) next = { ...next, rounds_seen: e.round + 1 };
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
          ...(e.partial ? { partial: { items_failed: e.partial.items_failed, items: e.partial.items, nodes_failed: e.partial.nodes_failed } } : {}),
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
  const traced = trace_words ? { ...status, trace_words } : status;
  const usage = rowUsage(row?.usage, events);
  const done = usage ? { ...traced, usage } : traced;
  // Rewritten with every change: text search's index is always the row's own task, output, message, workflow and
  // models, then the words of its trace (explanations, arguments) read so far.
  return { ...done, words: runWords(done) };
}

/** The row's supervision facts with `events` folded in (the student's calls left out: the report reads them from the events); none while empty. */
function rowUsage(before: UsageFacts | undefined, events: readonly RunEvent[]): UsageFacts | undefined {
  const usage = foldUsage(before, events, { student: false });
  const any = [usage.called, usage.answered, usage.asks, usage.interventions].some((facts) => Object.keys(facts).length > 0);
  return any ? usage : undefined;
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
        ...(e.parent ? { parent: e.parent } : {}),
      };
    }
    case 'node.invocation': {
      const seen = id === undefined ? undefined : wf.invocations[id];
      if (id === undefined || (seen && seen[1] >= e.seq)) return { ...row, workflow: wf };
      const status: RowInvocationStatus = e.status === 'failed' && e.failure?.code === DECLINED_BY_PERSON ? 'declined' : e.status;
      return { ...row, workflow: { ...wf, invocations: { ...wf.invocations, [id]: [status, e.seq] } } };
    }
    case 'supervisor.verdict':
      return { ...row, workflow: { ...wf, supervised: true } };
    case 'subworkflow.started': {
      // A child run (a resumed one starts again: listed once).
      const known = row.children ?? [];
      if (known.includes(e.child_run_id)) return { ...row, workflow: wf };
      if (known.length >= MAX_ROW_CHILDREN) return { ...row, workflow: wf, children_more: true };
      return { ...row, workflow: wf, children: [...known, e.child_run_id] };
    }
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
