import { useMemo } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent } from '@shared/contracts/events';
import { describeNodeDifference, invocationCount, nodeDifferencePlace, workflowDifferences } from '@shared/replay/compare-workflow-runs';
import { planWorkflowReplay } from '@shared/replay/workflow-replay';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { runEvents } from '../../db/db';
import { plural } from '../../view/format';
import { RecordedRunMissing, ReplayGaps } from './DifferencesPanel';
import { useHeldRun } from './use-held-run';

/**
 * "Differences" on a workflow replay's page: per node invocation (node, item, round), where its
 * decisions or what it ended with differ from the recorded run's, each linking to that node here.
 */
export function NodeDifferencesPanel({ runId, replayOf, events, live }: { runId: string; replayOf: string; events: readonly RunEvent[]; live: boolean }) {
  const { db } = useHost();
  const recorded = useLiveQuery(() => runEvents(db, replayOf), [db, replayOf]);
  // Its events come from the host's history when this browser does not keep them (issue 26).
  useHeldRun(replayOf);
  const differences = useMemo(() => (recorded ? workflowDifferences(recorded, events) : undefined), [recorded, events]);
  const count = useMemo(() => (recorded ? invocationCount(recorded, events) : 0), [recorded, events]);
  const gaps = useMemo(() => {
    const started = recorded?.find((e) => e.type === 'workflow.started');
    if (started?.type !== 'workflow.started') return [];
    try {
      return planWorkflowReplay(recorded ?? [], started, { live: false }).gaps;
    } catch {
      return [];
    }
  }, [recorded]);
  const where = differences ? new Set(differences.map((d) => d.invocation)).size : 0;
  return (
    <section className="card run-setup" aria-label="Differences from the recorded run" data-testid="differences">
      <h2 className="run-setup__heading">
        Differences from the recorded run{' '}
        <a href={routeHref({ name: 'run', runId: replayOf, tab: 'nodes' })} data-testid="replay-of" title={replayOf}>
          run {replayOf.slice(0, 8)}
        </a>
        {where > 0 && <span className="muted"> · {plural(where, 'node invocation')}</span>}
      </h2>
      {differences === undefined || recorded?.length === 0 ? (
        <RecordedRunMissing recorded={recorded} />
      ) : differences.length === 0 ? (
        <p className="muted" data-testid="differences-none">
          {live ? `No difference so far: ${plural(count, 'node invocation')} made the recorded decisions.` : `No differences: every node invocation (${count}) made the recorded decisions and ended as recorded.`}
        </p>
      ) : (
        <ul className="plain-list" data-testid="differences-list">
          {differences.map((d) => (
            <li key={`${d.invocation}:${d.kind === 'round' ? d.comparison.round : 'end'}`} data-testid="difference" data-invocation={d.invocation} data-kind={d.kind}>
              <a href={routeHref({ name: 'run', runId, tab: 'nodes', node: d.node })}>{nodeDifferencePlace(d)}</a>: {describeNodeDifference(d)}
            </li>
          ))}
        </ul>
      )}
      <ReplayGaps gaps={gaps} />
    </section>
  );
}
