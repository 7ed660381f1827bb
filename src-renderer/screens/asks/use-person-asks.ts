import { useEffect, useState } from 'react';
import type { PendingAsk } from '@shared/contracts/person-ask';
import { useHost } from '../../app/HostProvider';

/**
 * What MCP servers ask the person right now (all runs, or one): the host's list on connect, then
 * each `asks` frame it pushes. Held by the host only, so a reload shows them again.
 */
export function usePersonAsks(runId?: string): PendingAsk[] {
  const { client, connection } = useHost();
  const [asks, setAsks] = useState<PendingAsk[]>([]);
  useEffect(() => {
    let live = true;
    const off = client.onAsks((list) => live && setAsks(list));
    if (connection === 'open') {
      client.request('asks.pending', {}).then(
        (r) => live && setAsks(r.asks),
        (err: unknown) => console.warn('[steward] asks.pending', err),
      );
    }
    return () => {
      live = false;
      off();
    };
  }, [client, connection]);
  return runId === undefined ? asks : asks.filter((a) => a.run_id === runId);
}
