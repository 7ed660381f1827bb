import { routeHref } from '../../app/routing';
import { waitingLabel } from './waiting';

/** The sidebar's "Waiting for you" item: its badge shows the count; the link's name says it ("3 waiting for you"). */
export function WaitingNavLink({ count, active }: { count: number; active: boolean }) {
  return (
    <a
      className={`nav__link nav__link--waiting ${active ? 'nav__link--active' : ''}`}
      href={routeHref({ name: 'interventions' })}
      aria-current={active ? 'page' : undefined}
      aria-label={count > 0 ? waitingLabel(count) : 'Waiting for you: nothing'}
      data-testid="nav-waiting"
    >
      Waiting for you
      <span className="nav__badge" data-testid="waiting-count" data-count={count} aria-hidden="true" hidden={count === 0}>
        {count}
      </span>
    </a>
  );
}
