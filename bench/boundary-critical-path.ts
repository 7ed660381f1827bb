/**
 * bench/boundary-critical-path — where a supervised round's time goes when the model takes 50 ms (issue 26's
 * "≤ 1.02× bare" case): `npx tsx --tsconfig tsconfig.main.json bench/boundary-critical-path.ts`.
 *
 * The host is the app's (boundary-host.ts); the model is the scripted TEST DOUBLE, answering after a 50 ms timer.
 * Each round is cut at four instants: the model's timer fires, the tool call starts, it ends, and the next
 * round's model timer is set. What lies between the timer firing and the call, and between the call's end and
 * the next timer, is the host's own path; the bare loop pays only a call after its sleep. The bare loop's call
 * is timed after the same 50 ms sleep: a call made after the machine idled is slower than one in a tight loop.
 * Also printed: when the history's appends ran (off the round's path when they follow the next timer).
 */
import { performance } from 'node:perf_hooks';
import { bareLoop, openAppHost } from './boundary-host';
import { runMain } from './run-main';
import { spanAppends, spanToolCalls } from './host-spans';

const MODEL_MS = 50;
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 40);

type Mark = 'timer-set' | 'timer-fire' | 'call-start' | 'call-end' | 'append';
const marks: Array<{ mark: Mark; at: number; ms?: number }> = [];
let marking = false;
const mark = (m: Mark) => {
  if (marking) marks.push({ mark: m, at: performance.now() });
};

// The scripted model's (and the bare loop's) 50 ms timers: set and fired.
const setTimer = globalThis.setTimeout;
globalThis.setTimeout = ((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  if (ms !== MODEL_MS || !marking) return setTimer(handler, ms, ...args);
  mark('timer-set');
  return setTimer(() => {
    mark('timer-fire');
    handler(...args);
  }, ms);
}) as typeof setTimeout;

spanToolCalls((at, ms) => {
  if (!marking) return;
  marks.push({ mark: 'call-start', at }, { mark: 'call-end', at: at + ms });
});

spanAppends((at, ms) => {
  if (marking) marks.push({ mark: 'append', at, ms });
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (x: number) => `${x.toFixed(2)} ms`;

/** The marks in time order (a call's and an append's are reported when they end). */
const inOrder = () => [...marks].sort((a, b) => a.at - b.at);

/** The spans between consecutive marks `from` → `to` (appends skipped). */
function spans(from: Mark, to: Mark): number[] {
  const timeline = inOrder().filter((m) => m.mark !== 'append');
  const out: number[] = [];
  for (let i = 0; i + 1 < timeline.length; i += 1) if (timeline[i]!.mark === from && timeline[i + 1]!.mark === to) out.push(timeline[i + 1]!.at - timeline[i]!.at);
  return out;
}

async function main() {
  const app = await openAppHost();
  try {
    await app.run(20, { phase: 3, latencyMs: MODEL_MS });
    marking = true;
    const ends = await app.run(ROUNDS, { phase: 3, latencyMs: MODEL_MS });
    marking = false;
    const round = (ends.at(-1)! - ends[0]!) / (ends.length - 1);
    const toCall = median(spans('timer-fire', 'call-start'));
    const call = median(spans('call-start', 'call-end'));
    const toNext = median(spans('call-end', 'timer-set'));
    // An append on the round's path starts between a timer firing and the next timer being set.
    let onPath = 0;
    let fired = false;
    for (const m of inOrder()) {
      if (m.mark === 'timer-fire') fired = true;
      if (m.mark === 'timer-set') fired = false;
      if (m.mark === 'append' && fired) onPath += 1;
    }
    const appends = marks.filter((m) => m.mark === 'append');
    marks.length = 0;

    const bare = await bareLoop(app.folder, app.file, ROUNDS, MODEL_MS);
    try {
      await bare.perCall();
      marking = true;
      const bareRound = await bare.perCall();
      marking = false;
      const bareToCall = median(spans('timer-fire', 'call-start'));
      const bareCall = median(spans('call-start', 'call-end'));
      console.log(`supervised round with a ${MODEL_MS} ms model (${ROUNDS} rounds, medians): ${ms(round)}`);
      console.log(`  the model's timer fires → the tool call starts: ${ms(toCall)} (the model's answer recorded, parsed, validated, reviewed, authorized, committed)`);
      console.log(`  the tool call: ${ms(call)}`);
      console.log(`  the call's end → the next model call: ${ms(toNext)} (the round's events and record, the next round's tools, prompt and request)`);
      console.log(`  history appends: ${appends.length}, ${onPath} of them on the round's path; median ${ms(median(appends.map((a) => a.ms ?? 0)))} each`);
      console.log(`bare loop (sleep ${MODEL_MS} ms, then the same call): ${ms(bareRound)} a call`);
      console.log(`  the timer fires → the call starts: ${ms(bareToCall)}; the call after the sleep: ${ms(bareCall)}`);
      console.log(`the host's own path a round: ${ms(toCall + toNext - bareToCall)}; ratio ${(round / bareRound).toFixed(3)}×`);
    } finally {
      await bare.close();
    }
  } finally {
    await app.close();
  }
}

runMain(main);
