/**
 * bench/promotion-card — the Promotion card's figures for a workflow whose runs hold EVENTS events, as the host
 * keeps them (events/promotion-store.ts, in the history database: folded from the events when asked, each counted
 * outcome with its rank and running totals, so a window's metrics are two rows' difference) against what the card
 * did before any were kept (every event of the workflow's runs read, then reviewOutcomesFromEvents,
 * promotionMetrics and metricsSeries), in one run, on a disk-backed history.sqlite; median of SAMPLES. Also:
 * the first fold of a history that was never folded (an upgraded data folder: once), a read after one more run
 * (the fold of its events), a read after the 10 oldest runs are deleted (the node's outcomes ranked again, once),
 * and the cost of appending the events, which the fold does not touch. At EVENTS/10 too, for how a read grows.
 * And the host's background fold (events/background-fold.ts) of the same history in a second database: how long
 * a quiet host takes to fold it all, its chunks (the longest is what a request arriving meanwhile may wait), and
 * the card's first read afterwards.
 * Run: npm run bench:promotion-card (BENCH_EVENTS, BENCH_SAMPLES)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { eventId, RunEvent, type RunEventPayload } from '@shared/contracts/events';
import { DeploymentSettings } from '@shared/contracts/profiles';
import { SupervisionSpec } from '@shared/contracts/spec';
import { metricsSeries, promotionMetrics, reviewOutcomesFromEvents } from '@shared/policy/promotion';
import { foldInBackground } from '../src-main/events/background-fold';
import { EventJournal } from '../src-main/events/event-journal';
import { historyPath } from '../src-main/events/history-db';
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

/** The host's background fold of `events` in a database of their own, as a quiet host runs it (its default chunk and gap). */
async function backgroundFold(events: readonly RunEvent[]): Promise<{ ms: number; chunks: number[]; readMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-promotion-bg-'));
  const journal = EventJournal.open(historyPath(dir), { log: () => undefined });
  try {
    for (let i = 0; i < events.length; i += 500) journal.append(events.slice(i, i + 500));
    await journal.settled();
    const chunks: number[] = [];
    // The fold's timers never keep a process alive (a host's server does): this bench's wait does.
    const alive = setInterval(() => undefined, 1_000);
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      // A tick's time: a fold chunk, and when it was the last one, the ranking piece after it in the same tick.
      let tickStart: number | undefined;
      const timed = {
        foldChunk: (limit?: number) => {
          tickStart = performance.now();
          try {
            const more = journal.fold.foldChunk(limit);
            if (more) {
              chunks.push(performance.now() - tickStart);
              tickStart = undefined;
            }
            return more;
          } catch (error) {
            reject(error);
            throw error;
          }
        },
        settleChunk: (limit: number) => {
          try {
            const more = journal.fold.settleChunk(limit);
            if (!more) setImmediate(resolve);
            return more;
          } catch (error) {
            reject(error);
            throw error;
          } finally {
            chunks.push(performance.now() - (tickStart ?? performance.now()));
            tickStart = undefined;
          }
        },
      };
      foldInBackground(timed, { busy: () => false, log: () => undefined, delayMs: 0 }).nudge();
    });
    const foldMs = performance.now() - t0;
    clearInterval(alive);
    const t1 = performance.now();
    await journal.promotion.figures('notes-cleanup', '', settings.window, POINTS);
    return { ms: foldMs, chunks, readMs: performance.now() - t1 };
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (x: number) => x.toLocaleString('en', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

async function measure(size: number): Promise<void> {
  const events: RunEvent[] = [];
  let runs = 0;
  for (; events.length < size; runs++) events.push(...runOf(runs, runs % 10 === 9 ? 'other-workflow' : 'notes-cleanup'));
  const dir = mkdtempSync(join(tmpdir(), 'bench-promotion-'));
  const journal = EventJournal.open(historyPath(dir), { log: () => undefined });
  try {
    let appendMs = 0;
    for (let i = 0; i < events.length; i += 500) {
      const t = performance.now();
      journal.append(events.slice(i, i + 500));
      appendMs += performance.now() - t;
    }
    await journal.settled();
    const kept = () => journal.promotion.figures('notes-cleanup', '', settings.window, POINTS);
    /** What the card did before: every event of the workflow's runs, read and scanned. */
    const scan = () => {
      const runIds: string[] = [];
      for (let page = journal.runsPage({ workflow: 'notes-cleanup', limit: 1_000 }); ; page = journal.runsPage({ workflow: 'notes-cleanup', limit: 1_000, after: page.next })) {
        runIds.push(...page.runs.map((r) => r.run.run_id));
        if (!page.next) break;
      }
      const all = runIds.flatMap((id) => journal.runEvents(id));
      const outcomes = reviewOutcomesFromEvents(all);
      return Promise.resolve({ outcomes: outcomes.length, metrics: promotionMetrics(outcomes, settings), series: metricsSeries(outcomes, settings, POINTS) });
    };
    let t = performance.now();
    const first = await kept();
    const firstMs = performance.now() - t;
    const scanned = await scan();
    if (JSON.stringify(first) !== JSON.stringify(scanned)) throw new Error('the kept figures differ from the scan');
    const keptMs = await timedMedian(SAMPLES, kept);
    const scanMs = await timedMedian(SAMPLES, scan);
    // One more run of the card's workflow, then the card asks again.
    const extra = runOf(runs, 'notes-cleanup');
    journal.append(extra);
    t = performance.now();
    await kept();
    const afterRunMs = performance.now() - t;
    // The 10 oldest runs deleted: their outcomes go, and the node's later ones are ranked again at the next read.
    t = performance.now();
    await journal.remove(Array.from({ length: 10 }, (_, i) => `run-${String(i).padStart(6, '0')}`));
    const removeMs = performance.now() - t;
    t = performance.now();
    const afterDelete = await kept();
    const afterDeleteMs = performance.now() - t;
    const check = await scan();
    if (JSON.stringify(afterDelete) !== JSON.stringify(check)) throw new Error('the kept figures differ from the scan after the deletion');
    console.log(`\n${events.length.toLocaleString('en')} events of ${runs} runs, ${first.outcomes.toLocaleString('en')} reviewed rounds of the card's workflow (history.sqlite on disk)`);
    console.log('| read | ms | vs scan |');
    console.log('|---|---:|---:|');
    console.log(`| kept figures, nothing new | ${ms(keptMs)} | ${(keptMs / scanMs).toFixed(4)}× |`);
    console.log(`| scan of every event of the workflow's runs (before) | ${ms(scanMs)} | 1× |`);
    console.log(`| first read of a history never folded (once) | ${ms(firstMs)} | ${(firstMs / scanMs).toFixed(3)}× |`);
    console.log(`| read after one more run (${extra.length} events folded) | ${ms(afterRunMs)} | ${(afterRunMs / scanMs).toFixed(4)}× |`);
    console.log(`| read after deleting the 10 oldest runs (all ranked again) | ${ms(afterDeleteMs)} | ${(afterDeleteMs / scanMs).toFixed(4)}× |`);
    console.log(`appending the events in 500-event batches: ${ms(appendMs)} ms (the fold adds nothing to it); deleting the 10 runs: ${ms(removeMs)} ms`);
    const background = await backgroundFold(events);
    const sorted = [...background.chunks].sort((a, b) => a - b);
    console.log(
      `the host's background fold of the same history, never folded (a quiet host): ${ms(background.ms)} ms in ${sorted.length} chunks ` +
        `(a chunk, its ranking piece included: median ${ms(sorted[Math.floor(sorted.length / 2)]!)} ms, longest ${ms(sorted.at(-1)!)} ms); the card's first read afterwards: ${ms(background.readMs)} ms`,
    );
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await measure(Math.round(EVENTS / 10));
await measure(EVENTS);
