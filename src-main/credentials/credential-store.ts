/**
 * Where credentials live: the OS keychain (Secret Service on Linux, Keychain on macOS, Credential
 * Manager on Windows). Values only ever flow in (set) and to the host's own resolution (get); the
 * renderer can list names and delete, never read.
 */
export interface CredentialStore {
  list(): Promise<string[]>;
  set(name: string, value: string): Promise<void>;
  /** undefined when there is no such credential. */
  get(name: string): Promise<string | undefined>;
  delete(name: string): Promise<boolean>;
}

/** A keychain that cannot be reached (no Secret Service, locked keyring) with the reason. */
export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError';
}
