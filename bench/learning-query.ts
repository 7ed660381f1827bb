/**
 * bench/learning-query — the Learning screen's list under each filter, answered by the host from its history
 * (src-main/events/learning-store.ts: the examples folded into indexes by time, workflow and kind), as the app
 * asks it: its first page (EXAMPLE_PAGE examples, newest first), against reading every learning example of the
 * history and filtering in memory (what a list without those indexes does). EXAMPLES examples with a
 * CONTEXT_CHARS-character prompt each, in runs of 20, in a disk-backed history.sqlite; median of SAMPLES; at
 * EXAMPLES/10 too, for how a page's cost grows with the history. Also the first fold (once per history).
 * Run: npm run bench:learning-query (BENCH_EXAMPLES, BENCH_CONTEXT_CHARS, BENCH_SAMPLES)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { eventId, RunEvent, type RunEventOf } from '@shared/contracts/events';
import { LEARNING_KINDS } from '@shared/contracts/learning-export';
import { SupervisionSpec } from '@shared/contracts/spec';
import { VERDICTS } from '@shared/contracts/verdict';
import { EventJournal } from '../src-main/events/event-journal';
import { historyPath } from '../src-main/events/history-db';
import type { LearningQuery } from '../src-main/events/learning-store';
import { timedMedian } from './timed-median';

const EXAMPLES = Number(process.env.BENCH_EXAMPLES ?? 100_000);
const CONTEXT_CHARS = Number(process.env.BENCH_CONTEXT_CHARS ?? 800);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const EXAMPLE_PAGE = 100;
const PER_RUN = 20;
const specs = ['notes-cleanup', 'guarded-writes', 'folder-triage', 'release-notes', 'inbox-zero'];
const MODELS = { student: 'ollama:qwen3:4b', teacher: 'replay' };

function runOf(r: number): RunEvent[] {
  const runId = `bench-run-${String(r).padStart(6, '0')}`;
  const spec = specs[r % specs.length]!;
  const t0 = Date.UTC(2026, 0, 1) + r * PER_RUN * 60_000;
  const events: RunEvent[] = [
    RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: new Date(t0).toISOString(), spec_id: spec, spec_name: spec, task: 't', supervision: SupervisionSpec.parse({}), models: MODELS }),
  ];
  for (let i = 1; i <= PER_RUN; i++) {
    const n = r * PER_RUN + i;
    const verdict = n % 5 === 0 ? undefined : VERDICTS[n % VERDICTS.length]!;
    events.push(
      RunEvent.parse({
        type: 'learning.example',
        id: eventId(runId, i),
        run_id: runId,
        seq: i,
        ts: new Date(t0 + i * 60_000).toISOString(),
        round: i - 1,
        kind: LEARNING_KINDS[n % LEARNING_KINDS.length],
        context: [{ role: 'user', content: 'x'.repeat(CONTEXT_CHARS) }],
        ...(verdict ? { verdict: verdict === 'accept' ? { verdict, reason_codes: [], explanation: 'ok' } : { verdict, reason_codes: ['unsafe_effect'], explanation: 'no', ...(verdict === 'replace' ? { replacement: { decision_type: 'complete', output: 'done' } } : {}) } } : {}),
        reason_codes: [],
        agreement: n % 4 !== 0,
        models: MODELS,
      }),
    );
  }
  events.push(RunEvent.parse({ type: 'run.finished', id: eventId(runId, PER_RUN + 1), run_id: runId, seq: PER_RUN + 1, ts: new Date(t0 + (PER_RUN + 1) * 60_000).toISOString(), status: 'completed', rounds: PER_RUN, event_count: PER_RUN + 2 }));
  return events;
}

const cases: [string, Omit<LearningQuery, 'limit'>][] = [
  ['no filter', {}],
  ['workflow = folder-triage', { workflow: 'folder-triage' }],
  ['kind = review, not agreed', { kind: 'review', agreed: false }],
  ['workflow + kind + verdict none', { workflow: 'inbox-zero', kind: 'shadow', verdict: 'none' }],
  ['agreed = no (no index of its own)', { agreed: false }],
];

async function measure(examples: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-learning-'));
  const journal = EventJournal.open(historyPath(dir), { log: () => undefined });
  try {
    const runs = Math.ceil(examples / PER_RUN);
    for (let r = 0; r < runs; r += 25) journal.append(Array.from({ length: Math.min(25, runs - r) }, (_, i) => runOf(r + i)).flat());
    await journal.settled();
    const t = performance.now();
    await journal.fold.catchUp();
    const foldMs = performance.now() - t;
    const specOf = new Map<string, string>();
    /** Every example of the history read and filtered in memory, newest first: what a list without the indexes does. */
    const scan = (q: Omit<LearningQuery, 'limit'>) => {
      const rows = journal.connection.prepare("SELECT run_id, body FROM events WHERE type IN ('run.started', 'learning.example')").all() as { run_id: string; body: string }[];
      const all: RunEventOf<'learning.example'>[] = [];
      for (const row of rows) {
        const e = JSON.parse(row.body) as RunEvent;
        if (e.type === 'run.started') specOf.set(e.run_id, e.spec_id);
        else if (e.type === 'learning.example') all.push(e);
      }
      return all
        .filter(
          (e) =>
            (q.workflow === undefined || specOf.get(e.run_id) === q.workflow) &&
            (q.kind === undefined || e.kind === q.kind) &&
            (q.verdict === undefined || (q.verdict === 'none' ? e.verdict === undefined : e.verdict?.verdict === q.verdict)) &&
            (q.agreed === undefined || e.agreement === q.agreed),
        )
        .sort((a, b) => (a.ts === b.ts ? (a.id < b.id ? 1 : -1) : a.ts < b.ts ? 1 : -1))
        .slice(0, EXAMPLE_PAGE);
    };
    console.log(`\n${(runs * PER_RUN).toLocaleString('en')} examples in ${runs.toLocaleString('en')} runs, ${CONTEXT_CHARS}-character prompts (history.sqlite on disk); first fold ${foldMs.toFixed(0)} ms (once)`);
    console.log(`| filter | first page ms (${EXAMPLE_PAGE}) | every example read and filtered ms | page vs that |`);
    console.log('|---|---:|---:|---:|');
    for (const [name, q] of cases) {
      const first = await journal.learning.page({ ...q, limit: EXAMPLE_PAGE });
      const expected = scan(q);
      if (JSON.stringify(first.examples.map((x) => x.event.id)) !== JSON.stringify(expected.map((e) => e.id))) throw new Error(`${name}: the host's page differs from the scan`);
      const page = await timedMedian(SAMPLES, () => journal.learning.page({ ...q, limit: EXAMPLE_PAGE }));
      const before = await timedMedian(Math.min(SAMPLES, 3), async () => scan(q));
      console.log(`| ${name} | ${page.toFixed(2)} | ${before.toFixed(0)} | ${(page / before).toFixed(4)}× |`);
    }
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await measure(Math.round(EXAMPLES / 10));
await measure(EXAMPLES);
