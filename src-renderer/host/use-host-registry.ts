import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { EffectOverride, RegisteredServer, Workspace } from '@shared/contracts/host-registry';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { HostClient } from './host-client';
import { useHost } from '../app/HostProvider';

/** What the host holds for the page: shown from the host, changed only by explicit actions. */
export interface HostRegistryState {
  servers: RegisteredServer[];
  workspaces: Workspace[];
  overrides: EffectOverride[];
  privacy: PrivacyPolicy;
}

interface Store {
  state?: HostRegistryState;
  error?: string;
  listeners: Set<() => void>;
  loading?: Promise<void>;
}

// One store per client: every screen sees the same state, and one refresh updates them all.
const stores = new WeakMap<HostClient, Store>();

function storeOf(client: HostClient): Store {
  let store = stores.get(client);
  if (!store) {
    store = { listeners: new Set() };
    stores.set(client, store);
  }
  return store;
}

function load(client: HostClient, store: Store): Promise<void> {
  store.loading ??= Promise.all([
    client.request('servers.list', {}),
    client.request('workspaces.list', {}),
    client.request('effects.list', {}),
    client.request('privacy.get', {}),
  ])
    .then(([s, w, e, p]) => {
      store.state = { servers: s.servers, workspaces: w.workspaces, overrides: e.overrides, privacy: p.policy };
      store.error = undefined;
    })
    .catch((err: unknown) => {
      store.error = err instanceof Error ? err.message : String(err);
    })
    .finally(() => {
      store.loading = undefined;
      for (const l of store.listeners) l();
    });
  return store.loading;
}

/** The host's registry, loaded once the connection opens; `refresh` after an explicit action. */
export function useHostRegistry(): { state?: HostRegistryState; error?: string; refresh(): Promise<void> } {
  const { client, connection } = useHost();
  const store = storeOf(client);
  const subscribe = useCallback(
    (listener: () => void) => {
      store.listeners.add(listener);
      return () => store.listeners.delete(listener);
    },
    [store],
  );
  // The same snapshot on a server render (a static render of a screen in a test).
  const snapshot = useSyncExternalStore(subscribe, () => store.state, () => store.state);
  useEffect(() => {
    if (connection === 'open' && !store.state && !store.loading) void load(client, store);
  }, [client, connection, store]);
  const refresh = useCallback(() => load(client, store), [client, store]);
  return { state: snapshot, error: store.error, refresh };
}
