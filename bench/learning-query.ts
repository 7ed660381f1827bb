/**
 * bench/learning-query — the Learning screen's list under each filter: its first page read newest first through
 * the v5 time indexes (queryExamples), every match (readExamples: what the export reads), against what the
 * screen did before (every example read newest first, filtered in memory; src-renderer/screens/learning/learning-query.ts). EXAMPLES examples with a CONTEXT_CHARS-character prompt each, in
 * fake-indexeddb; median of SAMPLES.
 * Run: npx tsx --tsconfig tsconfig.test.json bench/learning-query.ts (BENCH_EXAMPLES, BENCH_CONTEXT_CHARS, BENCH_SAMPLES)
 */
import 'fake-indexeddb/auto';
import { timedMedian } from './timed-median';
import { LEARNING_KINDS } from '@shared/contracts/learning-export';
import { StewardDb, type LearningExampleRow } from '../src-renderer/db/db';
import { ALL_EXAMPLES, EXAMPLE_PAGE, exampleMatches, queryExamples, readExamples, type LearningFilter } from '../src-renderer/screens/learning/learning-query';

const EXAMPLES = Number(process.env.BENCH_EXAMPLES ?? 20_000);
const CONTEXT_CHARS = Number(process.env.BENCH_CONTEXT_CHARS ?? 800);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const specs = ['notes-cleanup', 'guarded-writes', 'folder-triage', 'release-notes', 'inbox-zero'];

const db = new StewardDb(`bench-learning-${Date.now()}`);
await db.open();
const rows = Array.from({ length: EXAMPLES }, (_, i): LearningExampleRow => ({
  id: `run-${Math.floor(i / 20)}:${i % 20}`,
  run_id: `run-${Math.floor(i / 20)}`,
  seq: i % 20,
  spec_id: specs[Math.floor(i / 20) % specs.length]!,
  ts: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  round: i % 20,
  kind: LEARNING_KINDS[i % LEARNING_KINDS.length]!,
  context: [{ role: 'user', content: 'x'.repeat(CONTEXT_CHARS) }],
  reason_codes: [],
  agreement: i % 4 !== 0,
  models: { student: 'ollama:qwen3:4b', teacher: 'replay' },
}));
for (let i = 0; i < rows.length; i += 5000) await db.learning_examples.bulkPut(rows.slice(i, i + 5000));

const timed = (fn: () => Promise<unknown>) => timedMedian(SAMPLES, fn);

const cases: [string, LearningFilter][] = [
  ['no filter', ALL_EXAMPLES],
  ['workflow = folder-triage', { ...ALL_EXAMPLES, workflow: 'folder-triage' }],
  ['kind = review, not agreed', { ...ALL_EXAMPLES, kind: 'review', agreed: 'no' }],
  ['workflow + kind + verdict none', { workflow: 'inbox-zero', kind: 'shadow', verdict: 'none', agreed: 'all' }],
  ['agreed = no (no index)', { ...ALL_EXAMPLES, agreed: 'no' }],
];
console.log(`${EXAMPLES} examples, ${CONTEXT_CHARS}-character prompts (fake-indexeddb)\n`);
console.log(`| filter | first page ms (${EXAMPLE_PAGE}) | every match ms (export) | every example ms (before) | first page vs before | rows |`);
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, f] of cases) {
  const n = (await readExamples(db, f)).length;
  const page = await timed(() => queryExamples(db, f, EXAMPLE_PAGE));
  const indexed = await timed(() => readExamples(db, f));
  const before = await timed(async () => (await db.learning_examples.orderBy('ts').reverse().toArray()).filter(exampleMatches(f)));
  console.log(`| ${name} | ${page.toFixed(1)} | ${indexed.toFixed(1)} | ${before.toFixed(1)} | ${(page / before).toFixed(3)}× | ${n.toLocaleString('en')} |`);
}
db.close();
