import { useEffect, useState } from 'react';
import type { PriceList } from '@shared/accounting/price-list';
import { useOptionalHost } from '../../app/HostProvider';
import type { HostClient } from '../../host/host-client';

/**
 * The app's price list (issue 31), as the host keeps it (prices.json in its data folder). Every
 * screen that prices a run reads it through here; a save tells them all to read it again.
 */
const CHANGED = 'steward:prices-changed';

export interface PriceListState {
  prices: PriceList;
  /** The list has arrived from the host (before: every figure is priced as an empty list would). */
  loaded: boolean;
  /** The host could not read its file, or could not be asked. */
  problem?: string;
}

export function usePriceList(): PriceListState {
  // Outside a HostProvider (a table rendered alone) the list stays empty.
  const host = useOptionalHost();
  const client = host?.client;
  const connection = host?.connection;
  const [state, setState] = useState<PriceListState>({ prices: {}, loaded: false });
  useEffect(() => {
    if (!client || connection !== 'open') return;
    let live = true;
    const load = () =>
      client
        .request('prices.get', {})
        .then((got) => live && setState({ prices: got.prices, loaded: true, ...(got.problem ? { problem: got.problem } : {}) }))
        .catch((err: unknown) => live && setState((s) => ({ ...s, problem: `The price list could not be read: ${err instanceof Error ? err.message : String(err)}` })));
    void load();
    window.addEventListener(CHANGED, load);
    return () => {
      live = false;
      window.removeEventListener(CHANGED, load);
    };
  }, [client, connection]);
  return state;
}

/** Saves the whole list and has every screen read it again. */
export async function savePriceList(client: Pick<HostClient, 'request'>, prices: PriceList): Promise<void> {
  await client.request('prices.save', { prices });
  window.dispatchEvent(new Event(CHANGED));
}
