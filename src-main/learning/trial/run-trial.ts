import type { RunEvent, RunEventPayload, RunStatus } from '@shared/contracts/events';
import type { ModelReply } from '@shared/contracts/model';
import { PROPOSAL_OUTPUT_TOKENS } from '@shared/contracts/output-bound';
import { SupervisionSpec, type LifecyclePhase } from '@shared/contracts/spec';
import { isProtectedEffect } from '@shared/contracts/tool-effect';
import { assertReplyDepth, parseCandidate } from '@shared/boundary/parse-candidate';
import { describeIssues, validateCandidate } from '@shared/boundary/validation';
import type { TrialNode, TrialReport, TrialRound } from '@shared/learning/trial-contract';
import { compareRound, trialReport, type CandidateAnswer } from '@shared/learning/trial-report';
import type { PromotionSettings } from '@shared/policy/promotion';
import { decisionJsonSchema } from '../../providers/prompts';
import { ProviderError, UNHEALABLE_CODES, type ModelProvider } from '../../providers/provider';
import { recordCalls, type ModelPlace } from '../../providers/record-calls';
import type { TrialInput } from './trial-cases';

/**
 * A student trial as a run of its own (issue 31): `run.started` (its row in Runs: "Trial of MODEL
 * on NODE", a dry run — nothing is executed), `trial.started`, one `trial.round` per recorded round
 * put to the candidate, `trial.finished` with the report, `run.finished`. The candidate gets each
 * round's recorded, redacted prompt with the engine's own output schema and bound, and only
 * proposes: its decision is parsed and validated by the boundary's own functions against the round's
 * recorded tools, then compared. No tool host exists here, so no tool can run.
 */

export interface TrialRunOptions {
  runId: string;
  node: TrialNode;
  /** The candidate student: its calls are recorded in this run's privacy log (model.called, model.answered). */
  candidate: ModelProvider;
  /** Where its prompts go, for the run's privacy record. */
  place: ModelPlace;
  inputs: readonly TrialInput[];
  roundsAsked: number;
  currentPhase: LifecyclePhase;
  settings: PromotionSettings;
  /** Gives each event its envelope and stores it (engine/event-stamper.ts). */
  emit: (payload: RunEventPayload) => RunEvent;
  /** The number of events emitted so far (run.finished's count). */
  emitted: () => number;
  signal?: AbortSignal;
  onRound?: (round: TrialRound, done: number, total: number) => void;
}

type TrialEnd = Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;
/** A cancelled trial keeps the report over the rounds done (`report.stopped` says how many of how many). */
export type TrialOutcome = { ok: true; report: TrialReport } | { ok: false; status: TrialEnd; message: string; report?: TrialReport };

export function trialTitle(model: string, node: TrialNode): string {
  return `Trial of ${model} on ${node.label}`;
}

/** A candidate's reply to a recorded round, parsed and validated by the boundary's own functions against the round's recorded tools. */
export function judgeReply(reply: ModelReply, input: Pick<TrialInput, 'snapshot'>): Omit<CandidateAnswer, 'latency_ms' | 'input_tokens' | 'output_tokens'> {
  const validated = validateCandidate(parseCandidate(reply), input.snapshot);
  const decision = validated.decision;
  const effect = validated.tool?.effect.effect;
  return {
    ...(decision ? { decision } : {}),
    valid: validated.result.ok,
    ...(validated.result.ok ? {} : { problem: describeIssues(validated.result.issues) }),
    ...(effect ? { effect } : {}),
    protected: validated.result.ok && decision?.decision_type === 'tool_call' && (effect === undefined || isProtectedEffect(effect)),
  };
}

/** Puts one recorded round to the candidate: its decision, validated against the round's recorded tools. */
export async function askCandidate(input: TrialInput, candidate: ModelProvider, signal?: AbortSignal): Promise<CandidateAnswer> {
  const started = performance.now();
  try {
    const reply = assertReplyDepth(
      await candidate.complete({
        role: 'student',
        messages: input.messages,
        format: decisionJsonSchema(),
        max_output_tokens: PROPOSAL_OUTPUT_TOKENS,
        ...(signal ? { signal } : {}),
        call: { caller: 'student', purpose: 'propose', data: ['prompt'], round: input.case.source.round },
      }),
    );
    const latency_ms = reply.latency_ms ?? Math.round(performance.now() - started);
    const tokens = { ...(reply.usage?.input_tokens !== undefined ? { input_tokens: reply.usage.input_tokens } : {}), ...(reply.usage?.output_tokens !== undefined ? { output_tokens: reply.usage.output_tokens } : {}) };
    return { ...judgeReply(reply, input), latency_ms, ...tokens };
  } catch (error) {
    if (error instanceof ProviderError && (UNHEALABLE_CODES.has(error.code) || error.code === 'cancelled')) throw error;
    return { valid: false, problem: `the call failed: ${error instanceof Error ? error.message : String(error)}`, protected: false, latency_ms: Math.round(performance.now() - started) };
  }
}

export async function runTrial(options: TrialRunOptions): Promise<TrialOutcome> {
  const { node, inputs, emit } = options;
  const candidate = recordCalls(options.candidate, options.place, (call) => emit({ type: 'model.called', ...call }), (answer) => emit({ type: 'model.answered', ...answer }));
  const { place } = options;
  const title = trialTitle(candidate.label, node);
  const students = [...new Set(inputs.map((i) => i.student_model))];
  const current = students.length === 0 ? 'the current student' : students.join(', ');
  emit({
    type: 'run.started',
    spec_id: `trial:${node.key}`,
    spec_name: title,
    task: `Put the recorded, redacted contexts of the last ${inputs.length} reviewed round${inputs.length === 1 ? '' : 's'} of ${node.label} to ${candidate.label} and compare its decisions with those selected; no tool is executed.`,
    supervision: SupervisionSpec.parse({ enabled: false, phase: options.currentPhase }),
    models: { student: candidate.label, teacher: 'recorded verdicts' },
    exposure: [{ role: 'student', model: place.model, local: place.local, ...(place.host !== undefined ? { host: place.host } : {}), data: ['the recorded, redacted student prompts of the rounds replayed'] }],
    profiles: {},
    dry_run: true,
  });
  emit({ type: 'trial.started', node, candidate: candidate.label, rounds_asked: options.roundsAsked, rounds: inputs.length });
  const rounds: TrialRound[] = [];
  const finish = (status: TrialEnd, output: string | undefined, message?: string) =>
    emit({ type: 'run.finished', status, ...(output !== undefined ? { output } : {}), ...(message !== undefined ? { message } : {}), rounds: rounds.length, event_count: options.emitted() + 1 });
  const reportOf = (stoppedOf?: number) =>
    trialReport({ node, candidate: candidate.label, current, current_phase: options.currentPhase, settings: options.settings, rounds_asked: options.roundsAsked, rounds, ...(stoppedOf !== undefined ? { stopped_of: stoppedOf } : {}) });
  // Cancelled (the panel's Cancel, Ctrl-C, the app closing): the rounds done so far are reported as
  // partial, and the run ends `cancelled` — never as a finished trial.
  const cancel = (): TrialOutcome => {
    const partial = rounds.length > 0 ? reportOf(inputs.length) : undefined;
    if (partial) emit({ type: 'trial.finished', report: partial });
    const message = partial
      ? `The trial was cancelled after ${rounds.length} of ${inputs.length} rounds; the figures cover those ${rounds.length} only.`
      : `The trial was cancelled before any of its ${inputs.length} rounds was done; there are no figures.`;
    finish('cancelled', undefined, message);
    return { ok: false, status: 'cancelled', message, ...(partial ? { report: partial } : {}) };
  };
  for (const [index, input] of inputs.entries()) {
    if (options.signal?.aborted) return cancel();
    let answer: CandidateAnswer;
    try {
      answer = await askCandidate(input, candidate, options.signal);
    } catch (error) {
      if ((error instanceof ProviderError && error.code === 'cancelled') || options.signal?.aborted) return cancel();
      const message = `${candidate.label} stopped answering at round ${index + 1} of ${inputs.length}: ${error instanceof Error ? error.message : String(error)}. No report was made; check the model and start the trial again.`;
      finish('failed', undefined, message);
      return { ok: false, status: 'failed', message };
    }
    // An answer that came back after Cancel is not counted: the figures cover the rounds done before it.
    if (options.signal?.aborted) return cancel();
    const compared = compareRound(index, input.case, answer);
    rounds.push(compared);
    emit({ type: 'trial.round', trial: compared });
    options.onRound?.(compared, rounds.length, inputs.length);
  }
  const report = reportOf();
  emit({ type: 'trial.finished', report });
  finish('completed', report.words[0]);
  return { ok: true, report };
}
