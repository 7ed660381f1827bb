import { useCallback, useMemo, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../../app/HostProvider';
import { storeInspection } from '../../db/registry';
import type { RegistryRow } from '../../db/db';

export interface ServerTools {
  /** Tool names by registered server id, for the servers inspected on this page (cached in Dexie). */
  byServer: Record<string, string[]>;
  /** The registered server being inspected now. */
  inspecting?: string;
  error?: string;
  inspect(server: string): void;
}

/** Tool names by server from the registry cache: only what an inspection reported. */
export function inspectedTools(rows: readonly RegistryRow[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of rows) if (r.inspected) (out[r.server] ??= []).push(r.tool);
  return out;
}

/** The inspected tools of registered servers, and a way to inspect one (mcp.inspect) into the cache. */
export function useServerTools(workspace: string | undefined): ServerTools {
  const { db, client } = useHost();
  const rows = useLiveQuery(() => db.registry.toArray(), [db]);
  const byServer = useMemo(() => inspectedTools(rows ?? []), [rows]);
  const [inspecting, setInspecting] = useState<string>();
  const [error, setError] = useState<string>();
  const inspect = useCallback(
    (server: string) => {
      setInspecting(server);
      setError(undefined);
      client
        .request('mcp.inspect', { server, ...(workspace ? { workspace } : {}) })
        .then((r) => storeInspection(db, server, r.tools))
        .catch((err: unknown) => setError(`Could not inspect ${server}: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => setInspecting(undefined));
    },
    [client, db, workspace],
  );
  return { byServer, inspecting, error, inspect };
}
