import { useMemo } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent } from '@shared/contracts/events';
import { compareTrials, recordedTrial, trialReplayHeadline, trialRoundPlace, type RecordedTrial } from '@shared/learning/trial-replay';
import { useHost } from '../../app/HostProvider';
import { runEvents } from '../../db/db';
import { plural } from '../../view/format';
import { RecordedRunMissing } from './DifferencesPanel';
import { useHeldRun } from './use-held-run';

/**
 * A student trial's run (issue 31), where an agent run shows its rounds: its report in words (a
 * cancelled trial's first line says it covers only the rounds done), the rounds where a protected
 * effect was proposed differently or validation failed; and on a replay of a trial, the replay's
 * report compared with the recorded one.
 */
export function TrialRunPanel({ events, replayOf }: { events: readonly RunEvent[]; replayOf?: string }) {
  const trial = useMemo(() => recordedTrial(events), [events]);
  if (!trial) return null;
  return (
    <>
      {replayOf !== undefined && <TrialReplayDifferences replayOf={replayOf} replayed={trial} />}
      <section className="card promotion" aria-label="Trial report" data-testid="trial-run-report">
        <h2 className="promotion__title">
          Trial of {trial.candidate} on {trial.node.label} <span className="muted">· {plural(trial.rounds.length, 'round')} of {trial.total}</span>
        </h2>
        {trial.report ? (
          trial.report.words.map((line, i) => (
            <p key={line} className={i === 0 && trial.report?.stopped ? 'error' : undefined}>
              {line}
            </p>
          ))
        ) : (
          <p className="muted">{trial.status === undefined ? `Round ${trial.rounds.length + 1} of ${trial.total}… (no tool is executed)` : 'The trial ended without a report.'}</p>
        )}
        {trial.rounds.some((r) => r.protected_difference || !r.candidate.valid) && (
          <ul className="plain-list" data-testid="trial-run-rounds">
            {trial.rounds
              .filter((r) => r.protected_difference || !r.candidate.valid)
              .map((r) => (
                <li key={r.index}>
                  {trialRoundPlace(r)}: {r.protected_difference ? 'a protected effect proposed differently from the one selected' : `failed validation (${r.candidate.problem ?? 'no usable decision'})`}
                </li>
              ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** A trial replay's report against the recorded trial's, as both are stored here. */
function TrialReplayDifferences({ replayOf, replayed }: { replayOf: string; replayed: RecordedTrial }) {
  const { db } = useHost();
  const recordedEvents = useLiveQuery(() => runEvents(db, replayOf), [db, replayOf]);
  useHeldRun(replayOf);
  const recorded = useMemo(() => (recordedEvents ? recordedTrial(recordedEvents) : undefined), [recordedEvents]);
  const comparison = useMemo(() => (recorded && replayed.report ? compareTrials(recorded, replayed) : undefined), [recorded, replayed]);
  return (
    <section className="card promotion" aria-label="Differences from the recorded trial" data-testid="trial-differences" data-same={comparison?.same}>
      <h2 className="promotion__title">Compared with the recorded trial</h2>
      {!recorded ? (
        <RecordedRunMissing recorded={recordedEvents === undefined ? undefined : []} />
      ) : !comparison ? (
        <p className="muted">Comparing once the replay has its report…</p>
      ) : (
        <>
          <p data-testid="trial-differences-headline">{trialReplayHeadline(comparison)}</p>
          {comparison.differences.length > 0 && (
            <ul className="plain-list" data-testid="trial-differences-list">
              {comparison.differences.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
