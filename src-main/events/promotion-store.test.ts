import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { DeploymentSettings } from '@shared/contracts/profiles';
import { metricsSeries, promotionMetrics, reviewOutcomesFromEvents, type PromotionSettings } from '@shared/policy/promotion';
import { nodeOfScope } from '@shared/policy/promotion-facts';
import { reviewedRun, runEvents, runId, Run, type Round } from '../../test-support/promotion-runs';
import { EventJournal } from './event-journal';
import { historyPath, SCHEMA_VERSION } from './history-db';

const SETTINGS = DeploymentSettings.parse({}).promotion;
/** Every agent node a card may be asked about: an agent run's own ('') and a workflow run's two. */
const NODES = ['', 'reader', 'writer'] as const;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function freshJournal(): EventJournal {
  const dir = mkdtempSync(join(tmpdir(), 'steward-promotion-'));
  dirs.push(dir);
  return EventJournal.open(historyPath(dir), { log: () => undefined });
}

/** What the card computed before any figures were kept: every event of the workflow's runs, scanned, the node's outcomes only. */
function scanned(journal: EventJournal, workflowId: string, all: readonly RunEvent[], settings: PromotionSettings, points: number, node = '') {
  const runIds = new Set(journal.runsPage({ workflow: workflowId, limit: 1_000 }).runs.map((r) => r.run.run_id));
  const outcomes = reviewOutcomesFromEvents(all.filter((e) => runIds.has(e.run_id))).filter((o) => nodeOfScope(o.invocation_id ?? '') === node);
  return { outcomes: outcomes.length, metrics: promotionMetrics(outcomes, settings), series: metricsSeries(outcomes, settings, points) };
}

describe('promotion figures kept by the host', () => {
  it('equal the scan of every event of the workflow’s runs, for any runs, any append order and batching, folded at any point', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(Run, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        async (runs, seed, batch, window, points, askBetween) => {
          const all = runs.flatMap(runEvents);
          // Any arrival order (an import may bring a run's events in any order), in batches, some pushed twice.
          const order = fc.sample(fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }), { numRuns: 1, seed })[0]!;
          const journal = freshJournal();
          for (let i = 0, b = 0; i < order.length; i += batch, b++) {
            const chunk = order.slice(i, i + batch);
            journal.append(chunk);
            if (b % 3 === 1) journal.append(chunk);
            // Asked between appends: the fold continues from where it stood.
            if (askBetween[b % askBetween.length]) await journal.promotion.figures('wf-a', '', window, points);
          }
          const settings = { ...SETTINGS, window };
          for (const wf of ['wf-a', 'wf-b']) {
            for (const node of NODES) expect(await journal.promotion.figures(wf, node, window, points)).toEqual(scanned(journal, wf, all, settings, points, node));
          }
          journal.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a deleted run stops counting, whenever it was folded: the figures are those of the runs left', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Run, { minLength: 2, maxLength: 5 }), fc.nat(4), fc.boolean(), async (runs, k, foldFirst) => {
        const traces = runs.map(runEvents);
        const journal = freshJournal();
        journal.append(traces.flat());
        if (foldFirst) for (const node of NODES) await journal.promotion.figures('wf-a', node, 3, 4);
        const gone = runId(k % traces.length);
        await journal.remove([gone]);
        const left = traces.flat().filter((e) => e.run_id !== gone);
        for (const wf of ['wf-a', 'wf-b']) for (const node of NODES) expect(await journal.promotion.figures(wf, node, 3, 4)).toEqual(scanned(journal, wf, left, { ...SETTINGS, window: 3 }, 4, node));
        journal.close();
      }),
      { numRuns: 25 },
    );
  });

  it('ranked a piece at a time in the background (any piece size, between any appends and deletions), the figures are the scan’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(Run, { minLength: 2, maxLength: 5 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.nat(3), { minLength: 1, maxLength: 8 }),
        fc.nat(4),
        async (runs, piece, settleBetween, k) => {
          const traces = runs.map(runEvents);
          const journal = freshJournal();
          const settle = (times: number) => {
            for (let i = 0; i < times && (journal.fold.foldChunk(7) || journal.fold.settleChunk(piece)); i += 1);
          };
          traces.forEach((trace, i) => {
            journal.append(trace);
            settle(settleBetween[i % settleBetween.length]!);
          });
          // A deletion marks the nodes stale again from its first outcome; a few pieces, then the rest by a read.
          const gone = runId(k % traces.length);
          await journal.remove([gone]);
          settle(settleBetween[0]!);
          const left = traces.flat().filter((e) => e.run_id !== gone);
          for (const wf of ['wf-a', 'wf-b']) for (const node of NODES) expect(await journal.promotion.figures(wf, node, 3, 4)).toEqual(scanned(journal, wf, left, { ...SETTINGS, window: 3 }, 4, node));
          // Settled to the end, nothing is left stale and the figures are the same.
          while (journal.fold.settleChunk(piece));
          for (const wf of ['wf-a', 'wf-b']) for (const node of NODES) expect(await journal.promotion.figures(wf, node, 3, 4)).toEqual(scanned(journal, wf, left, { ...SETTINGS, window: 3 }, 4, node));
          journal.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a dry run’s rounds and an approved escalation never count against the student', async () => {
    const journal = freshJournal();
    const reviewed = (ruling: Round['ruling'], answer?: Round['answer']): Round => ({ round: 0, node: 'reader', kind: 'reviewed', rule: 'protected_effect', ruling, learning: true, record: true, answer, agree: false, write: true, pause: 1 });
    const dry: Run = { workflow: 'wf-a', graph: false, started: true, dry: true, start: 0, rounds: [reviewed('block')] };
    const approved: Run = { workflow: 'wf-a', graph: false, started: true, dry: false, start: 10, rounds: [reviewed('escalate', 'approve')] };
    journal.append([...runEvents(dry, 0), ...runEvents(approved, 1)]);
    const figures = await journal.promotion.figures('wf-a', '', 50, 10);
    expect(figures.outcomes).toBe(1);
    expect(figures.metrics.protected_errors).toBe(0);
    journal.close();
  });

  it('counts per agent node: a workflow’s two agent nodes get their own figures, and are listed (issue 29)', async () => {
    const journal = freshJournal();
    const round = (n: number, node: Round['node'], ruling: Round['ruling'], write = false): Round => ({ round: n, node, kind: 'reviewed', rule: write ? 'protected_effect' : 'sampled', ruling, learning: true, record: true, answer: undefined, agree: false, write, pause: 1 });
    const first: Run = { workflow: 'wf-a', graph: true, started: true, dry: false, start: 0, rounds: [round(0, 'reader', 'accept'), round(1, 'reader', 'accept'), round(0, 'writer', 'block', true)] };
    const second: Run = { workflow: 'wf-a', graph: true, started: true, dry: false, start: 20, rounds: [round(0, 'reader', 'accept'), round(0, 'writer', 'replace', true)] };
    const single: Run = { workflow: 'wf-b', graph: false, started: true, dry: false, start: 40, rounds: [round(0, 'reader', 'block')] };
    journal.append([...runEvents(first, 0), ...runEvents(second, 1), ...runEvents(single, 2)]);

    const reader = await journal.promotion.figures('wf-a', 'reader', 50, 10);
    const writer = await journal.promotion.figures('wf-a', 'writer', 50, 10);
    expect(reader.outcomes).toBe(3);
    expect(reader.metrics).toMatchObject({ examples: 3, agreement_rate: 1, block_rate: 0, protected_errors: 0 });
    expect(writer.outcomes).toBe(2);
    expect(writer.metrics).toMatchObject({ examples: 2, agreement_rate: 0, block_rate: 0.5, protected_errors: 2 });
    // The workflow as a whole is not a subject: its nodes are.
    expect((await journal.promotion.figures('wf-a', '', 50, 10)).outcomes).toBe(0);
    expect((await journal.promotion.figures('wf-b', '', 50, 10)).metrics).toMatchObject({ examples: 1, block_rate: 1 });
    expect(await journal.promotion.subjects()).toEqual([
      { workflow_id: 'wf-a', node: 'reader' },
      { workflow_id: 'wf-a', node: 'writer' },
      { workflow_id: 'wf-b', node: '' },
    ]);
    expect(await journal.promotion.subjects('wf-a')).toEqual([
      { workflow_id: 'wf-a', node: 'reader' },
      { workflow_id: 'wf-a', node: 'writer' },
    ]);
    // A node whose runs are all deleted is no longer listed.
    await journal.remove([runId(2)]);
    expect(await journal.promotion.subjects()).toEqual([
      { workflow_id: 'wf-a', node: 'reader' },
      { workflow_id: 'wf-a', node: 'writer' },
    ]);
    journal.close();
  });

  it('a fold is lazy and incremental: appends fold nothing, a read folds only what is new, and reopening keeps what was folded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-promotion-'));
    dirs.push(dir);
    let journal = EventJournal.open(historyPath(dir), { log: () => undefined });
    const first = Array.from({ length: 10 }, (_, i) => runEvents(reviewedRun(i), i)).flat();
    journal.append(first);
    expect(journal.fold.foldedThrough).toBe(0);
    expect((await journal.promotion.figures('wf-a', '', 500, 5)).outcomes).toBe(40);
    expect(journal.fold.foldedThrough).toBe(journal.head);
    journal.close();

    journal = EventJournal.open(historyPath(dir), { log: () => undefined });
    const next = Array.from({ length: 10 }, (_, i) => runEvents(reviewedRun(10 + i), 10 + i)).flat();
    journal.append(next);
    expect(journal.fold.foldChunk(1_000_000)).toBe(false);
    // Folding the new runs read none of the old rounds back.
    const changes = journal.connection.prepare('SELECT count(*) AS c FROM promotion_rounds').get() as { c: number };
    expect(changes.c).toBe(80);
    expect(await journal.promotion.figures('wf-a', '', 500, 5)).toEqual(scanned(journal, 'wf-a', [...first, ...next], { ...SETTINGS, window: 500 }, 5));
    journal.close();
  });

  it('a history of schema 3 (before the promotion tables) gets them at its first open, and its figures count every event it held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-promotion-'));
    dirs.push(dir);
    const events = Array.from({ length: 6 }, (_, i) => runEvents(reviewedRun(i), i)).flat();
    let journal = EventJournal.open(historyPath(dir), { log: () => undefined });
    journal.append(events);
    for (const table of ['promotion_runs', 'promotion_rounds', 'promotion_outcomes', 'promotion_subjects']) journal.connection.exec(`DROP TABLE ${table}`);
    journal.connection.pragma('user_version = 3');
    journal.close();

    journal = EventJournal.open(historyPath(dir), { log: () => undefined });
    expect(journal.connection.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(await journal.promotion.figures('wf-a', '', 50, 10)).toEqual(scanned(journal, 'wf-a', events, SETTINGS, 10));
    journal.close();
  });

  it('a long history folds in chunks, and its figures read a bounded number of rows', async () => {
    const journal = freshJournal();
    const events = Array.from({ length: 40 }, (_, i) => runEvents(reviewedRun(i, 8), i)).flat();
    journal.append(events);
    let chunks = 0;
    while (journal.fold.foldChunk(50)) chunks++;
    expect(chunks).toBeGreaterThan(5);
    const figures = await journal.promotion.figures('wf-a', '', 50, 10);
    expect(figures.outcomes).toBe(320);
    expect(figures.metrics.examples).toBe(50);
    expect(figures.series).toHaveLength(10);
    expect(figures).toEqual(scanned(journal, 'wf-a', events, { ...SETTINGS, window: 50 }, 10));
    // The rows a read uses: the rank index, a point per rank (no scan of the node's outcomes).
    const plan = journal.connection.prepare("EXPLAIN QUERY PLAN SELECT rank FROM promotion_outcomes INDEXED BY promotion_rank WHERE workflow_id = 'wf-a' AND node = '' AND rank = 7").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING (COVERING )?INDEX promotion_rank/);
    journal.close();
  });
});
