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
 * A keychain that cannot be reached (no Secret Service, locked keyring) with the reason. `message`
 * carries the keychain's own reason (for a terminal and the host's log); `plain`, when set, says the
 * same to a person in the app without it (no D-Bus addresses, no library names).
 */
export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError';
  constructor(
    message: string,
    readonly plain?: string,
  ) {
    super(message);
  }
}

/** What a page is told of a keychain failure: the plain words when there are some, else the message. */
export function credentialErrorText(err: CredentialStoreError): string {
  return err.plain ?? err.message;
}
