import './zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { HostProvider } from './app/HostProvider';
import { captureTokenFromFragment, isAccessLink, readToken, redeemLaunchLink } from './host/access-token';
import { createHostClient } from './host/host-client';
import { pickTransport } from './host/pick-transport';
import { StewardDb } from './db/db';
import './styles.css';

const transport = pickTransport(window);
const client = createHostClient(transport);
const db = new StewardDb();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
const reactRoot = createRoot(root);

/** Renders the app; `launchProblem` is why a one-time link did not work (spent, expired, host gone): the banner says it. */
function render(launchProblem?: string): void {
  const tokenMissing = transport.kind === 'websocket' && readToken(window.sessionStorage) === null;
  reactRoot.render(
    <StrictMode>
      <HostProvider client={client} db={db} tokenMissing={tokenMissing} {...(launchProblem === undefined ? {} : { launchProblem })}>
        <App />
      </HostProvider>
    </StrictMode>,
  );
}

/**
 * An access link (`#launch=` one-time code, or `#token=` for scripts) is not a route: it leaves the
 * address bar at once, then a launch code is exchanged for the session token (stored for reloads).
 */
async function takeAccessLink(hash: string, nextRoute: () => void): Promise<void> {
  if (!isAccessLink(hash)) return;
  nextRoute();
  captureTokenFromFragment(hash, window.sessionStorage);
  const launch = await redeemLaunchLink(hash, window.sessionStorage, (input, init) => window.fetch(input, init));
  render(launch.kind === 'refused' ? launch.message : undefined);
  // A page its host refused (or that had no token) stopped trying: with the new token it tries again at once.
  if (readToken(window.sessionStorage) !== null) transport.reconnect?.();
}

// The same tab opened with a new access link (`steward open`'s, pasted here): only the fragment
// changes, so there is no reload; take the token here, and connect with it.
window.addEventListener('hashchange', () => {
  void takeAccessLink(window.location.hash, () => window.location.replace('#/workflows'));
});

const firstHash = window.location.hash;
if (isAccessLink(firstHash)) {
  void takeAccessLink(firstHash, () => window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/workflows`));
} else {
  render();
}
