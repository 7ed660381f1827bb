import type { RunEvent } from '@shared/contracts/events';
import type { RunCheckpoint } from '../../engine/checkpoint';
import { waitingStoresOn, type WaitingStores } from '../../engine/waiting-stores';
import { openCommandRunWriter } from '../../events/command-run-writer';
import type { IdempotencyLedger } from '../../mcp/idempotency-ledger';
import { openJournalLedger } from '../../mcp/journal-ledger';
import type { WorkflowCheckpoint } from '../../workflow/workflow-checkpoint';
import type { HostedFolder } from './hosted-folder';

export type Recorded = { ok: true } | { ok: false; message: string };

/**
 * Where a `steward run` keeps its events (issue 22): every run is in its data folder's one journal,
 * the one the app's Runs screen lists, with the run id the command printed.
 */
export interface RunRecorder {
  onEvent(event: RunEvent): void;
  /**
   * The data folder's idempotency ledger, on the same history connection and writer as the events
   * (issue 26): a round's claim commits with the round's events, one sync.
   */
  readonly ledger: IdempotencyLedger;
  /**
   * The run ended, or waits for a person (`checkpoint`): its events, then the checkpoint, are in the
   * history — one transaction (a run is never resumed past a missing event).
   */
  finish(checkpoint?: RunCheckpoint | WorkflowCheckpoint): Promise<Recorded>;
  /**
   * With the app running: a run nobody answers here is made durable the moment it waits (as the
   * app's own runs are), so a page that hears of its question finds it waiting at once.
   */
  readonly persistWaiting?: { agent: (checkpoint: RunCheckpoint) => void; workflow: (checkpoint: WorkflowCheckpoint) => void; drop: (runId: string) => void };
}

/** Stored with the run's pending events (the stores commit through the writer that holds them). */
const saveCheckpoint = (checkpoint: RunCheckpoint | WorkflowCheckpoint, stores: WaitingStores) => {
  if ('kind' in checkpoint) stores.workflowCheckpoints.save(checkpoint);
  else stores.checkpoints.save(checkpoint);
};

/** Forwarded to a running host: straight into its journal writer, its ledger and its stores. */
export function hostedRecorder(hosted: HostedFolder): RunRecorder {
  return {
    onEvent: (event) => hosted.onEvent(event),
    ledger: hosted.ledger,
    persistWaiting: {
      agent: (checkpoint) => hosted.checkpoints.save(checkpoint),
      workflow: (checkpoint) => hosted.workflowCheckpoints.save(checkpoint),
      drop: (runId) => hosted.workflowCheckpoints.delete(runId),
    },
    async finish(checkpoint) {
      if (checkpoint) saveCheckpoint(checkpoint, hosted);
      else hosted.flush();
      return { ok: true };
    },
  };
}

/**
 * No host on the folder: the events go straight into the data folder's history as they happen
 * (events/command-run-writer.ts), under each run's lock, so a killed command loses none and a host
 * that starts meanwhile shows the run live and leaves it to this command. The ledger and a waiting
 * run's checkpoint share the writer as in the host: a round is one commit, and a run that waits
 * stores its last events and its checkpoint in one; then the run is let go of.
 */
export function localRecorder(dataDir: string, log: (line: string) => void, options: { windowMs?: number } = {}): RunRecorder {
  const writer = openCommandRunWriter(dataDir, log, options);
  let ledger: IdempotencyLedger;
  try {
    ledger = openJournalLedger(writer.journal, writer, dataDir);
  } catch (error) {
    writer.close();
    throw error;
  }
  return {
    onEvent: (event) => writer.onEvent(event),
    ledger,
    async finish(checkpoint) {
      try {
        // A run is never parked past a missing event; one let go of unended is closed as interrupted at the next start.
        const notStored = (problem: string): Recorded => ({ ok: false, message: `${problem} What was written before is in the history; the app closes the run as interrupted when it next starts` });
        if (!checkpoint) {
          const problem = writer.flush();
          return problem === undefined ? { ok: true } : notStored(problem);
        }
        const refused = writer.refused();
        if (refused !== undefined) return notStored(refused);
        try {
          saveCheckpoint(checkpoint, waitingStoresOn(writer.journal.connection, { now: writer.commit }, dataDir, log));
        } catch (error) {
          return notStored(error instanceof Error ? error.message : String(error));
        }
        return { ok: true };
      } finally {
        writer.close();
      }
    },
  };
}
