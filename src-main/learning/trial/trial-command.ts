import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Decision } from '@shared/contracts/decision';
import type { ModelRef } from '@shared/contracts/model';
import { roundNumber } from '@shared/contracts/round-number';
import { PHASE_LABELS } from '@shared/contracts/spec';
import type { TrialReport, TrialRound } from '@shared/learning/trial-contract';
import { percent } from '@shared/learning/trial-report';
import { createKeychainStore } from '../../credentials/keychain-store';
import { resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import { createEventStamper } from '../../engine/event-stamper';
import { modelPlace } from '../../providers/record-calls';
import { credentialRefsOf, resolveProvider } from '../../providers/resolve-provider';
import type { ModelProvider } from '../../providers/provider';
import { HostRegistry } from '../../registry/host-registry';
import { SpecError } from '../../spec/spec-errors';
import type { CliIo } from '../../shells/cli/cli-io';
import { historyToRead } from '../../shells/cli/history-to-read';
import { hostedRecorder, localRecorder } from '../../shells/cli/run-recorder';
import { parseModelFlag } from '../../shells/cli/supervision-flags';
import { typedPath } from '../../shells/cli/typed-path';
import { defaultDataDir } from '../../util/data-dir';
import { readTrialCases, trialNode, type TrialCases, type TrialTarget } from './trial-cases';
import { folderDeployment } from './trial-deployment';
import { runTrial, trialTitle } from './run-trial';
import { wrapUsage } from '@shared/util/wrap-usage';

/** `steward trial NODE --student MODEL`: would this student have done well here? (issue 31) */

export const TRIAL_USAGE = wrapUsage(`Usage:
  steward trial NODE --student MODEL [--rounds N] [--workflow FILE_OR_ID] [--json] [--allow-host HOST]... [--data-dir DIR]

  Puts the recorded, redacted contexts of an agent node's last N reviewed rounds (default 200) to a
  candidate student and compares each of its decisions with the decision finally selected and with
  the teacher's verdict on the original student. No tool is executed: the candidate only proposes.
  Reports agreement with a 95% interval, protected effects it would have proposed differently,
  decisions that fail validation, blocks it would have drawn, latency and tokens per round, and the
  phase it would qualify for under the node's promotion rules. The trial is a run of its own in
  the history ("Trial of MODEL on NODE": in Runs, exportable).

  NODE        an agent spec's id (or its file), or with --workflow an agent node's id in that graph
  --student   the candidate: ollama:MODEL | URL#MODEL | a model ref as JSON; only a model the data
              folder's privacy policy allows (plus --allow-host) is asked anything
  --rounds    how many of the newest reviewed rounds to replay (default 200)
  --workflow  the workflow graph (its file, or its id) NODE belongs to
  --json      one JSON object: the run id, the report and every compared round
Exit codes: 0 the trial ran (its report says how the candidate did) · 1 no reviewed rounds of NODE
            are recorded · 2 bad input, a model the privacy policy refuses, or the candidate cannot
            be reached · 130 cancelled (Ctrl-C): the report covers the rounds done before it, said
            so in its first line, and the run is recorded as cancelled`);

const CODE = { ok: 0, nothing: 1, badInput: 2, cancelled: 130 } as const;
const DEFAULT_ROUNDS = 200;

const OPTIONS = {
  student: { type: 'string' },
  rounds: { type: 'string' },
  workflow: { type: 'string' },
  json: { type: 'boolean', default: false },
  'allow-host': { type: 'string', multiple: true },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** An id, or the `id` of the JSON file at that path. */
function idOf(io: CliIo, text: string, what: string): string {
  const path = typedPath(io, text);
  if (!existsSync(path) || !statSync(path).isFile()) return text;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SpecError(`${text}: ${what} file is not valid JSON (${(error as Error).message})`);
  }
  const id = typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'id') ? (raw as { id?: unknown }).id : undefined;
  if (typeof id !== 'string' || id === '') throw new SpecError(`${text}: this ${what} file has no id`);
  return id;
}

function roundsOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_ROUNDS;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 10_000) throw new SpecError(`--rounds takes a whole number from 1 to 10000 (got "${text}")`);
  return n;
}

function studentRef(raw: string): ModelRef {
  let ref: ModelRef;
  try {
    ref = parseModelFlag(raw);
  } catch (error) {
    throw new SpecError((error as Error).message.replaceAll('--supervisor-model', '--student'));
  }
  if (ref.provider === 'script') throw new SpecError('--student replay: a replay model has no answers for these rounds; name a model: ollama:MODEL, URL#MODEL or a model ref as JSON');
  return ref;
}

async function candidateOf(ref: ModelRef, allowedHosts: string[], io: CliIo): Promise<ModelProvider> {
  const refs = credentialRefsOf(ref);
  let apiKeys = new Map<string, string>();
  if (refs.length > 0) {
    const store = io.hosted ? io.hosted.credentials : io.credentials ? io.credentials() : createKeychainStore();
    apiKeys = await resolveCredentials(refs, store, new SecretRegistry(), new Map(refs.map((r) => [r, 'the API key of the candidate student'])));
  }
  return resolveProvider(ref, 'student', { ollamaHost: io.env.OLLAMA_HOST, privacy: { allowed_hosts: allowedHosts }, apiKeys });
}

export async function trialCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new SpecError(`${(error as Error).message}\n\n${TRIAL_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${TRIAL_USAGE}\n`);
    return CODE.ok;
  }
  const [nodeArg, extra] = positionals;
  if (nodeArg === undefined || extra !== undefined) throw new SpecError(`trial takes one NODE (an agent spec's id, or a graph node's id with --workflow)\n\n${TRIAL_USAGE}`);
  if (values.student === undefined) throw new SpecError(`trial needs --student MODEL: the candidate to try\n\n${TRIAL_USAGE}`);
  const rounds = roundsOf(values.rounds);
  const target: TrialTarget = values.workflow !== undefined ? { kind: 'node', workflow_id: idOf(io, values.workflow, 'workflow'), node_id: nodeArg } : { kind: 'spec', spec_id: idOf(io, nodeArg, 'agent spec') };
  const ref = studentRef(values.student);
  const dataDir = io.hosted ? io.hosted.dataDir : values['data-dir'] !== undefined ? typedPath(io, values['data-dir']) : defaultDataDir(io.env);
  const allowed = [...new Set([...(existsSync(dataDir) ? new HostRegistry(dataDir).privacy().allowed_hosts : []), ...(values['allow-host'] ?? [])])];

  // The privacy policy decides before anything is read or sent.
  let candidate: ModelProvider;
  try {
    candidate = await candidateOf(ref, allowed, io);
  } catch (error) {
    io.stderr(`steward trial: ${values.student} cannot be tried as a student here: ${error instanceof Error ? error.message : String(error)}. Nothing was sent to it.\n`);
    return CODE.badInput;
  }

  const history = await historyToRead(io, values['data-dir']);
  let cases: TrialCases;
  if (!history.ok) {
    if (!history.missing) {
      io.stderr(`steward trial: ${history.message}\n`);
      return CODE.badInput;
    }
    cases = { inputs: [], runs: 0, students: [] };
  } else {
    try {
      cases = readTrialCases(history.journal, target, rounds);
    } finally {
      history.close();
    }
  }
  const node = trialNode(target, cases.label);
  if (cases.inputs.length === 0) {
    const where = target.kind === 'node' ? `the node "${target.node_id}" of the workflow "${target.workflow_id}"` : `the agent "${target.spec_id}"`;
    io.stderr(
      `steward trial: no reviewed rounds of ${where} are recorded in ${dataDir}, so there is nothing to put to ${candidate.label} and nothing was sent to it. Run it with supervision on (a phase where the teacher reviews the student) first${target.kind === 'spec' ? ', or name a graph node with --workflow' : ''}.\n`,
    );
    return CODE.nothing;
  }

  const deployment = folderDeployment(dataDir, target);
  const currentPhase = deployment.phase ?? cases.phase ?? 2;
  const runId = randomUUID();
  const recorder = io.hosted ? hostedRecorder(io.hosted) : localRecorder(dataDir, (line) => io.stderr(`steward: ${line}\n`));
  const stamper = createEventStamper(runId, (event) => recorder.onEvent(event));
  if (!values.json) io.stdout(`steward trial · ${trialTitle(candidate.label, node)} · ${cases.inputs.length} of the last ${rounds} reviewed rounds (from ${cases.runs} run${cases.runs === 1 ? '' : 's'}) · no tool is executed\n`);
  const compared: TrialRound[] = [];
  const outcome = await runTrial({
    runId,
    node,
    candidate,
    place: modelPlace(ref, io.env.OLLAMA_HOST),
    inputs: cases.inputs,
    roundsAsked: rounds,
    currentPhase,
    settings: deployment.promotion,
    emit: (payload) => stamper.emit(payload),
    emitted: () => stamper.count,
    ...(io.signal ? { signal: io.signal } : {}),
    onRound: (round, done, total) => {
      compared.push(round);
      io.stderr(`  ${done}/${total} ${where(round)} · ${round.agrees_selected ? 'agrees' : round.candidate.valid ? 'differs' : 'invalid'}\n`);
    },
  });
  const recorded = await recorder.finish();
  if (!recorded.ok) io.stderr(`steward trial: the trial's run is not all in the history: ${recorded.message}\n`);
  if (!outcome.ok) {
    io.stderr(`steward trial: ${outcome.message} (run ${runId})\n`);
    if (outcome.status !== 'cancelled') return CODE.badInput;
    // Cancelled: what was done is still worth reading, marked partial (its first line says so).
    if (values.json) io.stdout(`${JSON.stringify({ run_id: runId, status: 'cancelled', message: outcome.message, ...(outcome.report ? { report: outcome.report } : {}), rounds: compared, exit_code: CODE.cancelled }, null, 2)}\n`);
    else if (outcome.report) for (const line of reportLines(outcome.report, compared, deployment.profile)) io.stdout(`${line}\n`);
    return CODE.cancelled;
  }
  const { report } = outcome;
  if (values.json) {
    io.stdout(`${JSON.stringify({ run_id: runId, report, rounds: compared, exit_code: CODE.ok }, null, 2)}\n`);
    return CODE.ok;
  }
  for (const line of reportLines(report, compared, deployment.profile)) io.stdout(`${line}\n`);
  io.stdout(`Recorded as run ${runId} (steward runs show ${runId.slice(0, 8)}; in the app's Runs as "${trialTitle(candidate.label, node)}").\n`);
  return CODE.ok;
}

function where(round: TrialRound): string {
  return `run ${round.source.run_id.slice(0, 8)}${round.source.invocation_id !== undefined ? ` · ${round.source.invocation_id}` : ''} · round ${roundNumber(round.source.round)}`;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function decisionWords(decision: Decision | undefined): string {
  if (decision === undefined) return 'nothing';
  if (decision.decision_type === 'tool_call') return `${decision.tool_name} ${clip(JSON.stringify(decision.arguments), 80)}`;
  return decision.decision_type.replace('_', ' ');
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

function reportLines(report: TrialReport, rounds: readonly TrialRound[], profile: string | undefined): string[] {
  const { candidate: c, current: s } = report;
  const share = (f: typeof c) => `${f.agreement.count}/${f.agreement.of} ${percent(f.agreement.rate)} (${percent(f.agreement.low)}–${percent(f.agreement.high)})`;
  const phase = (f: typeof c) => `${f.qualifies_for} · ${PHASE_LABELS[f.qualifies_for]}`;
  const lines = [
    ...report.words,
    '',
    ...table([
      ['', `candidate ${c.model}`, `current student ${s.model}`],
      ['agreement with the selected decision (95% interval)', share(c), share(s)],
      ['protected effects proposed differently', String(c.protected_differences), String(s.protected_differences)],
      ['decisions that failed validation', String(c.invalid), String(s.invalid)],
      ['blocks drawn (recorded verdicts)', String(c.blocks), String(s.blocks)],
      ['would go to the teacher with no recorded verdict', String(c.unknown_verdicts), '—'],
      [`phase under the promotion rules (now ${report.current_phase}${profile ? `, ${profile}` : ''})`, phase(c), phase(s)],
      ['latency per round (median / 95th)', `${Math.round(report.latency_ms.median)} / ${Math.round(report.latency_ms.p95)} ms`, '—'],
      ['tokens per round (in / out)', report.tokens.input_per_round === null ? 'not reported' : `${Math.round(report.tokens.input_per_round)} / ${Math.round(report.tokens.output_per_round ?? 0)}`, '—'],
    ]),
  ];
  const protectedRounds = rounds.filter((r) => r.protected_difference);
  if (protectedRounds.length > 0) {
    lines.push('', 'Protected effects it would have proposed differently:');
    for (const r of protectedRounds) lines.push(`✗ ${where(r)}: it proposed ${decisionWords(r.candidate.decision)}; the round selected ${r.selected ? `${decisionWords(r.selected.decision)} (${r.selected.source})` : 'nothing (the teacher blocked it)'}`);
  }
  const invalid = rounds.filter((r) => !r.candidate.valid);
  if (invalid.length > 0) {
    lines.push('', 'Decisions that failed validation:');
    for (const r of invalid.slice(0, 20)) lines.push(`· ${where(r)}: ${clip(r.candidate.problem ?? 'no usable decision', 160)}`);
    if (invalid.length > 20) lines.push(`  … and ${invalid.length - 20} more (--json lists every one)`);
  }
  return lines;
}
