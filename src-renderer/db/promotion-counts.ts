import Dexie, { cmp, type EntityTable, type Table } from 'dexie';
import type { RunEvent } from '@shared/contracts/events';
import {
  foldRoundFacts,
  foldRunFacts,
  isRoundEvent,
  isStartEvent,
  nodeOfScope,
  roundKeyId,
  roundKeyOf,
  roundOutcomes,
  type RoundFacts,
  type RunFacts,
} from '@shared/policy/promotion-facts';
import { addOutcome, metricsBetween, seriesWindows, ZERO_TOTALS, type MetricsPoint, type PromotionMetrics, type Totals } from '@shared/policy/promotion';
import type { RunRow } from '@shared/history/run-summary';

/**
 * Promotion figures kept as events are stored, never scanned (issue 9). Three tables:
 * - promotion_runs: per run, whether it is a dry run and the workflow its outcomes count for;
 * - promotion_rounds: per round (of a run, or of a workflow run's agent node), its facts
 *   (src-shared/policy/promotion-facts.ts), folded from its events latest-by-sequence;
 * - promotion_outcomes: per agent node of a workflow (issue 29; an agent run's workflow is its one
 *   node, ''), each outcome in time order with its rank and the running totals through it, so any
 *   window's metrics are two rows' difference.
 * Updated in the ingest transaction. The same events again (a replay) change no fact and write
 * nothing; events in another order give the same facts, so the same rows.
 */

/** What promotion knows of a run, and the workflow (the run row's) its outcomes are counted for ('' unknown yet). */
export type PromotionRunRow = RunFacts & { workflow_id: string };
export type PromotionRoundRow = RoundFacts & { id: string };

/** One counted outcome of a workflow's agent node: in the order of promotion.ts (ts, run, round, kind, node), its 1-based rank among the node's, totals through it. */
export interface PromotionOutcomeRow {
  /** Its round's id and kind. */
  id: string;
  workflow_id: string;
  /** The agent node it counts for (nodeOfScope of `scope`): '' for an agent run, the node's id in a workflow run. */
  node: string;
  ts: string;
  run_id: string;
  round: number;
  kind: 'review' | 'shadow';
  /** The agent node's invocation in a workflow run; '' otherwise. */
  scope: string;
  agreed: boolean;
  blocked: boolean;
  protected_error: boolean;
  rank: number;
  totals: Totals;
}

/** v5–v7 counted per workflow (kept so those versions' schemas stay what they were). */
export const PROMOTION_ORDER_V5 = '[workflow_id+ts+run_id+round+kind+scope]';
export const PROMOTION_RANK_V5 = '[workflow_id+rank]';
export const PROMOTION_ORDER = '[workflow_id+node+ts+run_id+round+kind+scope]';
export const PROMOTION_RANK = '[workflow_id+node+rank]';
/** A run's outcomes (compound, so a delete by a plain `run_id` index passes them by: they must be re-ranked, see forgetPromotionRuns). */
export const PROMOTION_RUN = '[run_id+workflow_id]';

/** The tables this module reads and writes (StewardDb declares them; typed here so this module never imports db.ts). */
export interface PromotionTables {
  runs: EntityTable<RunRow, 'run_id'>;
  promotion_runs: EntityTable<PromotionRunRow, 'run_id'>;
  promotion_rounds: EntityTable<PromotionRoundRow, 'id'>;
  promotion_outcomes: EntityTable<PromotionOutcomeRow, 'id'>;
}

const orderKey = (r: PromotionOutcomeRow) => [r.workflow_id, r.node, r.ts, r.run_id, r.round, r.kind, r.scope];
/** One counted subject: a workflow's agent node. */
const subjectOf = (r: Pick<PromotionOutcomeRow, 'workflow_id' | 'node'>) => `${r.workflow_id}\u0000${r.node}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Equal as an outcome (where it sorts and what it counts), apart from its rank and totals. */
const sameOutcome = (a: PromotionOutcomeRow, b: PromotionOutcomeRow) =>
  cmp(orderKey(a), orderKey(b)) === 0 && a.agreed === b.agreed && a.blocked === b.blocked && a.protected_error === b.protected_error;

/**
 * Folds a batch of stored events into the kept figures. Call inside the transaction that stores them, after the run rows.
 * `workflowOf`: each run's workflow as the caller just wrote it (ingest has the rows at hand); without it they are read.
 */
export async function keepPromotionCounts(t: PromotionTables, events: readonly RunEvent[], workflowOf?: (runId: string) => string | undefined): Promise<void> {
  const runIds = [...new Set(events.filter((e) => isStartEvent(e) || isRoundEvent(e) || e.type === 'workflow.started').map((e) => e.run_id))];
  if (runIds.length === 0) return;

  // Runs: dry or not, and the workflow they count for (a start arriving after the rounds moves them).
  const [workflowIds, priorRuns] = await Promise.all([
    workflowOf ? runIds.map(workflowOf) : t.runs.bulkGet(runIds).then((rows) => rows.map((row) => row?.workflow_id)),
    t.promotion_runs.bulkGet(runIds),
  ]);
  const runs = new Map<string, PromotionRunRow>();
  const movedRuns: string[] = [];
  runIds.forEach((runId, i) => {
    const prior = priorRuns[i];
    let facts: RunFacts | undefined = prior;
    for (const e of events) if (isStartEvent(e) && e.run_id === runId) facts = foldRunFacts(facts, e);
    const next: PromotionRunRow = { ...(facts ?? { run_id: runId, dry_run: false }), workflow_id: workflowIds[i] ?? '' };
    runs.set(runId, next);
    if (!prior || !same(prior, next)) movedRuns.push(runId);
  });
  const changedRunRows = movedRuns.map((id) => runs.get(id)!);
  if (changedRunRows.length > 0) await t.promotion_runs.bulkPut(changedRunRows);

  // A run new here has no rounds stored before this batch (every batch with a run's rounds writes its run row):
  // only the rounds of runs known before are read back, and only those runs' stored rounds when they moved.
  const knownBefore = new Set(runIds.filter((_, i) => priorRuns[i] !== undefined));

  // Rounds: fold the batch into their facts; only those that changed are written and counted again.
  const byRound = new Map<string, { run_id: string; events: RunEvent[] }>();
  for (const e of events) {
    if (!isRoundEvent(e)) continue;
    const id = roundKeyId(roundKeyOf(e));
    const round = byRound.get(id);
    if (round) round.events.push(e);
    else byRound.set(id, { run_id: e.run_id, events: [e] });
  }
  const roundIds = [...byRound.keys()];
  const storedIds = roundIds.filter((id) => knownBefore.has(byRound.get(id)!.run_id));
  const found = new Map((await t.promotion_rounds.bulkGet(storedIds)).map((row, i) => [storedIds[i]!, row]));
  const changed = new Map<string, PromotionRoundRow>();
  // Rounds first stored in this batch: they have no outcomes stored yet (those are kept only for stored rounds).
  const newRounds = new Set<string>();
  for (const id of roundIds) {
    const prior = found.get(id);
    if (!prior) newRounds.add(id);
    let facts: RoundFacts | undefined = prior;
    for (const e of byRound.get(id)!.events) if (isRoundEvent(e)) facts = foldRoundFacts(facts, e);
    if (facts && (!prior || !same(prior, { ...facts, id }))) changed.set(id, { ...facts, id });
  }
  if (changed.size > 0) await t.promotion_rounds.bulkPut([...changed.values()]);
  // Every round of a run whose workflow or dry-run flag changed counts again.
  const recount = new Map(changed);
  const knownMoved = movedRuns.filter((id) => knownBefore.has(id));
  if (knownMoved.length > 0) {
    // Run by run: an anyOf cursor re-walks its range at each step in fake-indexeddb.
    const stored = await Promise.all(knownMoved.map((id) => t.promotion_rounds.where('run_id').equals(id).toArray()));
    for (const row of stored.flat()) if (!recount.has(row.id)) recount.set(row.id, row);
  }
  if (recount.size > 0) await recountRounds(t, [...recount.values()], (runId) => runs.get(runId), newRounds);
}

/**
 * Replaces the outcome rows of these rounds and re-ranks each workflow from the first place that changed.
 * `unstored`: rounds first stored in this batch, whose outcomes cannot be stored yet (they are not read).
 */
async function recountRounds(t: PromotionTables, rounds: readonly PromotionRoundRow[], runOf: (runId: string) => PromotionRunRow | undefined, unstored: ReadonlySet<string> = new Set()): Promise<void> {
  const wanted = new Map<string, PromotionOutcomeRow>();
  const ids: string[] = [];
  const stored: string[] = [];
  for (const f of rounds) {
    const run = runOf(f.run_id);
    const own = [`${f.id}\u0000review`, `${f.id}\u0000shadow`];
    ids.push(...own);
    if (!unstored.has(f.id)) stored.push(...own);
    if (!run || run.workflow_id === '') continue;
    for (const o of roundOutcomes(f, run)) {
      const id = `${f.id}\u0000${o.kind}`;
      wanted.set(id, { id, workflow_id: run.workflow_id, node: nodeOfScope(f.scope), ts: o.ts, run_id: f.run_id, round: f.round, kind: o.kind, scope: f.scope, agreed: o.agreed, blocked: o.blocked, protected_error: o.protected_error, rank: 0, totals: ZERO_TOTALS });
    }
  }
  const found = new Map((await t.promotion_outcomes.bulkGet(stored)).map((row, i) => [stored[i]!, row]));
  const existing = ids.map((id) => found.get(id));
  const gone: string[] = [];
  const changedRows: PromotionOutcomeRow[] = [];
  ids.forEach((id, i) => {
    const old = existing[i];
    const next = wanted.get(id);
    if (old && next && sameOutcome(old, next)) {
      wanted.delete(id);
      return;
    }
    if (old) gone.push(id);
    changedRows.push(...(old ? [old] : []), ...(next ? [next] : []));
  });
  if (gone.length > 0) await t.promotion_outcomes.bulkDelete(gone);
  for (const [subject, { start, row }] of firstChanges(changedRows)) {
    const added = [...wanted.values()].filter((r) => subjectOf(r) === subject);
    await rerank(t, row, start, added);
  }
}

/** Per agent node, the order key of the first of these rows: where its ranks and totals must be counted again. */
function firstChanges(rows: readonly PromotionOutcomeRow[]): Map<string, { start: unknown[]; row: Pick<PromotionOutcomeRow, 'workflow_id' | 'node'> }> {
  const from = new Map<string, { start: unknown[]; row: Pick<PromotionOutcomeRow, 'workflow_id' | 'node'> }>();
  for (const r of rows) {
    const prior = from.get(subjectOf(r));
    if (!prior || cmp(orderKey(r), prior.start) < 0) from.set(subjectOf(r), { start: orderKey(r), row: { workflow_id: r.workflow_id, node: r.node } });
  }
  return from;
}

/** Ranks and running totals of a node's outcomes from `start` on: the stored ones from there are read, the new ones merged in. */
async function rerank(t: Pick<PromotionTables, 'promotion_outcomes'>, subject: Pick<PromotionOutcomeRow, 'workflow_id' | 'node'>, start: unknown[], added: readonly PromotionOutcomeRow[]): Promise<void> {
  const { workflow_id: workflowId, node } = subject;
  // One walk back from the node's newest outcome to the last one before `start` (usually a row or two: outcomes arrive in time order).
  const walked = await t.promotion_outcomes
    .where(PROMOTION_ORDER)
    .between([workflowId, node], [workflowId, node, Dexie.maxKey], true, true)
    .reverse()
    .until((r) => cmp(orderKey(r), start) < 0, true)
    .toArray();
  const before = walked.length > 0 && cmp(orderKey(walked.at(-1)!), start) < 0 ? walked.pop() : undefined;
  const rows = [...walked, ...added].sort((a, b) => cmp(orderKey(a), orderKey(b)));
  let rank = before?.rank ?? 0;
  let totals = before?.totals ?? ZERO_TOTALS;
  const updated = rows.map((r) => {
    rank += 1;
    totals = addOutcome(totals, r);
    return { ...r, rank, totals };
  });
  if (updated.length > 0) await t.promotion_outcomes.bulkPut(updated);
}

/**
 * Deleted runs stop counting: their outcomes go and each workflow they counted for is re-ranked
 * from the first of them. Call in the transaction that deletes the runs.
 */
export async function forgetPromotionRuns(t: Omit<PromotionTables, 'runs'>, runIds: readonly string[]): Promise<void> {
  const rows = (await Promise.all(runIds.map((id) => t.promotion_outcomes.where(PROMOTION_RUN).between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray()))).flat();
  await Promise.all([t.promotion_runs.bulkDelete([...runIds]), t.promotion_rounds.where('run_id').anyOf([...runIds]).delete(), t.promotion_outcomes.bulkDelete(rows.map((r) => r.id))]);
  for (const { start, row } of firstChanges(rows).values()) await rerank(t, row, start, []);
}

/**
 * The v8 upgrade: outcomes counted per workflow become counted per agent node. Each row's node
 * comes from its own invocation (`scope`), so no event is needed (the page may no longer hold the
 * events of older runs); ranks and running totals are then counted again per node.
 */
export async function countPromotionPerNode(outcomes: { toArray(): Promise<PromotionOutcomeRow[]>; bulkPut(rows: readonly PromotionOutcomeRow[]): Promise<unknown> }): Promise<void> {
  const rows = (await outcomes.toArray()).map((r) => ({ ...r, node: nodeOfScope(r.scope) }));
  rows.sort((a, b) => cmp(orderKey(a), orderKey(b)));
  const state = new Map<string, { rank: number; totals: Totals }>();
  const updated = rows.map((r) => {
    const prior = state.get(subjectOf(r)) ?? { rank: 0, totals: ZERO_TOTALS };
    const next = { rank: prior.rank + 1, totals: addOutcome(prior.totals, r) };
    state.set(subjectOf(r), next);
    return { ...r, ...next };
  });
  if (updated.length > 0) await outcomes.bulkPut(updated);
}

/** The agent nodes of a workflow with counted outcomes ('' for the workflow's own agent runs), each once (its rank-1 outcome). */
export async function promotionNodes(t: Pick<PromotionTables, 'promotion_outcomes'>, workflowId?: string): Promise<{ workflow_id: string; node: string }[]> {
  const firsts = await t.promotion_outcomes.where('rank').equals(1).toArray();
  return firsts
    .filter((r) => workflowId === undefined || r.workflow_id === workflowId)
    .map((r) => ({ workflow_id: r.workflow_id, node: r.node }))
    .sort((a, b) => cmp([a.workflow_id, a.node], [b.workflow_id, b.node]));
}

/** The v5 upgrade: the figures of every event stored before it. */
export async function backfillPromotionCounts(events: Table<RunEvent, string>, t: PromotionTables): Promise<void> {
  const stored = await events.where('type').anyOf(['run.started', 'agent.started', 'tools.snapshot', 'round.completed', 'learning.example', 'intervention.answered']).toArray();
  await keepPromotionCounts(t, stored);
}

/** The chart's windows, then the metrics' own (the last `window` outcomes). */
const windowsOf = (n: number, window: number, points: number) => [...seriesWindows(n, window, points), { start: Math.max(0, n - window), end: n }];

export interface PromotionFigures {
  /** Counted outcomes of the workflow. */
  outcomes: number;
  metrics: PromotionMetrics;
  series: MetricsPoint[];
}

/**
 * The Promotion card's figures for one agent node of a workflow (`node` '': the workflow's own
 * agent runs): the metrics over the last `window` outcomes and a chart of at most `points` points,
 * from at most 2·points + 2 rows read by rank (each window's metrics are the difference of the
 * running totals at its ends).
 */
export async function readPromotion(t: Pick<PromotionTables, 'promotion_outcomes'>, workflowId: string, window: number, points: number, node = ''): Promise<PromotionFigures> {
  const table = t.promotion_outcomes;
  // One read transaction: the figures come from one state of the table.
  const [n, found] = await table.db.transaction('r', table, async () => {
    const last = await table.where(PROMOTION_RANK).between([workflowId, node, 1], [workflowId, node, Infinity], true, true).last();
    const count = last?.rank ?? 0;
    const ranks = [...new Set(windowsOf(count, window, points).flatMap((w) => [w.start, w.end]))].filter((r) => r > 0);
    // One point read per rank (an anyOf cursor re-walks its range at each step in fake-indexeddb, see docs/benchmarks.md).
    return [count, await Promise.all(ranks.map((r) => table.where(PROMOTION_RANK).equals([workflowId, node, r]).first()))] as const;
  });
  const windows = windowsOf(n, window, points);
  const rows = new Map(found.flatMap((r) => (r ? [[r.rank, r] as const] : [])));
  const totalsAt = (rank: number) => (rank === 0 ? ZERO_TOTALS : (rows.get(rank)?.totals ?? ZERO_TOTALS));
  const metrics = metricsBetween(totalsAt(Math.max(0, n - window)), totalsAt(n));
  const series = windows.slice(0, -1).flatMap((w) => {
    const end = rows.get(w.end);
    return end ? [{ ts: end.ts, ...metricsBetween(totalsAt(w.start), end.totals) }] : [];
  });
  return { outcomes: n, metrics, series };
}

/** The tables keepPromotionCounts writes, for the ingest transaction's scope. */
export const promotionTables = (db: PromotionTables) => [db.promotion_runs, db.promotion_rounds, db.promotion_outcomes];
