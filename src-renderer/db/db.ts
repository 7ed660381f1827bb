import Dexie, { type EntityTable, type Table, type Transaction } from 'dexie';
import type { RunEvent, RunStatus } from '@shared/contracts/events';
import type { ModelRef } from '@shared/contracts/model';
import type { LifecyclePhase } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { LearningExample } from '@shared/contracts/learning-export';
import type { Profile, ProfileKind, ProfileVersionRef } from '@shared/contracts/profiles';
import type { InspectedTool } from '@shared/contracts/host-api';
import type { InvocationStatus } from '@shared/workflow/invocation';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { EncodedPrompt } from '@shared/learning/learning-context';
import { backfillLearningExamples, storeLearningByReference } from './learning-examples';
import { runWords, type TraceWord } from './search-words';
import { backfillPromotionCounts, PROMOTION_ORDER, PROMOTION_RANK, PROMOTION_RUN, type PromotionOutcomeRow, type PromotionRoundRow, type PromotionRunRow } from './promotion-counts';

/** A workflow's chosen profile version per kind (versions are immutable, so a choice is exact). */
export interface ProfileChoice {
  id: string;
  version: number;
}
export type WorkflowProfiles = Partial<Record<ProfileKind, ProfileChoice>>;

export interface WorkflowRow {
  /** The document's id (its slug). */
  id: string;
  name: string;
  /** The workflow as the host takes it: servers and workspace by registered id. */
  doc: HostedWorkflow;
  /** Per-workflow switch, sent as `overrides.supervision_enabled` on run. */
  supervision_enabled: boolean;
  /** v1 only: models picked on the card. v2 moves them into model profiles (see workflow-profiles.ts). */
  student?: ModelRef;
  teacher?: ModelRef;
  /** The Supervision & Learning panel's profile choices (v2). */
  profiles?: WorkflowProfiles;
  /** When the choices or the supervision switch were last set (here or in another browser): the newest wins on the host (profile-sync.ts). Absent: never chosen, the host's win. */
  choices_at?: string;
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
  /** Lifecycle phase the run used (v2). */
  phase?: LifecyclePhase;
  /** Models were called, no tool executed (v2). */
  dry_run?: boolean;
  /** The profile versions the run recorded (v2). */
  profiles?: Record<string, ProfileVersionRef>;
  /** Sequence number of the event that set `status` (waiting ↔ running, final). */
  status_seq?: number;
  /** Total events of the run, as announced by run.finished. */
  event_count?: number;
  /** Distinct events of the run stored here; equals event_count once the trace is complete. */
  stored_events: number;
  /** A workflow run's nodes (ingest-events.ts): present once any of its workflow events is in. */
  workflow?: WorkflowRunFacts;
  /** Text search's words (search-words.ts: runWords), rewritten with the row; a multi-entry index since v4. */
  words?: string[];
  /** The words of the run's trace read so far, each with where it was first said (search-words.ts: traceWords, capped); part of `words`, not indexed itself. */
  trace_words?: TraceWord[];
}

/** What the runs list shows of a workflow run, kept idempotent: each value is the latest by sequence. */
export interface WorkflowRunFacts {
  /** Nodes in the graph (workflow.started); 0 until it arrived. */
  nodes: number;
  /** Per invocation id: its latest status and the sequence number that set it. */
  invocations: Record<string, [InvocationStatus, number]>;
  /** Per invocation id: its completed rounds (an agent node's, a tool node's one call), each counting from 0. */
  invocation_rounds: Record<string, number>;
  /** A workflow supervisor's verdict was applied in this run (its status reads "Completed — supervised"). */
  supervised?: true;
}

/** Where a stored profile came from: shipped with the app, made here, or imported from a file. */
export type ProfileOrigin = 'builtin' | 'user' | 'imported';
export type ProfileRow = Profile & { origin: ProfileOrigin };

/**
 * The MCP registry, per (server identity, tool). The identity is the server's npm package, or its
 * command: the same server gets the same metadata in every workflow that uses it.
 */
export interface RegistryRow {
  server: string;
  tool: string;
  /** What the user set: authoritative, sent as `tool_effects`. Absent: shipped default or missing. */
  user?: ToolEffect;
  /** What the last inspection reported (effect as the host resolves it, annotation hints). */
  inspected?: InspectedTool;
  inspected_at?: string;
  updated_at: string;
}

/**
 * A learning example with the workflow it came from (the run's spec id), for filtering. Its prompt is kept as its
 * `learning.example` event holds it (since v6): whole, or a reference to an earlier example's of the same agent run
 * and what is new (learning-context.ts), so the store grows with a run's rounds, not their square. The whole prompt
 * is rebuilt only when an example is opened or exported (example-prompts.ts); `seq` (its event's) orders a run's
 * examples for that.
 */
export type LearningExampleRow = Omit<LearningExample, 'context'> & EncodedPrompt & { seq: number };

export type SettingsRow = { key: 'privacy'; value: PrivacyPolicy };
export type SettingsKey = SettingsRow['key'];

export const DB_VERSION = 6;

export const SCHEMA_V1 = {
  workflows: 'id, name, updated_at',
  runs: 'run_id, workflow_id, started_at, status',
  events: 'id, run_id, [run_id+seq], type',
} as const;

export const SCHEMA_V2 = {
  ...SCHEMA_V1,
  profiles: '[id+version], id, kind',
  registry: '[server+tool], server',
  learning_examples: 'id, run_id, spec_id, kind, ts',
  settings: 'key',
} as const;

/** v3: the runs list's filters page through an index by start date (screens/runs/run-query.ts). */
export const SCHEMA_V3 = {
  ...SCHEMA_V2,
  runs: 'run_id, workflow_id, started_at, status, [started_at+run_id], [status+started_at+run_id], [workflow_id+started_at+run_id]',
} as const;

/** v4: text search reads the runs having a word that starts with the rarest query word (`*words`, multi-entry). */
export const SCHEMA_V4 = {
  ...SCHEMA_V3,
  runs: `${SCHEMA_V3.runs}, *words`,
} as const;

/**
 * v5: the Learning list pages newest first through `[spec_id+ts+id]`, `[kind+ts+id]` or `[ts+id]` (the id keeps a
 * page's end exact when examples share an instant); promotion figures are kept as events are stored
 * (promotion-counts.ts), per run, per round and per counted outcome in a workflow's order.
 */
export const SCHEMA_V5 = {
  ...SCHEMA_V4,
  learning_examples: `${SCHEMA_V2.learning_examples}, [spec_id+ts+id], [kind+ts+id], [ts+id]`,
  promotion_runs: 'run_id',
  promotion_rounds: 'id, run_id',
  promotion_outcomes: `id, ${PROMOTION_ORDER}, ${PROMOTION_RANK}, ${PROMOTION_RUN}`,
} as const;

export class StewardDb extends Dexie {
  declare workflows: EntityTable<WorkflowRow, 'id'>;
  declare runs: EntityTable<RunRow, 'run_id'>;
  declare events: EntityTable<RunEvent, 'id'>;
  declare profiles: Table<ProfileRow, [string, number]>;
  declare registry: Table<RegistryRow, [string, string]>;
  declare learning_examples: EntityTable<LearningExampleRow, 'id'>;
  declare settings: EntityTable<SettingsRow, 'key'>;
  declare promotion_runs: EntityTable<PromotionRunRow, 'run_id'>;
  declare promotion_rounds: EntityTable<PromotionRoundRow, 'id'>;
  declare promotion_outcomes: EntityTable<PromotionOutcomeRow, 'id'>;

  constructor(name = 'steward') {
    super(name);
    this.version(1).stores(SCHEMA_V1);
    // v2 adds tables and keeps every v1 row; learning examples are distilled from the stored events.
    this.version(2)
      .stores(SCHEMA_V2)
      .upgrade((tx: Transaction) => backfillLearningExamples(tx.table('events'), tx.table('runs'), tx.table('learning_examples')));
    // v3 only adds indexes: IndexedDB builds them from the stored rows.
    this.version(3).stores(SCHEMA_V3);
    // v4 indexes each run's words; rows stored before it get theirs from the fields they already hold.
    this.version(4)
      .stores(SCHEMA_V4)
      .upgrade((tx: Transaction) =>
        tx
          .table<RunRow, string>('runs')
          .toCollection()
          .modify((run) => {
            run.words = runWords(run);
          }),
      );
    // v5 indexes examples by time and keeps promotion figures: those of the events stored before it are counted once here.
    this.version(5)
      .stores(SCHEMA_V5)
      .upgrade((tx: Transaction) =>
        backfillPromotionCounts(tx.table('events'), {
          runs: tx.table('runs'),
          promotion_runs: tx.table('promotion_runs'),
          promotion_rounds: tx.table('promotion_rounds'),
          promotion_outcomes: tx.table('promotion_outcomes'),
        }),
      );
    // v6 stores examples' prompts by reference, as their events hold them: the rows stored whole before it are distilled again from those events.
    this.version(6)
      .stores(SCHEMA_V5)
      .upgrade((tx: Transaction) => storeLearningByReference(tx.table('events'), tx.table('runs'), tx.table('learning_examples')));
  }
}

/** A run's events in sequence order. */
export function runEvents(db: StewardDb, runId: string): Promise<RunEvent[]> {
  return db.events.where('[run_id+seq]').between([runId, Dexie.minKey], [runId, Dexie.maxKey]).toArray();
}
