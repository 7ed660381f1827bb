/**
 * bench/promotion-card — the Promotion card's figures for a workflow whose runs hold EVENTS events: read from the
 * kept figures (readPromotion, src-renderer/db/promotion-counts.ts: a few rows by rank) against what the card did
 * before (every event of the workflow's runs read, then reviewOutcomesFromEvents, promotionMetrics and
 * metricsSeries), in one run, in fake-indexeddb; median of SAMPLES. Also what keeping the figures costs the
 * ingest path: the same events stored in 500-event batches, ingestEvents whole against keepPromotionCounts alone.
 * Run: npx tsx --tsconfig tsconfig.test.json bench/promotion-card.ts (BENCH_EVENTS, BENCH_SAMPLES)
 */
import 'fake-indexeddb/auto';
import { performance } from 'node:perf_hooks';
import { eventId, RunEvent, type RunEventPayload } from '@shared/contracts/events';
import { DeploymentSettings } from '@shared/contracts/profiles';
import { SupervisionSpec } from '@shared/contracts/spec';
import { metricsSeries, promotionMetrics, reviewOutcomesFromEvents } from '@shared/policy/promotion';
import { runEvents, StewardDb } from '../src-renderer/db/db';
import { ingestEvents } from '../src-renderer/db/ingest-events';
import { keepPromotionCounts, promotionTables, readPromotion } from '../src-renderer/db/promotion-counts';
import { timedMedian } from './timed-median';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const ROUNDS_PER_RUN = 60;
const POINTS = 60;
const settings = DeploymentSettings.parse({}).promotion;
const MODELS = { student: 'ollama:qwen3:4b', teacher: 'ollama:qwen3:32b' };
const TOOLS = [
  { name: 'read_text_file', server: 'fs', schema_hash: 'h-read', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', server: 'fs', schema_hash: 'h-write', effect: 'irreversible_write', effect_source: 'shipped' },
  { name: 'list_directory', server: 'fs', schema_hash: 'h-list', effect: 'read', effect_source: 'shipped' },
] as const;
const text = (n: number, seed: number) => `${seed} `.repeat(Math.ceil(n / `${seed} `.length)).slice(0, n);

/** One supervised round as the engine writes it (11 events), the teacher accepting 4 of 5 and blocking the rest. */
function round(r: number, seed: number): RunEventPayload[] {
  const write = seed % 3 === 0;
  const candidate = write
    ? { decision_type: 'tool_call' as const, tool_name: 'write_file', arguments: { path: `notes/${seed}.md`, content: text(200, seed) } }
    : { decision_type: 'tool_call' as const, tool_name: 'read_text_file', arguments: { path: `notes/${seed}.md` } };
  const accept = seed % 5 !== 0;
  const verdict = accept ? { verdict: 'accept' as const, reason_codes: [], explanation: 'Fine.' } : { verdict: 'block' as const, reason_codes: ['unsafe_effect' as const], explanation: text(200, seed) };
  const reply = { text: JSON.stringify(candidate), tool_calls: [], model: MODELS.student };
  const review = { required: true, rule: write ? ('protected_effect' as const) : ('review_all' as const) };
  const selected = accept ? { source: 'student' as const, decision: candidate } : undefined;
  return [
    { type: 'tools.snapshot', round: r, hash: 'h', tools: [...TOOLS] },
    { type: 'round.started', round: r, proposer: 'student' },
    { type: 'candidate.proposed', round: r, reply, parsed: { raw: candidate, tool_call_count: 1 } },
    { type: 'candidate.validated', round: r, validation: { ok: true, issues: [] } },
    { type: 'review.decided', round: r, review },
    { type: 'verdict.received', round: r, attempt: { attempt: 1, reply: { text: JSON.stringify(verdict), tool_calls: [], model: MODELS.teacher }, verdict, usable: true } },
    ...(selected ? [{ type: 'decision.selected' as const, round: r, ...selected }] : []),
    {
      type: 'round.completed',
      round: r,
      record: {
        round: r,
        proposer: 'student',
        candidate: { reply, parsed: { raw: candidate, tool_call_count: 1 } },
        repairs: [],
        validation: { ok: true, issues: [] },
        review,
        verdicts: [{ attempt: 1, verdict, usable: true }],
        verdict,
        ...(selected ? { selected } : {}),
        outcome: accept ? 'executed' : 'blocked',
        ...(accept ? {} : { reason: 'verdict_block' }),
      },
    },
    {
      type: 'learning.example',
      round: r,
      kind: 'review',
      // A reference to the previous round's prompt plus what is new: the trace stays linear.
      context: [{ role: 'tool', content: text(300, seed) }],
      ...(r > 0 ? { context_ref: { round: r - 1, kind: 'review', start: 0, end: 2 + r } } : {}),
      rule: review.rule,
      student_candidate: candidate,
      verdict,
      ...(selected ? { final_decision: candidate } : {}),
      reason_codes: verdict.reason_codes,
      agreement: accept,
      models: MODELS,
    },
  ] as RunEventPayload[];
}

function runOf(i: number, workflowId: string): RunEvent[] {
  const runId = `run-${String(i).padStart(6, '0')}`;
  const t0 = Date.UTC(2026, 0, 1) + i * 3_600_000;
  const payloads: RunEventPayload[] = [
    { type: 'run.started', spec_id: workflowId, spec_name: workflowId, task: `Tidy the notes, pass ${i}`, supervision: SupervisionSpec.parse({ phase: 2 }), models: MODELS, exposure: [], profiles: {}, dry_run: false },
    ...Array.from({ length: ROUNDS_PER_RUN }, (_, r) => round(r, i * ROUNDS_PER_RUN + r)).flat(),
  ];
  return payloads.map((p, seq) => RunEvent.parse({ ...p, id: eventId(runId, seq), run_id: runId, seq, ts: new Date(t0 + seq * 1000).toISOString() }));
}

const events: RunEvent[] = [];
for (let i = 0; events.length < EVENTS; i++) events.push(...runOf(i, i % 10 === 9 ? 'other-workflow' : 'notes-cleanup'));
const runsOfCard = new Set(events.filter((e) => e.type === 'run.started' && e.spec_id === 'notes-cleanup').map((e) => e.run_id)).size;

const db = new StewardDb(`bench-promotion-${Date.now()}`);
await db.open();
let ingestMs = 0;
for (let i = 0; i < events.length; i += 500) {
  const t = performance.now();
  await ingestEvents(db, events.slice(i, i + 500));
  ingestMs += performance.now() - t;
}
// The counting alone, on a second database holding the same run rows (counting reads them).
const bare = new StewardDb(`bench-promotion-bare-${Date.now()}`);
await bare.open();
await bare.runs.bulkPut(await db.runs.toArray());
let countMs = 0;
for (let i = 0; i < events.length; i += 500) {
  const batch = events.slice(i, i + 500);
  const t = performance.now();
  await bare.transaction('rw', [bare.runs, ...promotionTables(bare)], () => keepPromotionCounts(bare, batch));
  countMs += performance.now() - t;
}

/** What the card did before: every event of the workflow's runs, scanned. */
async function scan() {
  const runIds = (await db.runs.where('workflow_id').equals('notes-cleanup').toArray()).map((r) => r.run_id);
  // Run by run through [run_id+seq]: the card's anyOf over run ids is quadratic in fake-indexeddb (5,000 events: 22 s).
  const all = (await Promise.all(runIds.map((id) => runEvents(db, id)))).flat();
  const outcomes = reviewOutcomesFromEvents(all.filter((e) => e.type === 'run.started' || e.type === 'tools.snapshot' || e.type === 'round.completed' || e.type === 'learning.example'));
  return { outcomes: outcomes.length, metrics: promotionMetrics(outcomes, settings), series: metricsSeries(outcomes, settings, POINTS) };
}
const kept = () => readPromotion(db, 'notes-cleanup', settings.window, POINTS);
const [a, b] = [await kept(), await scan()];
if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('the kept figures differ from the scan');

const keptMs = await timedMedian(SAMPLES, kept);
const scanMs = await timedMedian(SAMPLES, scan);
console.log(`${events.length.toLocaleString('en')} events, ${runsOfCard} of the card's runs, ${a.outcomes.toLocaleString('en')} reviewed rounds (fake-indexeddb)\n`);
console.log('| read | ms | vs scan |');
console.log('|---|---:|---:|');
console.log(`| kept figures (readPromotion) | ${keptMs.toFixed(1)} | ${(keptMs / scanMs).toFixed(4)}× |`);
console.log(`| scan of every event (before) | ${scanMs.toFixed(1)} | 1× |`);
console.log(`\nIngest in 500-event batches: ${ingestMs.toFixed(0)} ms in all, of which keeping the figures ≈ ${countMs.toFixed(0)} ms (${((countMs / ingestMs) * 100).toFixed(1)}%).`);
db.close();
bare.close();
