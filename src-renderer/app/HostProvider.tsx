import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { HostInfo, ProviderStatus } from '@shared/contracts/host-api';
import type { HostClient } from '../host/host-client';
import type { ConnectionState } from '../host/transport';
import { startHostSession, type IndexingState } from '../host/host-session';
import type { StewardDb } from '../db/db';

export interface HostContextValue {
  client: HostClient;
  db: StewardDb;
  connection: ConnectionState;
  /** Whether any connection has opened yet (the banner says "Connecting" before, "Reconnecting" after). */
  everConnected: boolean;
  info?: HostInfo;
  providers?: ProviderStatus;
  refreshProviders(): void;
  /** The last thing that went wrong in the background (start-up, storing events). */
  problem?: string;
  /** Browser-run page with no access token (opened without its link, or its link did not work). */
  tokenMissing: boolean;
  /** Why the one-time link this page was opened with did not work (used, expired, from an earlier start). */
  launchProblem?: string;
  /** While this page catches up with a history far ahead of it (a fresh profile): how far it is. */
  indexing?: IndexingState;
}

const HostContext = createContext<HostContextValue | null>(null);

/** Runs the host session (see host-session.ts) and exposes its state to the screens. */
export function HostProvider({ client, db, tokenMissing, launchProblem, children }: { client: HostClient; db: StewardDb; tokenMissing: boolean; launchProblem?: string; children: ReactNode }) {
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  const [everConnected, setEverConnected] = useState(false);
  const [info, setInfo] = useState<HostInfo>();
  const [providers, setProviders] = useState<ProviderStatus>();
  const [problem, setProblem] = useState<string>();
  const [indexing, setIndexing] = useState<IndexingState>();

  useEffect(() => {
    const session = startHostSession(client, db, {
      connection(state) {
        setConnection(state);
        if (state === 'open') setEverConnected(true);
      },
      info: setInfo,
      providers: setProviders,
      problem: setProblem,
      indexing: setIndexing,
    });
    return session.stop;
  }, [client, db]);

  const refreshProviders = useCallback(() => {
    client.request('providers.status', {}).then(setProviders, (err: unknown) => console.warn('[steward] providers.status', err));
  }, [client]);

  const value = useMemo<HostContextValue>(
    () => ({ client, db, connection, everConnected, info, providers, refreshProviders, problem, tokenMissing, launchProblem, indexing }),
    [client, db, connection, everConnected, info, providers, refreshProviders, problem, tokenMissing, launchProblem, indexing],
  );
  return <HostContext.Provider value={value}>{children}</HostContext.Provider>;
}

/** The host, or null outside a HostProvider (a component that also renders alone, in a test, reads nothing then). */
export function useOptionalHost(): HostContextValue | null {
  return useContext(HostContext);
}

export function useHost(): HostContextValue {
  const value = useContext(HostContext);
  if (!value) throw new Error('useHost outside HostProvider');
  return value;
}
