import Dexie, { type EntityTable, type Table, type Transaction } from 'dexie';
import type { RunEvent } from '@shared/contracts/events';
import type { ModelRef } from '@shared/contracts/model';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { Profile, ProfileKind } from '@shared/contracts/profiles';
import type { InspectedTool } from '@shared/contracts/host-api';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import { runWords } from '@shared/history/search-words';
import type { RunRow } from '@shared/history/run-summary';
export type { RunRow, WorkflowRunFacts } from '@shared/history/run-summary';

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

export type SettingsRow = { key: 'privacy'; value: PrivacyPolicy };

/**
 * A run whose events this page keeps (issue 26): it ran while the page watched, was among the newest when a
 * fresh profile listed the history, or a person opened it. `used_at` orders who goes first when the events
 * kept pass the budget (history-budget.ts): the later of its start and its last opening.
 */
export interface HeldRunRow {
  run_id: string;
  used_at: string;
}
export type SettingsKey = SettingsRow['key'];

/**
 * The `settings` table read as plain rows, for the page's own bookkeeping keys (cursors, budgets,
 * marks), each checked by its reader's own schema; `SettingsRow` types the keys a person sets.
 */
export const plainSettings = (db: StewardDb) => db.table<{ key: string; value: unknown }, string>('settings');

export const DB_VERSION = 9;

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

/** v5–v8 kept promotion figures in three tables (v9 leaves them to the host): their keys, as those versions declared them. */
const PROMOTION_ORDER_V5 = '[workflow_id+ts+run_id+round+kind+scope]';
const PROMOTION_RANK_V5 = '[workflow_id+rank]';
const PROMOTION_ORDER = '[workflow_id+node+ts+run_id+round+kind+scope]';
const PROMOTION_RANK = '[workflow_id+node+rank]';
const PROMOTION_RUN = '[run_id+workflow_id]';

/**
 * v5: the Learning list pages newest first through `[spec_id+ts+id]`, `[kind+ts+id]` or `[ts+id]` (the id keeps a
 * page's end exact when examples share an instant); promotion figures were kept as events were stored,
 * per run, per round and per counted outcome in a workflow's order (until v9).
 */
export const SCHEMA_V5 = {
  ...SCHEMA_V4,
  learning_examples: `${SCHEMA_V2.learning_examples}, [spec_id+ts+id], [kind+ts+id], [ts+id]`,
  promotion_runs: 'run_id',
  promotion_rounds: 'id, run_id',
  promotion_outcomes: `id, ${PROMOTION_ORDER_V5}, ${PROMOTION_RANK_V5}, ${PROMOTION_RUN}`,
} as const;

/** v7: the page keeps the events of recent and opened runs only, within a budget (history-budget.ts); every run's row stays. */
export const SCHEMA_V7 = {
  ...SCHEMA_V5,
  held_runs: 'run_id, used_at',
} as const;

/** v8 (issue 29): promotion is counted per agent node of a workflow; `rank` finds each node's first outcome (the nodes with any). */
export const SCHEMA_V8 = {
  ...SCHEMA_V7,
  promotion_outcomes: `id, rank, ${PROMOTION_ORDER}, ${PROMOTION_RANK}, ${PROMOTION_RUN}`,
} as const;

/**
 * v9 (issue 26): the host keeps the promotion figures and the learning examples of its whole history
 * (events/promotion-store.ts, events/learning-store.ts), and the Learning screen asks it: the page's
 * tables for them go, and ingesting a frame writes events, held runs and run rows only.
 */
export const SCHEMA_V9 = {
  ...SCHEMA_V7,
  learning_examples: null,
  promotion_runs: null,
  promotion_rounds: null,
  promotion_outcomes: null,
} as const;

export class StewardDb extends Dexie {
  declare workflows: EntityTable<WorkflowRow, 'id'>;
  declare runs: EntityTable<RunRow, 'run_id'>;
  declare events: EntityTable<RunEvent, 'id'>;
  declare profiles: Table<ProfileRow, [string, number]>;
  declare registry: Table<RegistryRow, [string, string]>;
  declare settings: EntityTable<SettingsRow, 'key'>;
  declare held_runs: EntityTable<HeldRunRow, 'run_id'>;

  constructor(name = 'steward') {
    super(name);
    this.version(1).stores(SCHEMA_V1);
    // v2 adds tables and keeps every v1 row (v2–v8 also distilled learning examples here; v9 leaves them to the host).
    this.version(2).stores(SCHEMA_V2);
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
    // v5 indexes examples by time and adds the promotion tables (v9 drops both).
    this.version(5).stores(SCHEMA_V5);
    // v6 stored examples' prompts by reference (v9 drops the page's examples).
    this.version(6).stores(SCHEMA_V5);
    // v7: every run this page stored events of keeps them, until the budget says otherwise (checked after start-up).
    this.version(7)
      .stores(SCHEMA_V7)
      .upgrade(async (tx: Transaction) => {
        const held: HeldRunRow[] = [];
        await tx.table<RunRow, string>('runs').each((run) => {
          if (run.stored_events > 0) held.push({ run_id: run.run_id, used_at: run.started_at });
        });
        await tx.table<HeldRunRow, string>('held_runs').bulkPut(held);
      });
    // v8 counted promotion per agent node; v9 drops the page's promotion tables (the host keeps the figures),
    // so an older page upgrading now has nothing to count: its rows go with the tables.
    this.version(8).stores(SCHEMA_V8);
    this.version(9).stores(SCHEMA_V9);
  }
}

/** A run's events in sequence order. */
export function runEvents(db: StewardDb, runId: string): Promise<RunEvent[]> {
  return db.events.where('[run_id+seq]').between([runId, Dexie.minKey], [runId, Dexie.maxKey]).toArray();
}
