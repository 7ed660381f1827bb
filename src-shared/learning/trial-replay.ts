import type { RunEvent, RunEventOf } from '../contracts/events';
import { roundNumber } from '../contracts/round-number';
import { PHASE_LABELS } from '../contracts/spec';
import type { TrialNode, TrialReport, TrialRound } from './trial-contract';
import { percent } from './trial-report';

/**
 * A trial's replay (issue 31, "a trial is replayable"): the recorded candidate replies are given
 * back — no model is called — and each round is parsed, validated and compared again by today's
 * code; then the replay's report is set beside the recorded one. This is the pure half: what a
 * trial run recorded, and the two reports compared in words (the CLI and the app say it the same way).
 */

/** What a trial run recorded: its node, candidate, rounds compared and its report (absent: it ended without one). */
export interface RecordedTrial {
  run_id: string;
  /** The trial this run replayed, when it is itself a replay. */
  replay_of?: string;
  node: TrialNode;
  candidate: string;
  rounds_asked: number;
  /** Rounds it was to replay. */
  total: number;
  rounds: TrialRound[];
  report?: TrialReport;
  status?: RunEventOf<'run.finished'>['status'];
}

/** The trial a run's events record; undefined for any other run. */
export function recordedTrial(events: readonly RunEvent[]): RecordedTrial | undefined {
  const started = events.find((e): e is RunEventOf<'trial.started'> => e.type === 'trial.started');
  if (!started) return undefined;
  const run = events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');
  const finished = events.find((e): e is RunEventOf<'trial.finished'> => e.type === 'trial.finished');
  const ended = events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished');
  return {
    run_id: started.run_id,
    ...(run?.replay_of !== undefined ? { replay_of: run.replay_of } : {}),
    node: started.node,
    candidate: started.candidate,
    rounds_asked: started.rounds_asked,
    total: started.rounds,
    rounds: events.filter((e): e is RunEventOf<'trial.round'> => e.type === 'trial.round').map((e) => e.trial),
    ...(finished ? { report: finished.report } : {}),
    ...(ended ? { status: ended.status } : {}),
  };
}

/** Where a trial round was recorded, for a person. */
export function trialRoundPlace(r: Pick<TrialRound, 'index' | 'source'>): string {
  return `trial round ${r.index + 1} (run ${r.source.run_id.slice(0, 8)}${r.source.invocation_id !== undefined ? ` · ${r.source.invocation_id}` : ''} · round ${roundNumber(r.source.round)})`;
}

const yesNo = (v: boolean) => (v ? 'yes' : 'no');

/** The facts of a compared round a replay can change, each with how it reads. */
const ROUND_FACTS: ReadonlyArray<{ label: string; of: (r: TrialRound) => string }> = [
  { label: 'agrees with the selected decision', of: (r) => yesNo(r.agrees_selected) },
  { label: 'passed validation', of: (r) => yesNo(r.candidate.valid) },
  { label: 'protected effect proposed differently', of: (r) => yesNo(r.protected_difference) },
  { label: 'same as the original student', of: (r) => yesNo(r.same_as_student) },
  { label: 'would be reviewed', of: (r) => yesNo(r.review.required) },
  { label: 'block', of: (r) => r.block },
];

/** The report's figures a replay can change, each with how it reads. */
const REPORT_FACTS: ReadonlyArray<{ label: string; of: (r: TrialReport) => string }> = [
  { label: 'rounds compared', of: (r) => String(r.rounds) },
  { label: 'agreement with the selected decisions', of: (r) => `${r.candidate.agreement.count} of ${r.candidate.agreement.of} (${percent(r.candidate.agreement.rate)})` },
  { label: 'protected effects proposed differently', of: (r) => String(r.candidate.protected_differences) },
  { label: 'decisions that failed validation', of: (r) => String(r.candidate.invalid) },
  { label: 'blocks drawn', of: (r) => String(r.candidate.blocks) },
  { label: 'decisions with no recorded verdict', of: (r) => String(r.candidate.unknown_verdicts) },
  { label: 'phase it qualifies for', of: (r) => `${r.candidate.qualifies_for} (${PHASE_LABELS[r.candidate.qualifies_for]})` },
];

/** The two trials compared: `same` when every round and figure is, else each difference in words (figures first, then rounds). */
export interface TrialReplayComparison {
  same: boolean;
  differences: string[];
  /** The rounds compared (the longer of the two). */
  rounds: number;
}

/** A recorded trial and its replay compared, round by round and figure by figure. */
export function compareTrials(recorded: Pick<RecordedTrial, 'rounds' | 'report'>, replayed: Pick<RecordedTrial, 'rounds' | 'report'>): TrialReplayComparison {
  const differences: string[] = [];
  if (recorded.report && replayed.report) {
    for (const fact of REPORT_FACTS) {
      const a = fact.of(recorded.report);
      const b = fact.of(replayed.report);
      if (a !== b) differences.push(`Report · ${fact.label}: ${a} recorded → ${b} replayed.`);
    }
  } else if (recorded.report || replayed.report) {
    differences.push(recorded.report ? 'The recorded trial has a report; the replay ended without one.' : 'The replay has a report; the recorded trial ended without one.');
  }
  const byIndex = new Map(replayed.rounds.map((r) => [r.index, r]));
  for (const a of recorded.rounds) {
    const b = byIndex.get(a.index);
    if (!b) {
      differences.push(`${capital(trialRoundPlace(a))}: only in the recorded trial.`);
      continue;
    }
    const changed = ROUND_FACTS.flatMap((fact) => {
      const x = fact.of(a);
      const y = fact.of(b);
      return x === y ? [] : [`${fact.label} ${x} → ${y}`];
    });
    if (changed.length > 0) differences.push(`${capital(trialRoundPlace(a))}: ${changed.join(' · ')}.`);
  }
  const recordedIndexes = new Set(recorded.rounds.map((r) => r.index));
  for (const b of replayed.rounds) if (!recordedIndexes.has(b.index)) differences.push(`${capital(trialRoundPlace(b))}: only in the replay.`);
  return { same: differences.length === 0, differences, rounds: Math.max(recorded.rounds.length, replayed.rounds.length) };
}

/** The comparison's headline, in words. */
export function trialReplayHeadline(c: TrialReplayComparison): string {
  return c.same
    ? `The replay made the same report: every one of the ${c.rounds} rounds compared as recorded.`
    : `The replay's report differs from the recorded one in ${c.differences.length} ${c.differences.length === 1 ? 'place' : 'places'} (listed below): today's parsing, validation or comparison judges these rounds differently.`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
