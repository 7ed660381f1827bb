import { useEffect, useState } from 'react';
import type { PendingAsk } from '@shared/contracts/person-ask';
import { useHost } from '../../app/HostProvider';

/**
 * What MCP servers ask the person right now, in every run: the host's list on connect, then each
 * `asks` frame it pushes. Held by the host only, so a reload shows them again. The page holds it
 * once (WaitingProvider); screens read it from there.
 */
export function usePersonAsks(): PendingAsk[] {
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
  return asks;
}
