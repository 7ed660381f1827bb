/**
 * bench/trial-model-double — the candidate of bench/trial.ts in a process of its own, as a model server is:
 * a TEST DOUBLE speaking the Ollama API (test-support/fake-ollama.ts) that answers every chat after DELAY_MS
 * with one decision. Prints its URL as the first line of stdout; stops when its stdin closes.
 */
import { startFakeOllama } from '../test-support/fake-ollama';

const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 20);
const double = await startFakeOllama({
  models: [{ name: 'cand' }],
  chat: () => ({ message: { content: JSON.stringify({ decision_type: 'complete', output: 'done' }) }, delay_ms: DELAY_MS }),
});
process.stdout.write(`${double.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void double.close().then(() => process.exit(0)));
