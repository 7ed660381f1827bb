import Dexie, { type EntityTable } from 'dexie';
import type { RunEvent, RunStatus } from '@shared/contracts/events';
import type { ModelRef } from '@shared/contracts/model';
import type { WorkflowDocument } from '@shared/contracts/spec';

export interface WorkflowRow {
  /** The document's id (its slug). */
  id: string;
  name: string;
  doc: WorkflowDocument;
  /** Per-workflow switch, sent as `overrides.supervision_enabled` on run. */
  supervision_enabled: boolean;
  /** Chosen models; absent means the document's own. */
  student?: ModelRef;
  teacher?: ModelRef;
  source: 'demo' | 'user';
  updated_at: string;
}

/** A run's summary, derived from its events (idempotently, see ingest-events). */
export interface RunRow {
  run_id: string;
  workflow_id: string;
  spec_name: string;
  task?: string;
  status: RunStatus;
  started_at: string;
  finished_at?: string;
  /** Completed rounds. */
  rounds: number;
  output?: string;
  message?: string;
  models: { student: string; teacher: string };
  supervision_enabled: boolean;
  /** Total events of the run, as announced by run.finished. */
  event_count?: number;
  /** Distinct events of the run stored here; equals event_count once the trace is complete. */
  stored_events: number;
}

export class StewardDb extends Dexie {
  declare workflows: EntityTable<WorkflowRow, 'id'>;
  declare runs: EntityTable<RunRow, 'run_id'>;
  declare events: EntityTable<RunEvent, 'id'>;

  constructor(name = 'steward') {
    super(name);
    this.version(1).stores({
      workflows: 'id, name, updated_at',
      runs: 'run_id, workflow_id, started_at, status',
      events: 'id, run_id, [run_id+seq], type',
    });
  }
}

/** A run's events in sequence order. */
export function runEvents(db: StewardDb, runId: string): Promise<RunEvent[]> {
  return db.events.where('[run_id+seq]').between([runId, Dexie.minKey], [runId, Dexie.maxKey]).toArray();
}
