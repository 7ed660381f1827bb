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
  RoundFacts,
  RunFacts,
} from '@shared/policy/promotion-facts';
import { metricsBetween, seriesWindows, ZERO_TOTALS, type MetricsPoint, type PromotionMetrics, type Totals } from '@shared/policy/promotion';
import type { HistoryDb } from './history-db';
import type { Fold } from './history-fold';
import { ORDER } from './folded-schema';

/**
 * Promotion figures kept by the host from its own history (issue 26: the page no longer mirrors
 * them). Folded lazily (history-fold.ts): nothing is added to a round's write; when figures are
 * asked, the events appended since the last fold are folded into
 *   promotion_runs      per run: its facts (promotion-facts.ts) and the workflow it counts for;
 *   promotion_rounds    per round: its facts, folded from its events latest-by-sequence;
 *   promotion_outcomes  per counted outcome of an agent node (the workflow's own agent runs: node ''),
 *                       with its rank and the running totals through it, so any window's metrics are
 *                       two rows' difference;
 *   promotion_subjects  per agent node: from which outcome on (its order key) the ranks are stale.
 * A fold or a deletion only marks a node stale from its first changed outcome; its ranks are counted
 * again from there when its figures are read (usually the few outcomes just added; after deleting old
 * runs, the rest of that node's outcomes, once).
 */

/** Where an outcome sorts within its node: promotion.ts's order (time, run, round, kind, invocation). */
export interface OutcomeKey {
  ts: string;
  run_id: string;
  round: number;
  kind: 'review' | 'shadow';
  scope: string;
}

export interface PromotionFigures {
  /** Counted outcomes of the node. */
  outcomes: number;
  /** Over its last `window` outcomes. */
  metrics: PromotionMetrics;
  /** At most `points` points, the last one ending at the latest outcome. */
  series: MetricsPoint[];
}

export interface PromotionSubject {
  workflow_id: string;
  node: string;
}

const ORDER_DESC = 'ts DESC, run_id DESC, round DESC, kind DESC, scope DESC';


interface OutcomeRow extends OutcomeKey {
  id: string;
  workflow_id: string;
  node: string;
  agreed: number;
  blocked: number;
  protected_error: number;
}

interface RerankParams extends OutcomeKey, PromotionSubject {
  rank: number;
  reviews: number;
  agreed: number;
  blocked: number;
  errors: number;
}

interface RankRow {
  rank: number;
  ts: string;
  reviews_through: number;
  agreed_through: number;
  blocked_through: number;
  errors_through: number;
}

const keyParams = (k: OutcomeKey) => [k.ts, k.run_id, k.round, k.kind, k.scope] as const;
const subjectId = (s: PromotionSubject) => `${s.workflow_id}\u0000${s.node}`;
/** Text compared as SQLite's BINARY collation does (UTF-8 bytes, that is code points), not as JS's `<` (UTF-16 units). */
const compareText = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
export function compareKeys(a: OutcomeKey, b: OutcomeKey): number {
  return compareText(a.ts, b.ts) || compareText(a.run_id, b.run_id) || a.round - b.round || compareText(a.kind, b.kind) || compareText(a.scope, b.scope);
}
const totalsOf = (r: RankRow): Totals => ({ examples: r.rank, reviews: r.reviews_through, agreed: r.agreed_through, blocked: r.blocked_through, protected_errors: r.errors_through });

/** A node's outcomes from its stale one on (named parameters: the node and the stale outcome's key). */
const STALE_ON = `workflow_id = @workflow_id AND node = @node AND (${ORDER}) >= (@ts, @run_id, @round, @kind, @scope)`;
/** Each outcome of `source` (in order) gets its rank and running totals, counted on from the row before's (@rank, @reviews…). */
const rerankOf = (source: string) =>
  `UPDATE promotion_outcomes AS o SET rank = r.rank, reviews_through = r.reviews, agreed_through = r.agreed, blocked_through = r.blocked, errors_through = r.errors
   FROM (SELECT id,
           @rank + row_number() OVER w AS rank,
           @reviews + sum(kind = 'review') OVER w AS reviews,
           @agreed + sum(agreed) OVER w AS agreed,
           @blocked + sum(blocked) OVER w AS blocked,
           @errors + sum(protected_error) OVER w AS errors
         FROM ${source}
         WINDOW w AS (ORDER BY ${ORDER} ROWS UNBOUNDED PRECEDING)) AS r
   WHERE o.id = r.id`;

export class PromotionStore implements Fold {
  readonly types = ['run.started', 'agent.started', 'workflow.started', 'tools.snapshot', 'round.completed', 'learning.example', 'intervention.answered'] as const;
  private readonly sql;

  /** `catchUp`: folds what was appended since the last fold (history-fold.ts), before every read. */
  constructor(
    private readonly db: HistoryDb,
    private readonly catchUp: () => Promise<void>,
  ) {
    this.sql = {
      runSpec: db.prepare<[string], { spec_id: string | null }>('SELECT spec_id FROM runs WHERE run_id = ?'),
      getRun: db.prepare<[string], { workflow_id: string; facts: string }>('SELECT workflow_id, facts FROM promotion_runs WHERE run_id = ?'),
      putRun: db.prepare<[string, string, string]>('INSERT INTO promotion_runs (run_id, workflow_id, facts) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET workflow_id = excluded.workflow_id, facts = excluded.facts'),
      getRound: db.prepare<[string], { facts: string }>('SELECT facts FROM promotion_rounds WHERE id = ?'),
      putRound: db.prepare<[string, string, string]>('INSERT INTO promotion_rounds (id, run_id, facts) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET facts = excluded.facts'),
      runRounds: db.prepare<[string], { id: string; facts: string }>('SELECT id, facts FROM promotion_rounds WHERE run_id = ?'),
      getOutcome: db.prepare<[string], OutcomeRow>('SELECT id, workflow_id, node, ts, run_id, round, kind, scope, agreed, blocked, protected_error FROM promotion_outcomes WHERE id = ?'),
      deleteOutcome: db.prepare<[string]>('DELETE FROM promotion_outcomes WHERE id = ?'),
      insertOutcome: db.prepare<OutcomeRow>(
        'INSERT INTO promotion_outcomes (id, workflow_id, node, ts, run_id, round, kind, scope, agreed, blocked, protected_error) VALUES (@id, @workflow_id, @node, @ts, @run_id, @round, @kind, @scope, @agreed, @blocked, @protected_error)',
      ),
      runOutcomes: db.prepare<[string], OutcomeRow>('SELECT id, workflow_id, node, ts, run_id, round, kind, scope, agreed, blocked, protected_error FROM promotion_outcomes WHERE run_id = ?'),
      deleteRunOutcomes: db.prepare<[string]>('DELETE FROM promotion_outcomes WHERE run_id = ?'),
      deleteRunRounds: db.prepare<[string]>('DELETE FROM promotion_rounds WHERE run_id = ?'),
      deleteRunFacts: db.prepare<[string]>('DELETE FROM promotion_runs WHERE run_id = ?'),
      staleFrom: db.prepare<[string, string], { stale_from: string | null }>('SELECT stale_from FROM promotion_subjects WHERE workflow_id = ? AND node = ?'),
      markStale: db.prepare<[string, string, string | null]>(
        'INSERT INTO promotion_subjects (workflow_id, node, stale_from) VALUES (?, ?, ?) ON CONFLICT (workflow_id, node) DO UPDATE SET stale_from = excluded.stale_from',
      ),
      before: db.prepare<[string, string, string, string, number, string, string], RankRow>(
        `SELECT rank, ts, reviews_through, agreed_through, blocked_through, errors_through FROM promotion_outcomes INDEXED BY promotion_order
         WHERE workflow_id = ? AND node = ? AND (${ORDER}) < (?, ?, ?, ?, ?) ORDER BY ${ORDER_DESC} LIMIT 1`,
      ),
      // One statement: each outcome from the stale one on gets its rank and running totals, added to the row before's.
      rerank: db.prepare<RerankParams>(rerankOf(`promotion_outcomes INDEXED BY promotion_order WHERE ${STALE_ON}`)),
      // The same, for the next `limit` outcomes from the stale one only (a background pass ranks a long node a piece at a time).
      rerankSome: db.prepare<RerankParams & { limit: number }>(rerankOf(`(SELECT * FROM promotion_outcomes INDEXED BY promotion_order WHERE ${STALE_ON} ORDER BY ${ORDER} LIMIT @limit)`)),
      // The outcome `offset` places after the stale one: where the ranks are stale once those before it are ranked.
      staleAfter: db.prepare<[string, string, string, string, number, string, string, number], OutcomeKey>(
        `SELECT ts, run_id, round, kind, scope FROM promotion_outcomes INDEXED BY promotion_order
         WHERE workflow_id = ? AND node = ? AND (${ORDER}) >= (?, ?, ?, ?, ?) ORDER BY ${ORDER} LIMIT 1 OFFSET ?`,
      ),
      firstStale: db.prepare<[], PromotionSubject & { stale_from: string }>('SELECT workflow_id, node, stale_from FROM promotion_subjects WHERE stale_from IS NOT NULL LIMIT 1'),
      last: db.prepare<[string, string], RankRow>(
        'SELECT rank, ts, reviews_through, agreed_through, blocked_through, errors_through FROM promotion_outcomes INDEXED BY promotion_rank WHERE workflow_id = ? AND node = ? ORDER BY rank DESC LIMIT 1',
      ),
      atRank: db.prepare<[string, string, number], RankRow>(
        'SELECT rank, ts, reviews_through, agreed_through, blocked_through, errors_through FROM promotion_outcomes INDEXED BY promotion_rank WHERE workflow_id = ? AND node = ? AND rank = ?',
      ),
      subjects: db.prepare<[string | null, string | null], PromotionSubject>(
        `SELECT s.workflow_id, s.node FROM promotion_subjects AS s WHERE (? IS NULL OR s.workflow_id = ?)
         AND EXISTS (SELECT 1 FROM promotion_outcomes AS o INDEXED BY promotion_rank WHERE o.workflow_id = s.workflow_id AND o.node = s.node) ORDER BY s.workflow_id, s.node`,
      ),
    };
  }

  /** The node's figures (`node` '': a workflow's own agent runs), after folding what is new. */
  async figures(workflowId: string, node: string, window: number, points: number): Promise<PromotionFigures> {
    await this.catchUp();
    return this.db.transaction(() => {
      this.rerankIfStale({ workflow_id: workflowId, node });
      const n = this.sql.last.get(workflowId, node)?.rank ?? 0;
      const windows = [...seriesWindows(n, window, points), { start: Math.max(0, n - window), end: n }];
      const rows = new Map<number, RankRow>();
      for (const rank of new Set(windows.flatMap((w) => [w.start, w.end]))) {
        const row = rank > 0 ? this.sql.atRank.get(workflowId, node, rank) : undefined;
        if (row) rows.set(rank, row);
      }
      const totalsAt = (rank: number) => (rank === 0 || !rows.has(rank) ? ZERO_TOTALS : totalsOf(rows.get(rank)!));
      const metrics = metricsBetween(totalsAt(Math.max(0, n - window)), totalsAt(n));
      const series = windows.slice(0, -1).flatMap((w) => {
        const end = rows.get(w.end);
        return end ? [{ ts: end.ts, ...metricsBetween(totalsAt(w.start), totalsOf(end)) }] : [];
      });
      return { outcomes: n, metrics, series };
    }).immediate();
  }

  /** The agent nodes with counted outcomes (of one workflow, or all), ordered by workflow and node. */
  async subjects(workflowId?: string): Promise<PromotionSubject[]> {
    await this.catchUp();
    return this.sql.subjects.all(workflowId ?? null, workflowId ?? null);
  }

  /** Deleted runs stop counting: their rows go and their nodes are stale from their first outcome. Call in the transaction that deletes them. */
  forget(runIds: readonly string[]): void {
    const stale = new Map<string, { subject: PromotionSubject; from: OutcomeKey }>();
    for (const runId of runIds) {
      for (const row of this.sql.runOutcomes.all(runId)) noteStale(stale, row);
      this.sql.deleteRunOutcomes.run(runId);
      this.sql.deleteRunRounds.run(runId);
      this.sql.deleteRunFacts.run(runId);
    }
    this.markStale(stale);
  }

  /** A chunk of events, in position order (history-fold.ts). */
  fold(events: readonly RunEvent[]): void {
    const runIds = [...new Set(events.filter((e) => isStartEvent(e) || isRoundEvent(e) || e.type === 'workflow.started').map((e) => e.run_id))];
    // Runs: dry or not, and the workflow they count for (a start folded after their rounds moves them).
    const runs = new Map<string, { facts: RunFacts; workflow_id: string }>();
    const moved: string[] = [];
    for (const runId of runIds) {
      const prior = this.sql.getRun.get(runId);
      let facts: RunFacts | undefined = prior ? RunFacts.parse(JSON.parse(prior.facts)) : undefined;
      for (const e of events) if (isStartEvent(e) && e.run_id === runId) facts = foldRunFacts(facts, e);
      const next = { facts: facts ?? { run_id: runId, dry_run: false }, workflow_id: this.sql.runSpec.get(runId)?.spec_id ?? '' };
      runs.set(runId, next);
      const text = JSON.stringify(next.facts);
      if (!prior || prior.facts !== text || prior.workflow_id !== next.workflow_id) {
        this.sql.putRun.run(runId, next.workflow_id, text);
        if (prior) moved.push(runId);
      }
    }
    // Rounds: fold the chunk into their facts; those that changed are counted again.
    const byRound = new Map<string, RunEvent[]>();
    for (const e of events) {
      if (!isRoundEvent(e)) continue;
      const id = roundKeyId(roundKeyOf(e));
      const round = byRound.get(id);
      if (round) round.push(e);
      else byRound.set(id, [e]);
    }
    const recount = new Map<string, RoundFacts>();
    for (const [id, roundEvents] of byRound) {
      const prior = this.sql.getRound.get(id);
      let facts: RoundFacts | undefined = prior ? RoundFacts.parse(JSON.parse(prior.facts)) : undefined;
      for (const e of roundEvents) if (isRoundEvent(e)) facts = foldRoundFacts(facts, e);
      if (!facts) continue;
      const text = JSON.stringify(facts);
      if (prior?.facts === text) continue;
      this.sql.putRound.run(id, facts.run_id, text);
      recount.set(id, facts);
    }
    // Every round of a run whose workflow or dry-run flag changed counts again.
    for (const runId of moved) {
      for (const row of this.sql.runRounds.all(runId)) if (!recount.has(row.id)) recount.set(row.id, RoundFacts.parse(JSON.parse(row.facts)));
    }
    const stale = new Map<string, { subject: PromotionSubject; from: OutcomeKey }>();
    for (const [id, facts] of recount) {
      const run = runs.get(facts.run_id) ?? this.storedRun(facts.run_id);
      const wanted = new Map<string, OutcomeRow>();
      if (run && run.workflow_id !== '') {
        for (const o of roundOutcomes(facts, run.facts)) {
          const outcomeId = `${id}\u0000${o.kind}`;
          wanted.set(outcomeId, {
            id: outcomeId,
            workflow_id: run.workflow_id,
            node: nodeOfScope(facts.scope),
            ts: o.ts,
            run_id: facts.run_id,
            round: facts.round,
            kind: o.kind,
            scope: facts.scope,
            agreed: o.agreed ? 1 : 0,
            blocked: o.blocked ? 1 : 0,
            protected_error: o.protected_error ? 1 : 0,
          });
        }
      }
      for (const kind of ['review', 'shadow'] as const) {
        const outcomeId = `${id}\u0000${kind}`;
        const old = this.sql.getOutcome.get(outcomeId);
        const next = wanted.get(outcomeId);
        if (old && next && sameOutcome(old, next)) continue;
        if (old) {
          this.sql.deleteOutcome.run(outcomeId);
          noteStale(stale, old);
        }
        if (next) {
          this.sql.insertOutcome.run(next);
          noteStale(stale, next);
        }
      }
    }
    this.markStale(stale);
  }

  private storedRun(runId: string): { facts: RunFacts; workflow_id: string } | undefined {
    const row = this.sql.getRun.get(runId);
    return row ? { facts: RunFacts.parse(JSON.parse(row.facts)), workflow_id: row.workflow_id } : undefined;
  }

  /** Each node stale from the lower of its stored mark and this one. */
  private markStale(stale: ReadonlyMap<string, { subject: PromotionSubject; from: OutcomeKey }>): void {
    for (const { subject, from } of stale.values()) {
      const stored = this.storedStale(subject);
      const lower = stored && compareKeys(stored, from) <= 0 ? stored : from;
      this.sql.markStale.run(subject.workflow_id, subject.node, JSON.stringify(lower));
    }
  }

  private storedStale(subject: PromotionSubject): OutcomeKey | undefined {
    const text = this.sql.staleFrom.get(subject.workflow_id, subject.node)?.stale_from;
    return text ? (JSON.parse(text) as OutcomeKey) : undefined;
  }

  /**
   * Ranks up to `limit` stale outcomes of one node, what its next read would otherwise rank whole (after a long
   * fold or a deletion: 0.5–0.8 s for 100,000 outcomes). True while some node is left stale. Call in a transaction.
   */
  settle(limit: number): boolean {
    const stale = this.sql.firstStale.get();
    if (!stale) return false;
    const subject = { workflow_id: stale.workflow_id, node: stale.node };
    const from = JSON.parse(stale.stale_from) as OutcomeKey;
    const next = this.sql.staleAfter.get(subject.workflow_id, subject.node, ...keyParams(from), limit);
    this.sql.rerankSome.run({ ...this.rankParams(subject, from), limit });
    this.sql.markStale.run(subject.workflow_id, subject.node, next ? JSON.stringify(next) : null);
    return true;
  }

  private rerankIfStale(subject: PromotionSubject): void {
    const from = this.storedStale(subject);
    if (!from) return;
    this.sql.rerank.run(this.rankParams(subject, from));
    this.sql.markStale.run(subject.workflow_id, subject.node, null);
  }

  /** Ranks from `from` on continue from the totals of the outcome before it. */
  private rankParams(subject: PromotionSubject, from: OutcomeKey): RerankParams {
    const base = this.sql.before.get(subject.workflow_id, subject.node, ...keyParams(from));
    const t = base ? totalsOf(base) : ZERO_TOTALS;
    return { rank: t.examples, reviews: t.reviews, agreed: t.agreed, blocked: t.blocked, errors: t.protected_errors, ...subject, ...from };
  }
}

function noteStale(stale: Map<string, { subject: PromotionSubject; from: OutcomeKey }>, row: OutcomeRow): void {
  const subject = { workflow_id: row.workflow_id, node: row.node };
  const key: OutcomeKey = { ts: row.ts, run_id: row.run_id, round: row.round, kind: row.kind, scope: row.scope };
  const prior = stale.get(subjectId(subject));
  if (!prior || compareKeys(key, prior.from) < 0) stale.set(subjectId(subject), { subject, from: key });
}

/** Equal as an outcome: where it sorts, whose it is and what it counts. */
function sameOutcome(a: OutcomeRow, b: OutcomeRow): boolean {
  return a.workflow_id === b.workflow_id && a.node === b.node && compareKeys(a, b) === 0 && a.agreed === b.agreed && a.blocked === b.blocked && a.protected_error === b.protected_error;
}
