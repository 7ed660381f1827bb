import { ServerInputWait } from '@shared/contracts/server-input';
import { z } from 'zod';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { SupervisorLedger } from '@shared/supervisor/ledger';
import { Intervention } from '@shared/contracts/intervention';
import { TraceSettings } from '@shared/contracts/profiles';
import { PrivacyPolicy } from '@shared/policy/privacy';
import { WorkflowReplayPlan } from '@shared/replay/workflow-replay';
import { WorkflowGraph } from '@shared/workflow/document';
import { Invocation, InvocationStatus, Lineage, NodeFailure } from '@shared/workflow/invocation';
import { RunCheckpoint } from '../engine/checkpoint';
import { CheckpointTable, type CheckpointWrites } from '../events/checkpoint-table';
import type { HistoryDb } from '../events/history-db';
import { PatternPark } from './pattern/pattern-park';
import { SealedBox } from './sealed-box';

/** One node invocation as the run reports it (`--json`, the app's run view). */
export const InvocationRecord = z
  .object({
    id: z.string(),
    node: z.string(),
    lineage: Lineage,
    parent: z.string().optional(),
    status: InvocationStatus,
    outputs: z.record(z.string(), z.unknown()).optional(),
    failure: NodeFailure.optional(),
  })
  .strict();
export type InvocationRecord = z.infer<typeof InvocationRecord>;

/** A child run an invocation started (subworkflow.started) and that had not ended. */
export const OpenChild = z.object({ child_run_id: z.string().min(8), workflow_id: z.string(), tool: z.string().optional() }).strict();
export type OpenChild = z.infer<typeof OpenChild>;

/**
 * A workflow run parked for a person: the scheduler is rebuilt by replaying the events it was fed
 * (it is a pure reducer, so the same events give the same state), and each waiting agent node
 * keeps its own agent checkpoint. Written as soon as a node waits, again (at most each second) while
 * other nodes go on, and once more when nothing runs any more.
 */
export const WorkflowCheckpoint = z
  .object({
    version: z.literal(1),
    kind: z.literal('workflow'),
    run_id: z.string().min(8),
    /**
     * A child run started again after a host stop records under a run id of its own (its first start's
     * is closed in the history); its tool calls' keys and its nested runs' keys still derive from this,
     * its first start's id, so a call that start made is not made again.
     */
    key_run_id: z.string().min(8).optional(),
    saved_at: z.string(),
    graph: WorkflowGraph,
    spec_dir: z.string(),
    workspace: z.string().optional(),
    privacy: PrivacyPolicy.optional(),
    /** The run's trace profile settings: a resumed run keeps what its trace keeps. */
    trace: TraceSettings.optional(),
    /** A replay's recorded answers and results: a resumed replay goes on with them. */
    replay: WorkflowReplayPlan.optional(),
    next_seq: z.number().int().nonnegative(),
    rounds: z.number().int().nonnegative(),
    /** Every scheduler event fed so far, in order (start first). */
    scheduler_events: z.array(z.record(z.string(), z.unknown())),
    invocations: z.array(InvocationRecord),
    /**
     * Invocations still running when this was written (a node started waiting while others ran):
     * after a host stop they start again on resume; their tool calls are never re-run (the ledger).
     */
    running: z.array(Invocation).default([]),
    /** A running or waiting invocation that is a supervisor's retry: its attempt (2, 3…), so it goes on as that attempt with that attempt's key. */
    attempts: z.record(z.string(), z.number().int().min(2)).optional(),
    /** A running or waiting invocation started again after host stops: how many times (a workflow node's child then records under a new run id). */
    restarts: z.record(z.string(), z.number().int().min(1)).optional(),
    /**
     * The child runs a running invocation started that had not ended when this was written: if the
     * invocation starts again after a host stop, this run's report ends them as interrupted first.
     */
    open_children: z.record(z.string(), z.array(OpenChild).max(64)).optional(),
    /** Each waiting invocation: what it asks, for an agent node its own checkpoint, for a pattern node its loop. */
    waiting: z.record(
      z.string(),
      z
        .object({
          checkpoint: RunCheckpoint.optional(),
          intervention: Intervention,
          pattern: PatternPark.optional(),
          /** A tool node's call paused by its server's question (issue 30): its key, the host's answers, the server's requestState. */
          server_input: ServerInputWait.optional(),
          /** A workflow node whose child run waits (issue 29): the child's own checkpoint, resumed with the answer. */
          get child() {
            return WorkflowCheckpoint.optional();
          },
          /**
           * The child runs waiting inside `child` (it, its own waiting children…), kept in the clear when
           * the checkpoint is sealed (the child goes into the box): a host that starts lists them as
           * waiting with their parent, never as interrupted.
           */
          child_run_ids: z.array(z.string()).max(64).optional(),
        })
        .strict(),
    ),
    /** A supervised run's decisions so far (bounds, sticky verdicts): they hold across the wait. */
    supervisor_ledger: SupervisorLedger.optional(),
    /** The supervision the run asked for (document and command-line overrides merged): a resumed run supervises the same way. */
    supervisor_settings: SupervisorSettings.optional(),
    /** A replay supervisor's place in its script, so a resumed run goes on with its next answer. */
    supervisor_script_at: z.number().int().nonnegative().optional(),
    /**
     * A run holding a value bound for a sensitive argument (issue 27): its scheduler log, running
     * invocations and waiting calls sealed with a keychain key; those fields then hold nothing (the
     * waiting questions: as a page is shown them). Opened only to resume (sealed-checkpoint.ts).
     */
    sealed: SealedBox.optional(),
  })
  .strict();
export type WorkflowCheckpoint = z.infer<typeof WorkflowCheckpoint>;

/** The workflow runs parked for a person (the `waiting` table's `workflow` rows; events/checkpoint-table.ts). */
export class WorkflowCheckpointStore extends CheckpointTable<WorkflowCheckpoint> {
  /** `legacyDir`: the `waiting-workflows/` folder an older Steward kept, moved in at the first open. */
  constructor(db: HistoryDb, writes: CheckpointWrites, options: { legacyDir?: string; log?: (line: string) => void } = {}) {
    super(db, writes, { kind: 'workflow', schema: WorkflowCheckpoint, ...options });
  }
}
