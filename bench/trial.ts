/**
 * bench/trial — what a student trial costs beyond its candidate's own model time (issue 31: a trial over
 * 200 rounds costs ≤ 1.1× the candidate's own model time). Real supervised runs, ROUNDS rounds in all (scripted
 * student and teacher on the real filesystem MCP server, phase 2: every round reviewed) is recorded into a
 * disk-backed data folder's history; then `steward trial learning-run --student …` runs in-process on that
 * folder as a person would run it (the history read, each round's recorded prompt sent, validated, compared,
 * every trial event written to the history, the report printed). The candidate is a model double speaking
 * the Ollama API with a fixed DELAY_MS per answer (a TEST DOUBLE at the model boundary) in a process of its own, as a model
 * server is, reached through the real Ollama provider. The candidate's own model time is the same calls — the same recorded prompts, the same
 * provider, one after another — with no trial around them. Median of SAMPLES each.
 * Run: npx tsx --tsconfig tsconfig.test.json bench/trial.ts (BENCH_ROUNDS, BENCH_DELAY_MS, BENCH_SAMPLES)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventJournal } from '../src-main/events/event-journal';
import { readTrialCases } from '../src-main/learning/trial/trial-cases';
import { askCandidate } from '../src-main/learning/trial/run-trial';
import { resolveProvider } from '../src-main/providers/resolve-provider';
import { runCli } from '../src-main/shells/cli/cli';
import { OllamaModelRef } from '../src-shared/contracts/model';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { recordLearningRun } from '../test-support/learning-run';
import { timedMedian } from './timed-median';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3);

const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-trial-'));
// The model double runs in a process of its own, as a model server does (bench/trial-model-double.ts).
const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'trial-model-double.ts')], { env: { ...process.env, BENCH_DELAY_MS: String(DELAY_MS), TSX_TSCONFIG_PATH: 'tsconfig.test.json' }, stdio: ['pipe', 'pipe', 'inherit'] });
const double = { url: await new Promise<string>((resolve, reject) => {
  createInterface({ input: child.stdout }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`the model double exited (${code})`)));
}) };
try {
  // The recorded history: runs of at most 100 rounds (a run's limit is 200), enough for the trial.
  const runs = Math.ceil(ROUNDS / 100);
  const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
  for (let r = 0; r < runs; r += 1) journal.append((await recordLearningRun(Math.ceil(ROUNDS / runs) + 1, 2)).events, { made: true });
  const cases = readTrialCases(journal, { kind: 'spec', spec_id: 'learning-run' }, ROUNDS);
  journal.close();
  if (cases.inputs.length !== ROUNDS) throw new Error(`the history holds ${cases.inputs.length} reviewed rounds with a prompt, not ${ROUNDS}`);

  const ref = OllamaModelRef.parse({ provider: 'ollama', model: 'cand', host: double.url });
  const provider = resolveProvider(ref, 'student');
  // The candidate's own model time: the same recorded prompts to the same provider, nothing else.
  const model = await timedMedian(SAMPLES, async () => {
    for (const input of cases.inputs) await askCandidate(input, provider);
  });
  let lastOut = '';
  const trial = await timedMedian(SAMPLES, async () => {
    let out = '';
    const code = await runCli(['trial', 'learning-run', '--student', JSON.stringify(ref), '--rounds', String(ROUNDS), '--data-dir', dataDir], { stdout: (t) => (out += t), stderr: () => undefined, env: {} });
    if (code !== 0) throw new Error(`steward trial exited ${code}: ${out}`);
    lastOut = out;
  });
  console.log(`${ROUNDS} recorded rounds, a model double answering in ${DELAY_MS} ms (Ollama API, real provider), disk-backed data folder, median of ${SAMPLES}\n`);
  console.log('| what | ms | per round ms |');
  console.log('|---|---:|---:|');
  console.log(`| the candidate's own model time (${ROUNDS} calls, nothing else) | ${model.toFixed(0)} | ${(model / ROUNDS).toFixed(2)} |`);
  console.log(`| steward trial (history read, calls, validation, comparison, ${ROUNDS + 5}+ events written, report) | ${trial.toFixed(0)} | ${(trial / ROUNDS).toFixed(2)} |`);
  console.log(`\nratio trial / model time: ${(trial / model).toFixed(3)}× (target ≤ 1.1×)`);
  console.log(`\n${lastOut.split('\n')[1] ?? ''}`);
} finally {
  child.stdin?.end();
  rmSync(dataDir, { recursive: true, force: true });
}
