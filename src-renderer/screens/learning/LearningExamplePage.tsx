import { useLiveQuery } from 'dexie-react-hooks';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { roundNumber } from '@shared/contracts/round-number';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { formatDateTime } from '../../view/format';
import { LearningExampleDetail } from './LearningExampleDetail';
import { KIND_LABELS } from './LearningTable';

/**
 * `#/learning/ID`: one learning example on its own page, so it can be linked to (a bookmark, a note, another person
 * on this machine) and still shows after a reload. An id this browser does not hold says so, and how to get it.
 */
export function LearningExamplePage({ exampleId }: { exampleId: string }) {
  const { db } = useHost();
  // Wrapped: undefined while loading, { row: undefined } for an id not held here.
  const found = useLiveQuery(async () => ({ row: await db.learning_examples.get(exampleId) }), [db, exampleId]);
  const example = found?.row;
  const workflow = useLiveQuery(async () => (example?.spec_id === undefined ? undefined : db.workflows.get(example.spec_id)), [db, example?.spec_id]);
  return (
    <div className="page page--wide" data-testid="learning-example-page">
      <p className="muted page__back">
        <a href={routeHref({ name: 'learning' })}>← All learning examples</a>
      </p>
      {found === undefined ? (
        <p className="muted">Loading…</p>
      ) : example === undefined ? (
        <div className="empty" data-testid="learning-example-missing">
          <h1>No learning example “{exampleId}” here</h1>
          <p>
            This browser holds no example with that id. Its run may have been deleted, or its trace not reached this browser yet (it arrives from the Steward host that ran it):
            open Steward from that host, or import the run’s trace on the <a href={routeHref({ name: 'runs' })}>Runs</a> screen.
          </p>
        </div>
      ) : (
        <>
          <header className="page__head">
            <h1 className="page__title" data-testid="learning-example-title">
              {KIND_LABELS[example.kind]} · round {roundNumber(example.round)}
            </h1>
            <p className="page__subtitle">
              {workflow?.name ?? example.spec_id ?? 'unknown workflow'} · {formatDateTime(example.ts)}
              {example.rule && ` · sent to review: ${REVIEW_RULE_LABELS[example.rule]}`}
            </p>
          </header>
          <div className="card">
            <LearningExampleDetail example={example} />
          </div>
        </>
      )}
    </div>
  );
}
