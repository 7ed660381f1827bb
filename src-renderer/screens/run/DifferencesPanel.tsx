import { useMemo } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent } from '@shared/contracts/events';
import { compareDecisions, type RoundComparison } from '@shared/replay/compare-runs';
import { describeDifference } from '@shared/replay/describe-difference';
import { roundDecisions } from '@shared/replay/round-decisions';
import { recordedScript } from '@shared/replay/replay-script';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { runEvents } from '../../db/db';
import { Spinner } from '../../components/Icons';
import { plural } from '../../view/format';
import { roundNumber } from '@shared/contracts/round-number';
import { useHeldRun } from './use-held-run';

/** Scrolls to a round of this run and focuses it (keyboard users land there). */
function goToRound(round: number): void {
  const card = document.querySelector<HTMLElement>(`[data-testid="round-card"][data-round="${round}"]`);
  card?.scrollIntoView({ block: 'start' });
  card?.focus({ preventScroll: true });
}

/**
 * The rounds of a replay whose decisions differ from the recorded run's, each linking to its
 * round (a round only the recorded run had links to that run). `rounds`: rounds in either run.
 */
export function DifferencesList({ differences, rounds, recordedRunId, live }: { differences: readonly RoundComparison[]; rounds: number; recordedRunId: string; live: boolean }) {
  if (differences.length === 0) {
    return (
      <p className="muted" data-testid="differences-none">
        {live ? `No difference so far: ${plural(rounds, 'round')} made the recorded decisions.` : `No differences: every round (${rounds}) made the recorded decisions.`}
      </p>
    );
  }
  return (
    <ul className="plain-list" data-testid="differences-list">
      {differences.map((c) => (
        <li key={c.round} data-testid="difference" data-round={c.round} data-kind={c.kind}>
          {c.kind === 'only_recorded' ? (
            <a href={routeHref({ name: 'run', runId: recordedRunId, tab: 'rounds' })}>Round {roundNumber(c.round)}</a>
          ) : (
            <button type="button" className="link-button" onClick={() => goToRound(c.round)}>
              Round {roundNumber(c.round)}
            </button>
          )}
          : {describeDifference(c)}
        </li>
      ))}
    </ul>
  );
}

/** The recorded answers the replay could not give back exactly (stored trimmed or masked, a shadow not recorded…). */
export function ReplayGaps({ gaps }: { gaps: readonly string[] }) {
  if (gaps.length === 0) return null;
  return (
    <details data-testid="replay-gaps">
      <summary className="muted">{plural(gaps.length, 'answer')} not replayed exactly</summary>
      <ul className="plain-list">
        {gaps.map((gap) => (
          <li key={gap}>{gap}</li>
        ))}
      </ul>
    </details>
  );
}

/** While the recorded run is read, or when it is not stored here: what a Differences panel says instead. */
export function RecordedRunMissing({ recorded }: { recorded: readonly RunEvent[] | undefined }) {
  return recorded === undefined ? (
    <p className="muted">
      <Spinner /> Reading the recorded run…
    </p>
  ) : (
    <p className="muted" data-testid="differences-unknown">
      The recorded run is not stored here (deleted, or from another data folder): nothing to compare with.
    </p>
  );
}

/** "Differences" on a replay's page: its decisions against the recorded run's, as both are stored here. */
export function DifferencesPanel({ replayOf, events, live }: { replayOf: string; events: readonly RunEvent[]; live: boolean }) {
  const { db } = useHost();
  const recorded = useLiveQuery(() => runEvents(db, replayOf), [db, replayOf]);
  // Its events come from the host's history when this browser does not keep them (issue 26).
  useHeldRun(replayOf);
  const rounds = useMemo(() => (recorded ? compareDecisions(roundDecisions(recorded), roundDecisions(events)) : undefined), [recorded, events]);
  const differences = rounds?.filter((c) => c.kind !== 'same');
  const gaps = useMemo(() => (recorded ? recordedScript(recorded).gaps : []), [recorded]);
  return (
    <section className="card run-setup" aria-label="Differences from the recorded run" data-testid="differences">
      <h2 className="run-setup__heading">
        Differences from the recorded run {differences && differences.length > 0 && <span className="muted">· {plural(differences.length, 'round')}</span>}
      </h2>
      {rounds === undefined || recorded?.length === 0 ? (
        <RecordedRunMissing recorded={recorded} />
      ) : (
        <>
          <DifferencesList differences={differences ?? []} rounds={rounds.length} recordedRunId={replayOf} live={live} />
          <ReplayGaps gaps={gaps} />
        </>
      )}
    </section>
  );
}
