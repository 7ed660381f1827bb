import { useLiveQuery } from 'dexie-react-hooks';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { roundNumber } from '@shared/contracts/round-number';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { formatDateTime } from '../../view/format';
import { LearningExampleDetail } from './LearningExampleDetail';
import { KIND_LABELS } from './LearningTable';
import { exampleRow } from './example-row';
import { hostedPrompt } from './example-prompt';
import { useHistoryAnswer } from '../../host/use-history-answer';
import { HostRequestError } from '../../host/host-client';

/**
 * `#/learning/ID`: one learning example on its own page, so it can be linked to (a bookmark, a note, another person
 * on this machine) and still shows after a reload; the host answers from its history. An id it does not hold says so, and how to get it.
 */
export function LearningExamplePage({ exampleId }: { exampleId: string }) {
  const { db, client } = useHost();
  // From the host's history: undefined while loading, { row: undefined } for an id it does not hold.
  const asked = useHistoryAnswer(exampleId, async () => {
    try {
      // The host answers with the whole prompt too: the detail shows it without asking again.
      const { example: hosted } = await client.request('learning.example', { id: exampleId });
      return { row: exampleRow(hosted), prompt: hostedPrompt(hosted) };
    } catch (err) {
      if (err instanceof HostRequestError && err.code === 'not_found') return { row: undefined };
      throw err;
    }
  });
  const found = asked.value;
  const example = found?.row;
  const workflow = useLiveQuery(async () => (example?.spec_id === undefined ? undefined : db.workflows.get(example.spec_id)), [db, example?.spec_id]);
  return (
    <div className="page page--wide" data-testid="learning-example-page">
      <p className="muted page__back">
        <a href={routeHref({ name: 'learning' })}>← All learning examples</a>
      </p>
      {found === undefined && asked.problem !== undefined ? (
        <p className="error" role="alert" data-testid="learning-example-problem">
          This example could not be read from the host’s history: {asked.problem}
        </p>
      ) : found === undefined ? (
        <p className="muted">Loading…</p>
      ) : example === undefined ? (
        <div className="empty" data-testid="learning-example-missing">
          <h1>No learning example “{exampleId}” here</h1>
          <p>
            This Steward’s history holds no example with that id. Its run may have been deleted, or it ran on another machine or data folder: open Steward from there, or import the
            run’s trace on the <a href={routeHref({ name: 'runs' })}>Runs</a> screen.
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
            <LearningExampleDetail example={example} prompt={found.prompt} />
          </div>
        </>
      )}
    </div>
  );
}
