import { AsyncEntry, findCredentialsAsync, type EntryOptions } from '@napi-rs/keyring';
import { CredentialName } from '@shared/contracts/credentials';
import { CredentialStoreError, type CredentialStore } from './credential-store';

export interface KeychainStoreOptions {
  /** The keychain service every entry is filed under; tests use a unique one. */
  service?: string;
  /**
   * How long one keychain call may take before it fails with a CredentialStoreError. Generous on
   * purpose: on a desktop the keychain may be showing the user an unlock prompt.
   */
  timeoutMs?: number;
}

export const DEFAULT_KEYCHAIN_SERVICE = 'steward';
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Pinned to the Secret Service on Linux: the library's default falls back to the kernel keyring,
 * which forgets everything at logout, so a missing Secret Service must be an error, not a silent
 * downgrade. Ignored on macOS and Windows.
 */
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

/**
 * A CredentialStore over the OS keychain (`@napi-rs/keyring`): one entry per credential, the
 * credential's name as the account, under one service.
 *
 * Listing enumerates the service's entries in the keychain itself (`findCredentialsAsync`), so the
 * list lives where the values live: no index file that a wiped data folder could lose or that could
 * drift from the keychain. The enumeration also returns values; they are dropped on the spot.
 *
 * No value ever reaches an error message or a log: errors carry the operation, the name and the
 * keychain's own reason (which never contains a value; it is scrubbed anyway on `set`).
 */
export function createKeychainStore(options: KeychainStoreOptions = {}): CredentialStore {
  const service = options.service ?? DEFAULT_KEYCHAIN_SERVICE;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const entry = (name: string) => new AsyncEntry(service, name, ENTRY_OPTIONS);

  const call = async <T>(operation: string, run: () => Promise<T>, secret?: string): Promise<T> => {
    try {
      // Through a promise: creating an entry already talks to the keychain and may throw at once.
      return await withTimeout(Promise.resolve().then(run), timeoutMs, operation);
    } catch (err) {
      throw toStoreError(operation, err, secret);
    }
  };

  return {
    async list() {
      const found = await call('list credentials', () => findCredentialsAsync(service));
      const names = new Set<string>();
      for (const credential of found) if (CredentialName.safeParse(credential.account).success) names.add(credential.account);
      return [...names].sort();
    },
    async set(name, value) {
      const valid = checkName(name);
      if (value.length === 0) throw new CredentialStoreError(`credential ${valid}: the value is empty`);
      await call(`store credential ${valid}`, () => entry(valid).setPassword(value), value);
    },
    async get(name) {
      const valid = checkName(name);
      const value = await call(`read credential ${valid}`, () => entry(valid).getPassword());
      return value ?? undefined;
    },
    async delete(name) {
      const valid = checkName(name);
      return call(`delete credential ${valid}`, () => entry(valid).deleteCredential());
    },
  };
}

function checkName(name: string): CredentialName {
  const parsed = CredentialName.safeParse(name);
  if (!parsed.success) {
    // The rejected text is not echoed: it might be a value typed where the name belongs.
    throw new CredentialStoreError(`not a valid credential name: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** A keychain that never answers (a stuck D-Bus peer) must not hang a run or a test. */
function withTimeout<T>(promise: Promise<T>, ms: number, operation: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CredentialStoreError(
            `The OS keychain did not answer within ${Math.round(ms / 1000)} s (${operation})`,
            `The keychain did not answer within ${Math.round(ms / 1000)} seconds. If it shows an unlock prompt, answer it and try again.`,
            'timeout',
            `no answer within ${Math.round(ms / 1000)} s (${operation})`,
          ),
        ),
      ms,
    );
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The keychain's failure as one actionable message; the value (if any) is scrubbed from the reason. */
function toStoreError(operation: string, err: unknown, secret?: string): CredentialStoreError {
  if (err instanceof CredentialStoreError) return err;
  const raw = err instanceof Error ? err.message : String(err);
  let reason = (raw.split('\n')[0] ?? raw).slice(0, 300);
  if (secret) reason = reason.split(secret).join('••••');
  const linux = process.platform === 'linux';
  if (/d-?bus|zbus/i.test(raw)) {
    return new CredentialStoreError(
      `The OS keychain is not reachable (${reason}): ${linux ? 'on Linux Steward needs a Secret Service such as gnome-keyring running in your session (and a D-Bus session bus)' : 'check that the system keychain is available'} — could not ${operation}`,
      linux
        ? 'There is no keychain on this computer that Steward can use: it needs a Secret Service (such as GNOME Keyring or KWallet) running in your desktop session. Until there is one, credentials cannot be stored or used.'
        : 'The system keychain is not available, so credentials cannot be stored or used. Check that it is set up and unlocked.',
      'unreachable',
      reason,
    );
  }
  if (/no result found|locked/i.test(raw)) {
    return new CredentialStoreError(
      `The OS keychain is locked or has no default keyring (${reason}): unlock your login keyring${linux ? ' (e.g. start gnome-keyring-daemon with --unlock)' : ''} and try again — could not ${operation}`,
      'The keychain is locked or has no default keyring. Unlock your login keyring and try again.',
      'locked',
      reason,
    );
  }
  return new CredentialStoreError(`The OS keychain could not ${operation} (${reason})`, undefined, 'other', reason);
}
