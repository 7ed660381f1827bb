import { useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../app/HostProvider';
import { routeHref, type Route } from '../app/routing';
import { ShieldIcon } from './Icons';
import { OpenAIProviderItem, ProviderModels } from './OpenAIProviderItem';
import { useOpenAIServers } from './use-openai-servers';
import { useWaiting } from '../screens/interventions/use-waiting';
import { WaitingNavLink } from '../screens/interventions/WaitingNavLink';

function NavLink({ to, active, children }: { to: Route; active: boolean; children: string }) {
  return (
    <a className={`nav__link ${active ? 'nav__link--active' : ''}`} href={routeHref(to)} aria-current={active ? 'page' : undefined}>
      {children}
    </a>
  );
}

function ProviderPanel() {
  const { providers, connection, refreshProviders, db, client } = useHost();
  const ollama = providers?.ollama;
  // The OpenAI-compatible servers the user's model profiles use; Refresh asks them again too.
  const [round, setRound] = useState(0);
  const profiles = useLiveQuery(() => db.profiles.where('kind').anyOf('student', 'teacher').toArray(), [db]);
  const openai = useOpenAIServers(client, profiles, round);
  return (
    <section className="providers" aria-labelledby="providers-title" data-testid="provider-panel">
      <div className="providers__head">
        <h2 id="providers-title" className="sidebar__heading">
          Model providers
        </h2>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            refreshProviders();
            setRound((r) => r + 1);
          }}
          disabled={connection !== 'open'}
          aria-label="Refresh provider status"
        >
          Refresh
        </button>
      </div>
      <ul className="providers__list">
        <li className="provider">
          <span className="dot dot--ok" aria-hidden="true" />
          <span>
            <span className="provider__name">Replay</span>
            <span className="provider__detail">always available</span>
          </span>
        </li>
        <li className="provider" data-testid="ollama-status" data-reachable={ollama?.reachable ?? 'unknown'}>
          <span className={`dot ${ollama?.reachable ? 'dot--ok' : ollama ? 'dot--off' : 'dot--unknown'}`} aria-hidden="true" />
          <span>
            <span className="provider__name">Ollama{ollama?.version ? ` ${ollama.version}` : ''}</span>
            {!ollama && <span className="provider__detail">status unknown</span>}
            {ollama && !ollama.reachable && (
              <>
                <span className="provider__detail">Ollama not running</span>
                <span className="provider__hint">
                  Start it with <code>ollama serve</code> ({ollama.host}); Steward picks it up.
                </span>
              </>
            )}
            {ollama?.reachable && (
              <>
                <span className="provider__detail">
                  {ollama.models.length === 0 ? 'no models pulled yet' : `${ollama.models.length} model${ollama.models.length === 1 ? '' : 's'}`}
                </span>
                <ProviderModels names={ollama.models.map((m) => m.name)} />
              </>
            )}
          </span>
        </li>
        {openai.map((server) => (
          <OpenAIProviderItem key={`${server.template.base_url}|${server.template.api_key ?? ''}`} server={server} />
        ))}
      </ul>
    </section>
  );
}

export function Sidebar({ route }: { route: Route }) {
  const { info, client, connection } = useHost();
  const dropped = client.stats();
  const waiting = useWaiting();
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand__mark">
          <ShieldIcon size={20} />
        </span>
        <span className="brand__name">Steward</span>
      </div>
      <nav className="nav" aria-label="Main">
        <NavLink to={{ name: 'workflows' }} active={route.name.startsWith('workflow')}>
          Workflows
        </NavLink>
        <NavLink to={{ name: 'runs' }} active={route.name === 'runs' || route.name === 'run'}>
          Runs
        </NavLink>
        <WaitingNavLink count={waiting.count} active={route.name === 'interventions'} />
        <NavLink to={{ name: 'learning' }} active={route.name === 'learning'}>
          Learning
        </NavLink>
        <NavLink to={{ name: 'registry' }} active={route.name === 'registry'}>
          MCP registry
        </NavLink>
        <NavLink to={{ name: 'settings' }} active={route.name === 'settings'}>
          Settings
        </NavLink>
      </nav>
      <ProviderPanel />
      <footer className="sidebar__footer">
        <span className={`dot ${connection === 'open' ? 'dot--ok' : 'dot--off'}`} aria-hidden="true" />
        <span>
          {info ? `Host ${info.version} · ${info.shell === 'electron' ? 'desktop' : 'browser'}` : 'Host not connected'}
          {dropped.droppedFrames + dropped.droppedEvents > 0 && (
            <span className="provider__hint">{dropped.droppedFrames + dropped.droppedEvents} invalid frame(s) dropped</span>
          )}
        </span>
      </footer>
    </aside>
  );
}
