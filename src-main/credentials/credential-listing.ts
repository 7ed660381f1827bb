import type { HostResult } from '@shared/contracts/host-api';
import { CredentialStoreError, credentialErrorText, type CredentialStore } from './credential-store';

/**
 * `credentials.list` for the pages: a keychain that cannot be reached is an answer, not an error, so
 * a page knows at load that nothing can be stored (and asks no one to approve a write that would
 * fail). The host's terminal gets one plain line when the keychain becomes unreachable (pages list
 * often: not one per request, and never a stack trace) and one when it is back.
 */
export function createCredentialListing(store: CredentialStore, log: (line: string) => void): () => Promise<HostResult<'credentials.list'>> {
  let lastProblem: string | undefined;
  return async () => {
    try {
      const names = await store.list();
      if (lastProblem !== undefined) log('The OS keychain is reachable again.');
      lastProblem = undefined;
      return { credentials: names.map((name) => ({ name })) };
    } catch (err) {
      if (!(err instanceof CredentialStoreError)) throw err;
      if (lastProblem !== err.message) log(`Credentials are unavailable: ${err.message}`);
      lastProblem = err.message;
      return { credentials: [], unavailable: credentialErrorText(err) };
    }
  };
}
