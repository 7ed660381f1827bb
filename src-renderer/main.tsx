import './zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { HostProvider } from './app/HostProvider';
import { captureTokenFromFragment, readToken } from './host/access-token';
import { createHostClient } from './host/host-client';
import { pickTransport } from './host/pick-transport';
import { StewardDb } from './db/db';
import './styles.css';

// The `#token=…` fragment is the access link, not a route: store it, then replace it with a route.
if (captureTokenFromFragment(window.location.hash, window.sessionStorage)) {
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/workflows`);
}

// The same tab opened with a new access link (the host restarted and printed a new token): only the
// fragment changes, so there is no reload; take the token here, and the next reconnect uses it.
window.addEventListener('hashchange', () => {
  if (captureTokenFromFragment(window.location.hash, window.sessionStorage)) window.location.replace('#/workflows');
});

const transport = pickTransport(window);
const client = createHostClient(transport);
const db = new StewardDb();
const tokenMissing = transport.kind === 'websocket' && readToken(window.sessionStorage) === null;

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <HostProvider client={client} db={db} tokenMissing={tokenMissing}>
      <App />
    </HostProvider>
  </StrictMode>,
);
