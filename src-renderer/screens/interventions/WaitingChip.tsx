import { routeHref } from '../../app/routing';
import { waitingLabel } from './waiting';

/** On a workflow's card or row: how many of its questions wait, linked to the Interventions view. */
export function WaitingChip({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <a className="waiting-chip" href={routeHref({ name: 'interventions' })} data-testid="workflow-waiting" data-count={count}>
      <span className="pulse waiting-chip__pulse" aria-hidden="true" />
      {waitingLabel(count)}
    </a>
  );
}
