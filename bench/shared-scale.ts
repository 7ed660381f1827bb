/**
 * bench/shared-scale — the pure passes that must stay linear in their input, timed at n and 2n.
 *
 * The tests count these passes' work (src-shared/workflow/*.test.ts: graph reads, regex states visited) and never
 * time them; this measures the time. Per case: the median of SAMPLES runs at n and at 2n, their ratio (linear ≈ 2×,
 * quadratic ≈ 4×), and the 2n time against a baseline measured in the same run: one plain pass over the same input
 * (a Map of the nodes and edges; the text split into characters). The native engine on a
 * catastrophic pattern is measured too, at a size it survives, to show what a quadratic ratio looks like here.
 * Run: npm run bench:shared-scale (BENCH_SAMPLES to change the samples)
 */
import { timedMedian } from './timed-median';
import { indexGraph } from '../src-shared/workflow/graph-index';
import { validateGraph } from '../src-shared/workflow/validate-graph';
import { compileLinearRegex } from '../src-shared/workflow/linear-regex';
import { redactForEscalation } from '../src-shared/supervisor/redaction';
import { fanOutChain, wideGraph } from '../src-shared/workflow/testing/scale-graphs';
import type { WorkflowGraph } from '../src-shared/workflow/document';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);

interface Case {
  name: string;
  n: number;
  unit: string;
  /** The timed work at size `size` (input built outside the timing). */
  prepare: (size: number) => () => unknown;
  /** The baseline at size `size`: one plain pass over the same input. */
  baseline: (size: number) => () => unknown;
}

/** One pass over a graph: what any linear pass costs at least. */
const onePass = (graph: WorkflowGraph) => () => {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n] as const));
  let found = 0;
  for (const e of graph.edges) if (nodes.has(e.from.node) && nodes.has(e.to.node)) found++;
  return found;
};

const linear = (pattern: string, text: (n: number) => string) => (size: number) => {
  const re = compileLinearRegex(pattern);
  if (!re.ok) throw new Error(re.message);
  const subject = text(size);
  return () => re.test(subject);
};
const native = (pattern: RegExp, text: (n: number) => string) => (size: number) => {
  const subject = text(size);
  return () => pattern.test(subject);
};
/** One pass over the characters (the linear engine starts with this split). */
const characters = (text: (n: number) => string) => (size: number) => {
  const subject = text(size);
  return () => subject.split('').length;
};
const as = (n: number) => 'a'.repeat(n);
const blob = (n: number) => `${'QUJD'.repeat(n / 4)} password=hunter2x`;

const cases: Case[] = [
  { name: 'validateGraph, chain of fan-outs', n: 5_000, unit: 'fan-outs', prepare: (s) => { const g = fanOutChain(s); return () => validateGraph(g); }, baseline: (s) => onePass(fanOutChain(s)) },
  { name: 'indexGraph, one input feeding n templates', n: 10_000, unit: 'nodes', prepare: (s) => { const g = wideGraph(s); return () => indexGraph(g); }, baseline: (s) => onePass(wideGraph(s)) },
  { name: 'linear regex a*a*b on a…a', n: 50_000, unit: 'chars', prepare: linear('a*a*b', as), baseline: characters(as) },
  { name: 'linear regex (a+)+$ on a…a!', n: 50_000, unit: 'chars', prepare: linear('(a+)+$', (n) => `${as(n - 1)}!`), baseline: characters(as) },
  { name: 'linear regex ^.*foo.*bar.*$ on "foo "…', n: 50_000, unit: 'chars', prepare: linear('^.*foo.*bar.*$', (n) => 'foo '.repeat(n / 4)), baseline: characters((n) => 'foo '.repeat(n / 4)) },
  { name: 'redaction, base64 blob then password=', n: 200_000, unit: 'chars', prepare: (s) => { const t = blob(s); return () => redactForEscalation(t, []); }, baseline: characters(blob) },
  { name: 'native engine a*b on a…a (the quadratic reference)', n: 10_000, unit: 'chars', prepare: native(/a*b/, as), baseline: characters(as) },
];

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
/** One untimed run first: the first runs of a pass (and of a native regex) are interpreted, not compiled. */
const timed = (fn: () => unknown) => {
  fn();
  return timedMedian(SAMPLES, async () => fn());
};

console.log(`median of ${SAMPLES} after one warm-up run; baseline = one plain pass over the 2n input\n`);
console.log('| pass | n | ms at n | ms at 2n | 2n / n | baseline ms (2n) | 2n vs baseline |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const c of cases) {
  const small = await timed(c.prepare(c.n));
  const large = await timed(c.prepare(2 * c.n));
  const base = await timed(c.baseline(2 * c.n));
  console.log(`| ${c.name} | ${c.n.toLocaleString('en')} ${c.unit} | ${ms(small)} | ${ms(large)} | ${(large / small).toFixed(2)}× | ${ms(base)} | ${(large / base).toFixed(0)}× |`);
}
