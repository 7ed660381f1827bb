import { CredentialStoreError, type CredentialStore } from '../src-main/credentials/credential-store';
import { sealKeysIn, type SealKeys } from '../src-main/credentials/seal-keys';

/**
 * Test doubles for the keychain that holds the sealing keys (issue 27): the real sealing
 * (AES-256-GCM in sealed-box.ts) over keys kept in memory, so the key-missing and no-keychain paths
 * are testable without a Secret Service. The real keychain is tested where a session bus exists.
 */
export interface MemorySealKeys extends SealKeys {
  /** The keychain entries themselves: `forget()` deletes them all (a key deleted in the keychain). */
  readonly entries: Map<string, string>;
  forget(): void;
}

export function memorySealKeys(entries = new Map<string, string>()): MemorySealKeys {
  const store: CredentialStore = {
    list: async () => [...entries.keys()],
    set: async (name, value) => void entries.set(name, value),
    get: async (name) => entries.get(name),
    delete: async (name) => entries.delete(name),
  };
  return { ...sealKeysIn(store), entries, forget: () => entries.clear() };
}

/** A computer with no keychain: every call fails as the real store does without a Secret Service. */
export function noKeychainSealKeys(): SealKeys {
  const fail = async (): Promise<never> => {
    throw new CredentialStoreError(
      'The OS keychain is not reachable (test double: no session bus)',
      'There is no keychain on this computer that Steward can use: it needs a Secret Service (such as GNOME Keyring or KWallet) running in your desktop session.',
    );
  };
  return { current: fail, byId: fail };
}
