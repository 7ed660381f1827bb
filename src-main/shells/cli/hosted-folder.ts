import type { RunEvent } from '@shared/contracts/events';
import type { CredentialStore } from '../../credentials/credential-store';
import type { CheckpointStore } from '../../engine/checkpoint';
import type { RunManager } from '../../engine/run-manager';
import type { EventJournal } from '../../events/event-journal';
import type { RunHistory } from '../../events/run-history';
import type { IdempotencyLedger } from '../../mcp/idempotency-ledger';
import type { WorkflowCheckpointStore } from '../../workflow/workflow-checkpoint';

/**
 * The data folder as a running host holds it (issue 22): a command forwarded over the CLI channel
 * uses the host's own journal, stores, ledger and runs instead of taking the folder's lock, so its
 * runs are in the app's history at once and the app can answer what it leaves waiting.
 */
export interface HostedFolder {
  readonly dataDir: string;
  readonly ledger: IdempotencyLedger;
  readonly credentials: CredentialStore;
  /** The host's journal writer: an event reaches the journal (and every page) within a few ms. */
  onEvent(event: RunEvent): void;
  flush(): void;
  readonly checkpoints: CheckpointStore;
  readonly workflowCheckpoints: WorkflowCheckpointStore;
  readonly runs: RunManager;
  readonly journal: EventJournal;
  readonly history: RunHistory;
  /** Every event the host records for this run from now on (a resumed run's, too); returns the unsubscribe. */
  watch(runId: string, listener: (event: RunEvent) => void): () => void;
}
