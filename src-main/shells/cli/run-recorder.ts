import type { RunEvent } from '@shared/contracts/events';
import { CheckpointStore, type RunCheckpoint } from '../../engine/checkpoint';
import { openHistory } from '../../events/open-history';
import { openSpool, spoolDir } from '../../events/cli-run-spool';
import { acquireDataFolderLock, DataFolderInUseError } from '../../util/data-folder-lock';
import { WorkflowCheckpointStore, type WorkflowCheckpoint } from '../../workflow/workflow-checkpoint';
import { foldIntoHost } from '../cli-channel/channel-client';
import type { HostedFolder } from './hosted-folder';
import { waitingRunsDir, waitingWorkflowsDir } from './park-run';
import { join } from 'node:path';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Another command holds the folder for a moment (its own run ending): waited for this long at most. */
const BUSY_WAIT_MS = 10_000;

/**
 * No host on the folder: the events go to a spool file as they happen (a killed command loses
 * none), and into the journal under the folder's lock when the run ends. A host that started
 * meanwhile holds the lock: it is handed the spool over its channel instead.
 */
export function localRecorder(dataDir: string, log: (line: string) => void): RunRecorder {
  const spool = openSpool(dataDir);
  const events: RunEvent[] = [];
  const stores = () => ({ runs: new CheckpointStore(waitingRunsDir(dataDir), log), workflows: new WorkflowCheckpointStore(waitingWorkflowsDir(dataDir), log) });
  return {
    onEvent(event) {
      events.push(event);
      spool.append(event);
    },
    async finish(checkpoint) {
      spool.sync();
      const deadline = Date.now() + BUSY_WAIT_MS;
      for (;;) {
        let lock;
        try {
          lock = acquireDataFolderLock(dataDir, { shell: 'cli' }, log);
        } catch (error) {
          if (!(error instanceof DataFolderInUseError)) throw error;
          const app = error.holder?.shell === 'electron' || error.holder?.shell === 'browser';
          if (app) {
            spool.close();
            let folded = await foldIntoHost(dataDir, spool.name);
            // An app that is starting holds the folder a moment before its channel opens.
            while (!folded.ok && folded.unreachable && Date.now() < deadline) {
              await sleep(100);
              folded = await foldIntoHost(dataDir, spool.name);
            }
            if (!folded.ok) return { ok: false, message: `${folded.message}; the run's events are kept in ${join(spoolDir(dataDir), spool.name)} and join the history when the app next starts` };
            if (checkpoint) saveCheckpoint(checkpoint, stores());
            return { ok: true };
          }
          if (Date.now() > deadline) {
            spool.close();
            return { ok: false, message: `${error.message} The run's events are kept in ${join(spoolDir(dataDir), spool.name)} and join the history when the app next starts.` };
          }
          await sleep(50);
          continue;
        }
        try {
          const journal = openHistory(dataDir, { log });
          try {
            journal.append(events, { made: true });
          } finally {
            journal.close();
          }
          if (checkpoint) saveCheckpoint(checkpoint, stores());
          spool.remove();
          return { ok: true };
        } finally {
          lock.release();
        }
      }
    },
  };
}
