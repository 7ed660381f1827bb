import { useState } from 'react';
import { routeHref } from '../../app/routing';
import { waitingLabel } from './waiting';

/**
 * The sidebar's "Waiting for you" item: its badge shows the count; the link's name is the words it
 * shows, count included ("Waiting for you: 3"), so a voice command by what is seen finds it. A change of the count is also said once in a polite live region, wherever the person
 * is in the app: a run that starts waiting is heard, not only seen.
 */
export function WaitingNavLink({ count, active }: { count: number; active: boolean }) {
  // Empty until the count changes, so opening the app does not announce anything by itself.
  const [shown, setShown] = useState(count);
  const [said, setSaid] = useState('');
  if (shown !== count) {
    setShown(count);
    setSaid(waitingLabel(count));
  }
  return (
    <>
      <a
        className={`nav__link nav__link--waiting ${active ? 'nav__link--active' : ''}`}
        href={routeHref({ name: 'interventions' })}
        aria-current={active ? 'page' : undefined}
        aria-label={`Waiting for you: ${count > 0 ? count : 'nothing'}`}
        data-testid="nav-waiting"
      >
        Waiting for you{' '}
        <span className="nav__badge" data-testid="waiting-count" data-count={count} aria-hidden="true" hidden={count === 0}>
          {count}
        </span>
      </a>
      <span role="status" className="visually-hidden" data-testid="waiting-announcement">
        {said}
      </span>
    </>
  );
}
