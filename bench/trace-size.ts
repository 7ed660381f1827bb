/**
 * bench/trace-size — how a trace grows with the run's length.
 *
 * Records supervised phase-2 runs of SHORT and LONG rounds (a scripted student and teacher on the
 * real filesystem MCP server, the teacher reviewing every round: one learning example per round),
 * and measures the `--trace` JSONL as stored (each example's prompt referencing the previous
 * example's) and as the copied form would store it (each example's whole prompt rebuilt, as traces
 * before this change did), in the same run. Linear growth: LONG/SHORT ≈ the rounds' ratio.
 * Run: npx tsx --tsconfig tsconfig.main.json bench/trace-size.ts
 */
import type { RunEvent } from '@shared/contracts/events';
import { PromptBook } from '@shared/learning/learning-context';
import { recordLearningRun } from '../test-support/learning-run';

const SHORT = Number(process.env.BENCH_SHORT ?? 50);
const LONG = Number(process.env.BENCH_LONG ?? 200);

interface Size {
  total: number;
  learning: number;
}

function size(events: readonly RunEvent[]): Size {
  let total = 0;
  let learning = 0;
  for (const e of events) {
    const bytes = Buffer.byteLength(`${JSON.stringify(e)}\n`);
    total += bytes;
    if (e.type === 'learning.example') learning += bytes;
  }
  return { total, learning };
}

/** The same events with every learning example's whole prompt copied in (the form before references). */
function copiedForm(events: readonly RunEvent[]): RunEvent[] {
  const prompts = new PromptBook();
  return events.map((e) => {
    if (e.type !== 'learning.example') return e;
    const prompt = prompts.resolve(e);
    if (!prompt.ok) throw new Error(prompt.message);
    const { context_ref: _ref, context_head: _head, ...rest } = e;
    return { ...rest, context: prompt.context };
  });
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

async function main() {
  const rows: Array<{ rounds: number; stored: Size; copied: Size }> = [];
  for (const rounds of [SHORT, LONG]) {
    const { events } = await recordLearningRun(rounds);
    rows.push({ rounds, stored: size(events), copied: size(copiedForm(events)) });
  }
  console.log('rounds | trace (referenced) | of it learning | trace (copied form) | of it learning');
  for (const r of rows) console.log(`${r.rounds} | ${mb(r.stored.total)} | ${mb(r.stored.learning)} | ${mb(r.copied.total)} | ${mb(r.copied.learning)}`);
  const [short, long] = rows;
  if (!short || !long) return;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log(`rounds ${LONG}/${SHORT}: ${ratio(LONG, SHORT)}`);
  console.log(`trace size ${LONG}/${SHORT}: referenced ${ratio(long.stored.total, short.stored.total)}, copied form ${ratio(long.copied.total, short.copied.total)}`);
  console.log(`learning examples ${LONG}/${SHORT}: referenced ${ratio(long.stored.learning, short.stored.learning)}, copied form ${ratio(long.copied.learning, short.copied.learning)}`);
  console.log(`${LONG} rounds: the referenced trace is ${ratio(long.stored.total, long.copied.total)} the copied form's size`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
