import type { RunEvent } from '@shared/contracts/events';
import { CheckpointStore, type RunCheckpoint } from '../../engine/checkpoint';
import { openCommandRunWriter } from '../../events/command-run-writer';
import { WorkflowCheckpointStore, type WorkflowCheckpoint } from '../../workflow/workflow-checkpoint';
import type { HostedFolder } from './hosted-folder';
import { waitingRunsDir, waitingWorkflowsDir } from './park-run';

export type Recorded = { ok: true } | { ok: false; message: string };

/**
 * Where a `steward run` keeps its events (issue 22): every run is in its data folder's one journal,
 * the one the app's Runs screen lists, with the run id the command printed.
 */
export interface RunRecorder {
  onEvent(event: RunEvent): void;
  /**
   * The run ended, or waits for a person (`checkpoint`): its events are in the journal, then the
   * checkpoint in the waiting stores, in that order (a run is never resumed past a missing event).
   */
  finish(checkpoint?: RunCheckpoint | WorkflowCheckpoint): Promise<Recorded>;
  /**
   * With the app running: a run nobody answers here is made durable the moment it waits (as the
   * app's own runs are), so a page that hears of its question finds it waiting at once.
   */
  readonly persistWaiting?: { agent: (checkpoint: RunCheckpoint) => void; workflow: (checkpoint: WorkflowCheckpoint) => void; drop: (runId: string) => void };
}

const saveCheckpoint = (checkpoint: RunCheckpoint | WorkflowCheckpoint, stores: { runs: CheckpointStore; workflows: WorkflowCheckpointStore }) => {
  if ('kind' in checkpoint) stores.workflows.save(checkpoint);
  else stores.runs.save(checkpoint);
};

/** Forwarded to a running host: straight into its journal writer and its stores. */
export function hostedRecorder(hosted: HostedFolder): RunRecorder {
  return {
    onEvent: (event) => hosted.onEvent(event),
    persistWaiting: {
      agent: (checkpoint) => {
        hosted.flush();
        hosted.checkpoints.save(checkpoint);
      },
      workflow: (checkpoint) => {
        hosted.flush();
        hosted.workflowCheckpoints.save(checkpoint);
      },
      drop: (runId) => hosted.workflowCheckpoints.delete(runId),
    },
    async finish(checkpoint) {
      hosted.flush();
      if (checkpoint) saveCheckpoint(checkpoint, { runs: hosted.checkpoints, workflows: hosted.workflowCheckpoints });
      return { ok: true };
    },
  };
}

/**
 * No host on the folder: the events go straight into the data folder's history as they happen
 * (events/command-run-writer.ts), under each run's lock, so a killed command loses none and a host
 * that starts meanwhile shows the run live and leaves it to this command. At the end, or when the
 * run waits: its events are durable, then its checkpoint, then the run is let go of.
 */
export function localRecorder(dataDir: string, log: (line: string) => void): RunRecorder {
  const writer = openCommandRunWriter(dataDir, log);
  const stores = () => ({ runs: new CheckpointStore(waitingRunsDir(dataDir), log), workflows: new WorkflowCheckpointStore(waitingWorkflowsDir(dataDir), log) });
  return {
    onEvent: (event) => writer.onEvent(event),
    async finish(checkpoint) {
      const problem = writer.flush();
      try {
        if (problem !== undefined) {
          // A run is never parked past a missing event; one let go of unended is closed as interrupted at the next start.
          return { ok: false, message: `${problem} What was written before is in the history; the app closes the run as interrupted when it next starts` };
        }
        if (checkpoint) saveCheckpoint(checkpoint, stores());
        return { ok: true };
      } finally {
        writer.close();
      }
    },
  };
}
