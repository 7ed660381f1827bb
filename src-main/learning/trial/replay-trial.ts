import type { RunEvent, RunEventPayload } from '@shared/contracts/events';
import { SupervisionSpec } from '@shared/contracts/spec';
import type { TrialRound } from '@shared/learning/trial-contract';
import { compareRound, trialReport, type CandidateAnswer } from '@shared/learning/trial-report';
import { compareTrials, recordedTrial, trialRoundPlace, type RecordedTrial, type TrialReplayComparison } from '@shared/learning/trial-replay';
import { ReplayError } from '@shared/replay/replay-spec';
import { judgeReply } from './run-trial';
import { runTrialInputs, type TrialInput, type TrialTarget } from './trial-cases';

/**
 * A trial replayed (issue 31, "a trial is a run of its own … replayable"): the recorded candidate
 * replies are given back — no model is called — and each round is parsed, validated against the
 * round's recorded tools and compared with its recorded selection again, by today's code; the
 * replay is a run of its own (`replay_of` the trial) with its own report, set beside the recorded
 * one (compareTrials). The recorded rounds are read again from the runs they came from; a round no
 * longer in the history, or whose reply was not recorded (the call failed, the reply did not
 * parse), is a gap, said in words.
 */

export interface TrialReplayOptions {
  /** The recorded trial run's events. */
  events: readonly RunEvent[];
  runId: string;
  /** Another run's events (the runs the trial's rounds came from). */
  runEvents: (runId: string) => readonly RunEvent[] | Promise<readonly RunEvent[]>;
  emit: (payload: RunEventPayload) => RunEvent;
  emitted: () => number;
  /** The comparison of one round (tests put in a changed rule; default today's compareRound). */
  compare?: typeof compareRound;
}

export interface TrialReplayResult {
  recorded: RecordedTrial;
  replayed: RecordedTrial;
  comparison: TrialReplayComparison;
  /** Where the replay could not give back exactly what the trial recorded. */
  gaps: string[];
}

/** The recorded trial of these events, ready to replay; a ReplayError says why not. */
export function replayableTrial(events: readonly RunEvent[], runId: string): RecordedTrial | undefined {
  const recorded = recordedTrial(events);
  if (!recorded) return undefined;
  if (recorded.status === undefined) throw new ReplayError('unsupported', `trial ${runId} has not ended: replay it once it has ended`);
  return recorded;
}

function targetOf(recorded: RecordedTrial): TrialTarget {
  const { node } = recorded;
  if (node.workflow_id !== undefined && node.node_id !== undefined) return { kind: 'node', workflow_id: node.workflow_id, node_id: node.node_id };
  if (node.spec_id !== undefined) return { kind: 'spec', spec_id: node.spec_id };
  throw new ReplayError('not_rebuildable', `the trial does not name the agent or node it was of (${node.key}): it cannot be replayed`);
}

const keyOf = (source: TrialRound['source']) => `${source.run_id}|${source.invocation_id ?? ''}|${source.round}`;

/** The recorded reply given back: parsed and validated again, with the latency and tokens the trial measured. */
function recordedAnswer(round: TrialRound, input: TrialInput, model: string): CandidateAnswer {
  const measured = { latency_ms: round.latency_ms, ...(round.input_tokens !== undefined ? { input_tokens: round.input_tokens } : {}), ...(round.output_tokens !== undefined ? { output_tokens: round.output_tokens } : {}) };
  const decision = round.candidate.decision;
  if (!decision) return { valid: false, problem: round.candidate.problem ?? 'no usable decision was recorded', protected: false, ...measured };
  return { ...judgeReply({ text: JSON.stringify(decision), tool_calls: [], model }, input), ...measured };
}

/** Replays a recorded trial as a new run (`runId`), emitting its events; the two reports compared. */
export async function replayTrial(options: TrialReplayOptions): Promise<TrialReplayResult> {
  const recorded = replayableTrial(options.events, options.events[0]?.run_id ?? '?');
  if (!recorded) throw new ReplayError('unsupported', 'this run is not a student trial');
  const compare = options.compare ?? compareRound;
  const target = targetOf(recorded);
  // The rounds as the history holds them now, read again from the runs they came from.
  const inputs = new Map<string, TrialInput>();
  for (const runId of new Set(recorded.rounds.map((r) => r.source.run_id))) {
    for (const input of runTrialInputs(await options.runEvents(runId), target).inputs) inputs.set(keyOf(input.case.source), input);
  }
  const gaps: string[] = [];
  const { emit } = options;
  const of = recorded.replay_of ?? recorded.run_id;
  const title = `Trial of ${recorded.candidate} on ${recorded.node.label}`;
  const phase = recorded.report?.current_phase ?? 2;
  emit({
    type: 'run.started',
    spec_id: `trial:${recorded.node.key}`,
    spec_name: title,
    task: `Replay the trial ${of.slice(0, 8)}: give back ${recorded.candidate}'s recorded replies to its ${recorded.rounds.length} rounds, parse, validate and compare each again with today's rules, and compare the report with the recorded one; no model is called and no tool is executed.`,
    supervision: SupervisionSpec.parse({ enabled: false, phase }),
    models: { student: `${recorded.candidate} (recorded replies)`, teacher: 'recorded verdicts' },
    exposure: [],
    profiles: {},
    dry_run: true,
    replay_of: of,
  });
  emit({ type: 'trial.started', node: recorded.node, candidate: recorded.candidate, rounds_asked: recorded.rounds_asked, rounds: recorded.rounds.length });
  const rounds: TrialRound[] = [];
  for (const round of recorded.rounds) {
    const input = inputs.get(keyOf(round.source));
    if (!input) {
      gaps.push(`${trialRoundPlace(round)}: that round is no longer in the history (its run was deleted or is in another data folder), so it was left out of the replay.`);
      continue;
    }
    if (!round.candidate.decision) gaps.push(`${trialRoundPlace(round)}: the candidate's reply was not recorded (${round.candidate.problem ?? 'no usable decision'}), so the replay keeps it as a decision that failed.`);
    const compared = compare(round.index, input.case, recordedAnswer(round, input, recorded.candidate));
    rounds.push(compared);
    emit({ type: 'trial.round', trial: compared });
  }
  const rules = recorded.report?.rules ?? { min_examples: 20, promote_agreement: 0.9, demote_block_rate: 0.2 };
  const current = [...new Set(recorded.report ? [recorded.report.current.model] : [])].join(', ') || 'the current student';
  const report = trialReport({
    node: recorded.node,
    candidate: recorded.candidate,
    current,
    current_phase: phase,
    settings: { window: 50, ...rules },
    rounds_asked: recorded.rounds_asked,
    rounds,
    // A cancelled trial replays as what it was: the rounds it did, of those it was to do.
    ...(recorded.report?.stopped ? { stopped_of: recorded.report.stopped.of } : {}),
  });
  emit({ type: 'trial.finished', report });
  const replayed: RecordedTrial = { ...recorded, run_id: options.runId, replay_of: of, rounds, report, total: rounds.length, status: 'completed' };
  const comparison = compareTrials(recorded, replayed);
  emit({
    type: 'run.finished',
    status: 'completed',
    output: comparison.same ? 'The replay made the same report as the recorded trial.' : `The replay's report differs from the recorded trial's in ${comparison.differences.length} place${comparison.differences.length === 1 ? '' : 's'}.`,
    rounds: rounds.length,
    event_count: options.emitted() + 1,
  });
  return { recorded, replayed, comparison, gaps };
}
