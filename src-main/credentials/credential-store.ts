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

/**
 * What went wrong with the keychain itself, when it was the keychain: it could not be reached (no
 * Secret Service, no session bus), it is locked, or it did not answer in time. A run that needed a
 * credential says each in its own words (resolve-credentials.ts: keychainFailureWords).
 */
export type KeychainFailure = 'unreachable' | 'locked' | 'timeout' | 'other';

/**
 * A keychain that cannot be reached (no Secret Service, locked keyring) with the reason. `message`
 * carries the keychain's own reason (for a terminal and the host's log); `plain`, when set, says the
 * same to a person in the app without it (no D-Bus addresses, no library names). `failure` and
 * `reason` (the keychain's own first line) are set when the keychain failed, not a name or a value.
 */
export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError';
  constructor(
    message: string,
    readonly plain?: string,
    readonly failure?: KeychainFailure,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** What a page is told of a keychain failure: the plain words when there are some, else the message. */
export function credentialErrorText(err: CredentialStoreError): string {
  return err.plain ?? err.message;
}
