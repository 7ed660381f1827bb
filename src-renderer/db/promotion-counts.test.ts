import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventId, RunEvent } from '@shared/contracts/events';
import { DeploymentSettings } from '@shared/contracts/profiles';
import type { Decision } from '@shared/contracts/decision';
import { SupervisionSpec } from '@shared/contracts/spec';
import { metricsSeries, promotionMetrics, reviewOutcomesFromEvents, type PromotionSettings } from '@shared/policy/promotion';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import { countPromotionPerNode, forgetPromotionRuns, promotionNodes, readPromotion } from './promotion-counts';
import { nodeOfScope } from '@shared/policy/promotion-facts';
import { rowsReadDb } from '../testing/rows-read';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type EventInput = DistributiveOmit<z.input<typeof RunEvent>, 'id' | 'run_id' | 'seq' | 'ts'>;

const SUPERVISION = SupervisionSpec.parse({});
const MODELS = { student: 'replay', teacher: 'replay' };
const TOOLS = [
  { name: 'read_text_file', server: 'fs', schema_hash: 'h-read', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', server: 'fs', schema_hash: 'h-write', effect: 'irreversible_write', effect_source: 'shipped' },
] as const;
const READ: Decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'a.md' } };
const WRITE: Decision = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'a.md', content: 'x' } };

const Round = fc.record({
  round: fc.nat(3),
  node: fc.constantFrom('reader', 'writer'),
  kind: fc.constantFrom('reviewed', 'reviewed', 'teacher', 'unreviewed'),
  rule: fc.constantFrom('protected_effect', 'review_all', 'sampled', 'validation_failed'),
  ruling: fc.constantFrom('accept', 'accept', 'replace', 'block', 'escalate', 'unusable'),
  learning: fc.boolean(),
  record: fc.nat(3).map((n) => n > 0),
  answer: fc.constantFrom(undefined, 'approve', 'reject'),
  agree: fc.boolean(),
  write: fc.boolean(),
  pause: fc.nat(2),
});
type Round = typeof Round extends fc.Arbitrary<infer R> ? R : never;
const Run = fc.record({
  workflow: fc.constantFrom('wf-a', 'wf-b'),
  graph: fc.boolean(),
  started: fc.nat(4).map((n) => n > 0),
  dry: fc.nat(4).map((n) => n === 0),
  start: fc.nat(6),
  rounds: fc.array(Round, { maxLength: 6 }),
});
type Run = typeof Run extends fc.Arbitrary<infer R> ? R : never;

const T0 = Date.UTC(2026, 4, 1);
/** One run's events as the engine writes them; clocks start close together, so runs share instants. */
const runId = (i: number) => `run-${String(i).padStart(6, '0')}`;
function runEvents(spec: Run, i: number): RunEvent[] {
  const id = runId(i);
  const events: RunEvent[] = [];
  let clock = spec.start;
  const emit = (payload: EventInput, node?: string) => {
    const seq = events.length;
    events.push(RunEvent.parse({ ...payload, ...(node ? { invocation_id: node } : {}), id: eventId(id, seq), run_id: id, seq, ts: new Date(T0 + clock * 1000).toISOString() }));
  };
  const start = { spec_id: spec.workflow, spec_name: spec.workflow, task: 't', supervision: SUPERVISION, models: MODELS, dry_run: spec.dry };
  if (spec.graph) {
    emit({ type: 'workflow.started', workflow_id: spec.workflow, workflow_name: spec.workflow, nodes: [{ id: 'reader', kind: 'agent' }, { id: 'writer', kind: 'agent' }], inputs: {} });
    if (spec.started) for (const node of ['reader', 'writer']) emit({ type: 'agent.started', ...start }, node);
  } else if (spec.started) emit({ type: 'run.started', ...start });
  for (const r of spec.rounds) {
    clock += r.pause;
    const node = spec.graph ? r.node : undefined;
    emitRound(r, (p) => emit(p, node));
  }
  return events;
}

function emitRound(r: Round, emit: (p: EventInput) => void): void {
  const candidate = r.write ? WRITE : READ;
  emit({ type: 'tools.snapshot', round: r.round, hash: 'h', tools: [...TOOLS] });
  if (r.kind === 'teacher') {
    emit({ type: 'round.completed', round: r.round, record: { round: r.round, proposer: 'teacher', candidate: { parsed: { raw: READ, tool_call_count: 1 } }, review: { required: false, rule: 'teacher_proposed' }, verdicts: [], selected: { source: 'teacher', decision: READ }, outcome: 'executed' } });
    emit({ type: 'learning.example', round: r.round, kind: 'shadow', context: [], student_candidate: candidate, final_decision: READ, reason_codes: [], agreement: r.agree, models: MODELS });
    return;
  }
  if (r.kind === 'unreviewed') {
    emit({ type: 'round.completed', round: r.round, record: { round: r.round, proposer: 'student', candidate: { parsed: { raw: candidate, tool_call_count: 1 } }, review: { required: false, rule: 'not_required' }, verdicts: [], selected: { source: 'student', decision: candidate }, outcome: 'executed' } });
    return;
  }
  const ruling = r.ruling;
  const verdict = ruling === 'unusable' ? undefined : { verdict: ruling, reason_codes: ruling === 'accept' ? [] : ['unsafe_effect' as const], explanation: `teacher says ${ruling}`, ...(ruling === 'replace' ? { replacement: { decision_type: 'complete', output: 'done' } } : {}) };
  const outcome = { accept: 'executed', replace: 'delivered', block: 'blocked', escalate: 'escalated', unusable: 'blocked' } as const;
  if (r.record || !verdict) {
    emit({
      type: 'round.completed',
      round: r.round,
      record: {
        round: r.round,
        proposer: 'student',
        candidate: { parsed: { raw: candidate, tool_call_count: 1 } },
        review: { required: true, rule: r.rule },
        verdicts: verdict ? [{ attempt: 1, verdict, usable: true }] : [{ attempt: 1, usable: false, problem: 'not JSON' }],
        ...(verdict ? { verdict } : {}),
        outcome: outcome[ruling],
        ...(ruling === 'unusable' ? { reason: 'verdict_unusable' } : {}),
      },
    });
  }
  if (verdict && r.learning) {
    emit({ type: 'learning.example', round: r.round, kind: 'review', context: [], rule: r.rule, student_candidate: candidate, verdict, reason_codes: verdict.reason_codes, agreement: ruling === 'accept', models: MODELS });
  }
  if (r.answer) emit({ type: 'intervention.answered', round: r.round, intervention_id: `i-${r.round}`, answer: { action: r.answer } });
}

const SETTINGS = DeploymentSettings.parse({}).promotion;
const names: string[] = [];
afterEach(async () => {
  for (const name of names.splice(0)) await new StewardDb(name).delete();
});
async function freshDb(): Promise<StewardDb> {
  const name = `steward-promotion-${Math.random().toString(36).slice(2)}`;
  names.push(name);
  const db = new StewardDb(name);
  await db.open();
  return db;
}

/** Every agent node a card may be asked about: an agent run's own ('') and a workflow run's two. */
const NODES = ['', 'reader', 'writer'] as const;

/** What the card computed before: every event of the workflow's runs, scanned, the node's outcomes only. */
async function scanned(db: StewardDb, workflowId: string, all: readonly RunEvent[], settings: PromotionSettings, points: number, node = '') {
  const runIds = new Set((await db.runs.where('workflow_id').equals(workflowId).toArray()).map((r) => r.run_id));
  const outcomes = reviewOutcomesFromEvents(all.filter((e) => runIds.has(e.run_id))).filter((o) => nodeOfScope(o.invocation_id ?? '') === node);
  return { outcomes: outcomes.length, metrics: promotionMetrics(outcomes, settings), series: metricsSeries(outcomes, settings, points) };
}

describe('promotion figures kept as events are stored', () => {
  it('equal the scan of every event of the workflow’s runs, for any runs, any arrival order and batching, replays included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(Run, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        async (runs, seed, batch, window, points) => {
          const all = runs.flatMap(runEvents);
          // Any arrival order, in batches, with a few batches pushed again (the host re-sends what was not acked).
          const order = fc.sample(fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }), { numRuns: 1, seed })[0]!;
          const db = await freshDb();
          for (let i = 0; i < order.length; i += batch) {
            const chunk = order.slice(i, i + batch);
            await ingestEvents(db, chunk);
            if ((i / batch) % 3 === 1) await ingestEvents(db, chunk);
          }
          const settings = { ...SETTINGS, window };
          for (const wf of ['wf-a', 'wf-b']) {
            for (const node of NODES) expect(await readPromotion(db, wf, window, points, node)).toEqual(await scanned(db, wf, all, settings, points, node));
          }
          db.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the card reads a bounded number of rows however long the history: 2 per chart point and the window’s ends', async () => {
    const db = await freshDb();
    const runs: Run[] = Array.from({ length: 40 }, (_, i) => ({
      workflow: 'wf-a',
      graph: false,
      started: true,
      dry: false,
      start: i * 100,
      rounds: Array.from({ length: 8 }, (__, round) => ({ round, node: 'reader', kind: 'reviewed', rule: 'sampled', ruling: round % 3 ? 'accept' : 'block', learning: true, record: true, answer: undefined, agree: true, write: false, pause: 1 })),
    }));
    await ingestEvents(db, runs.flatMap(runEvents));
    let read = 0;
    const counted = rowsReadDb(db.name, 'promotion_outcomes', () => (read += 1));
    await counted.open();
    const figures = await readPromotion(counted, 'wf-a', 50, 10);
    counted.close();
    expect(figures.outcomes).toBe(320);
    expect(figures.metrics.examples).toBe(50);
    expect(figures.series).toHaveLength(10);
    expect(read).toBeLessThanOrEqual(2 * 10 + 2);
    db.close();
  });

  it('a batch of runs new to the page reads back neither their rounds nor outcomes they cannot have yet (a fresh profile’s backfill)', async () => {
    const reviewedRun = (i: number): Run => ({
      workflow: 'wf-a',
      graph: false,
      started: true,
      dry: false,
      start: i * 100,
      rounds: Array.from({ length: 4 }, (_, round) => ({ round, node: 'reader', kind: 'reviewed', rule: 'sampled', ruling: 'accept', learning: true, record: true, answer: undefined, agree: true, write: false, pause: 1 })),
    });
    const first = Array.from({ length: 10 }, (_, i) => runEvents(reviewedRun(i), i)).flat();
    const next = Array.from({ length: 10 }, (_, i) => runEvents(reviewedRun(10 + i), 10 + i)).flat();
    const db = await freshDb();
    await ingestEvents(db, first);
    const seen = { outcomeKeys: 0, roundKeys: 0, roundQueries: 0 };
    const outcomes = rowsReadDb(db.name, 'promotion_outcomes', () => undefined, (r) => (seen.outcomeKeys += r.kind === 'get' ? r.keys : 0));
    await outcomes.open();
    await ingestEvents(outcomes, next.slice(0, next.length / 2));
    outcomes.close();
    const rounds = rowsReadDb(db.name, 'promotion_rounds', () => undefined, (r) => {
      if (r.kind === 'get') seen.roundKeys += r.keys;
      if (r.kind === 'query') seen.roundQueries += 1;
    });
    await rounds.open();
    await ingestEvents(rounds, next.slice(next.length / 2));
    rounds.close();
    expect(seen).toEqual({ outcomeKeys: 0, roundKeys: 0, roundQueries: 0 });
    // And the figures are those of every run.
    expect(await readPromotion(db, 'wf-a', 500, 5)).toEqual(await scanned(db, 'wf-a', [...first, ...next], { ...SETTINGS, window: 500 }, 5));
    db.close();
  });

  it('a dry run’s rounds and an approved escalation never count against the student on the card', async () => {
    const db = await freshDb();
    const reviewed = (ruling: Round['ruling'], answer?: Round['answer']): Round => ({ round: 0, node: 'reader', kind: 'reviewed', rule: 'protected_effect', ruling, learning: true, record: true, answer, agree: false, write: true, pause: 1 });
    const dry: Run = { workflow: 'wf-a', graph: false, started: true, dry: true, start: 0, rounds: [reviewed('block')] };
    const approved: Run = { workflow: 'wf-a', graph: false, started: true, dry: false, start: 10, rounds: [reviewed('escalate', 'approve')] };
    await ingestEvents(db, [...runEvents(dry, 0), ...runEvents(approved, 1)]);
    const figures = await readPromotion(db, 'wf-a', 50, 10);
    expect(figures.outcomes).toBe(1);
    expect(figures.metrics.protected_errors).toBe(0);
    db.close();
  });

  it('a deleted run stops counting: the figures are those of the runs left', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Run, { minLength: 2, maxLength: 5 }), fc.nat(4), async (runs, k) => {
        const traces = runs.map(runEvents);
        const db = await freshDb();
        await ingestEvents(db, traces.flat());
        const gone = runId(k % traces.length);
        await db.transaction('rw', [db.runs, db.promotion_runs, db.promotion_rounds, db.promotion_outcomes], async () => {
          await forgetPromotionRuns(db, [gone]);
          await db.runs.delete(gone);
        });
        const left = traces.flat().filter((e) => e.run_id !== gone);
        for (const wf of ['wf-a', 'wf-b']) for (const node of NODES) expect(await readPromotion(db, wf, 3, 4, node)).toEqual(await scanned(db, wf, left, { ...SETTINGS, window: 3 }, 4, node));
        db.close();
      }),
      { numRuns: 25 },
    );
  });

  it('counts per agent node: a workflow’s two agent nodes get their own figures (issue 29)', async () => {
    const db = await freshDb();
    const round = (n: number, node: Round['node'], ruling: Round['ruling'], write = false): Round => ({ round: n, node, kind: 'reviewed', rule: write ? 'protected_effect' : 'sampled', ruling, learning: true, record: true, answer: undefined, agree: false, write, pause: 1 });
    // The reader: 3 reviewed rounds, all accepted. The writer: 2 reviewed rounds, one blocked write, one replaced write.
    const first: Run = { workflow: 'wf-a', graph: true, started: true, dry: false, start: 0, rounds: [round(0, 'reader', 'accept'), round(1, 'reader', 'accept'), round(0, 'writer', 'block', true)] };
    const second: Run = { workflow: 'wf-a', graph: true, started: true, dry: false, start: 20, rounds: [round(0, 'reader', 'accept'), round(0, 'writer', 'replace', true)] };
    // An agent run of another workflow: its own one node ('').
    const single: Run = { workflow: 'wf-b', graph: false, started: true, dry: false, start: 40, rounds: [round(0, 'reader', 'block')] };
    await ingestEvents(db, [...runEvents(first, 0), ...runEvents(second, 1), ...runEvents(single, 2)]);

    const reader = await readPromotion(db, 'wf-a', 50, 10, 'reader');
    const writer = await readPromotion(db, 'wf-a', 50, 10, 'writer');
    expect(reader.outcomes).toBe(3);
    expect(reader.metrics).toMatchObject({ examples: 3, agreement_rate: 1, block_rate: 0, protected_errors: 0 });
    expect(writer.outcomes).toBe(2);
    expect(writer.metrics).toMatchObject({ examples: 2, agreement_rate: 0, block_rate: 0.5, protected_errors: 2 });
    // The workflow as a whole is no longer a subject: its nodes are.
    expect((await readPromotion(db, 'wf-a', 50, 10)).outcomes).toBe(0);
    expect((await readPromotion(db, 'wf-b', 50, 10)).metrics).toMatchObject({ examples: 1, block_rate: 1 });
    expect(await promotionNodes(db)).toEqual([
      { workflow_id: 'wf-a', node: 'reader' },
      { workflow_id: 'wf-a', node: 'writer' },
      { workflow_id: 'wf-b', node: '' },
    ]);
    expect(await promotionNodes(db, 'wf-a')).toEqual([
      { workflow_id: 'wf-a', node: 'reader' },
      { workflow_id: 'wf-a', node: 'writer' },
    ]);
    db.close();
  });

  it('the v8 recount turns rows counted per workflow into per-node figures, equal to counting afresh', async () => {
    const db = await freshDb();
    const runs: Run[] = [
      { workflow: 'wf-a', graph: true, started: true, dry: false, start: 0, rounds: [0, 1, 2, 3].map((n) => ({ round: n, node: n % 2 ? 'writer' : 'reader', kind: 'reviewed', rule: 'sampled', ruling: n === 3 ? 'block' : 'accept', learning: true, record: true, answer: undefined, agree: true, write: false, pause: 1 })) },
    ];
    await ingestEvents(db, runs.flatMap(runEvents));
    const fresh = await Promise.all(['reader', 'writer'].map((node) => readPromotion(db, 'wf-a', 50, 10, node)));
    // As a v7 page kept them: one rank sequence per workflow, no node.
    const rows = (await db.promotion_outcomes.toArray()).sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    await db.promotion_outcomes.bulkPut(rows.map((r, i) => ({ ...r, node: undefined as unknown as string, rank: i + 1 })));
    await countPromotionPerNode(db.promotion_outcomes);
    expect(await Promise.all(['reader', 'writer'].map((node) => readPromotion(db, 'wf-a', 50, 10, node)))).toEqual(fresh);
    expect(fresh.map((f) => f.outcomes)).toEqual([2, 2]);
    db.close();
  });
});
