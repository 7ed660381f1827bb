import { openWaitingStores, type WaitingStores } from '../src-main/engine/waiting-stores';

/**
 * Test seam: a data folder's waiting runs (its history database's `waiting` table) on a connection
 * of their own — a host's stores before or after its restart, or another process's — closed by the
 * test's cleanups.
 */
export function waitingStoresIn(dataDir: string, cleanups: { push(cleanup: () => void): unknown }, log?: (line: string) => void): WaitingStores {
  const stores = openWaitingStores(dataDir, log);
  cleanups.push(stores.close);
  return stores;
}
