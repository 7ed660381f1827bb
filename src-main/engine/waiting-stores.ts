import { join } from 'node:path';
import type { CheckpointWrites } from '../events/checkpoint-table';
import { historyPath, openHistoryDb, type HistoryDb } from '../events/history-db';
import { keepDataFolderPrivate } from '../util/private-folder';
import { WorkflowCheckpointStore } from '../workflow/workflow-checkpoint';
import { CheckpointStore } from './checkpoint';

/** The folders where an older Steward kept waiting runs as JSON files: moved into the history database at the first open. */
export const waitingRunsDir = (dataDir: string) => join(dataDir, 'waiting-runs');
export const waitingWorkflowsDir = (dataDir: string) => join(dataDir, 'waiting-workflows');

/** A data folder's runs waiting for a person: agent runs and workflow runs, in its history database. */
export interface WaitingStores {
  readonly checkpoints: CheckpointStore;
  readonly workflowCheckpoints: WorkflowCheckpointStore;
}

/**
 * The stores on the history connection a host or a steward command writes its runs through:
 * `writes` is its journal writer's commit, so a checkpoint is one transaction (one sync) with the
 * run's pending events.
 */
export function waitingStoresOn(db: HistoryDb, writes: CheckpointWrites, dataDir: string, log: (line: string) => void = () => undefined): WaitingStores {
  return {
    checkpoints: new CheckpointStore(db, writes, { legacyDir: waitingRunsDir(dataDir), log }),
    workflowCheckpoints: new WorkflowCheckpointStore(db, writes, { legacyDir: waitingWorkflowsDir(dataDir), log }),
  };
}

/** The stores on a connection of their own (a command that lists what waits, a test): each write is its own transaction. */
export function openWaitingStores(dataDir: string, log: (line: string) => void = () => undefined): WaitingStores & { close(): void } {
  // The user's alone, as the history opens it (a command run first on a new folder makes it).
  keepDataFolderPrivate(dataDir, log);
  const db = openHistoryDb(historyPath(dataDir));
  try {
    const now = (step: () => void) => db.transaction(step).immediate();
    return { ...waitingStoresOn(db, { now }, dataDir, log), close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
