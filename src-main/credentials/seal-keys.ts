import { randomBytes } from 'node:crypto';
import type { CredentialStore } from './credential-store';
import { createKeychainStore } from './keychain-store';

/**
 * The keychain service the sealing keys live under: a service of their own, so they are never listed
 * (or deleted) with the user's credentials in Settings.
 */
export const SEAL_KEYCHAIN_SERVICE = 'steward-sealed-values';

/** A 256-bit key for AES-256-GCM and the id a sealed checkpoint names it by. */
export interface SealKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * Where the keys that seal a waiting run's sensitive values live (issue 27). The values themselves
 * never reach the keychain; only the key does, so a copy of the data folder alone opens nothing.
 */
export interface SealKeys {
  /** The key to seal with now, made (and kept in the keychain) on first use. Throws CredentialStoreError without a keychain. */
  current(): Promise<SealKey>;
  /** The key a checkpoint was sealed with; undefined when it is gone (deleted). Throws CredentialStoreError without a keychain. */
  byId(id: string): Promise<SealKey | undefined>;
}

const KEY_BYTES = 32;
const ID_PREFIX = 'seal-';

/**
 * Sealing keys in a credential store: one entry per key, the key's id as the entry's name and the key
 * in base64 as its value. Keys are only ever added, never overwritten, so two processes that make
 * one at the same moment each keep theirs (a checkpoint names its key by id).
 */
export function sealKeysIn(store: CredentialStore): SealKeys {
  let current: Promise<SealKey> | undefined;
  const byId = async (id: string): Promise<SealKey | undefined> => {
    if (!id.startsWith(ID_PREFIX)) return undefined;
    const value = await store.get(id);
    const key = value === undefined ? undefined : Buffer.from(value, 'base64');
    return key?.length === KEY_BYTES ? { id, key } : undefined;
  };
  const findOrMake = async (): Promise<SealKey> => {
    for (const name of (await store.list()).filter((n) => n.startsWith(ID_PREFIX)).sort()) {
      const found = await byId(name);
      if (found) return found;
    }
    const made: SealKey = { id: `${ID_PREFIX}${randomBytes(8).toString('hex')}`, key: randomBytes(KEY_BYTES) };
    await store.set(made.id, made.key.toString('base64'));
    return made;
  };
  return {
    current() {
      // Asked once per process; a failure is asked again next time (a keychain unlocked since).
      current ??= findOrMake().catch((err: unknown) => {
        current = undefined;
        throw err;
      });
      return current;
    },
    byId,
  };
}

/** The sealing keys in the OS keychain (tests pass a service of their own). */
export function keychainSealKeys(options: { service?: string; timeoutMs?: number } = {}): SealKeys {
  return sealKeysIn(createKeychainStore({ service: options.service ?? SEAL_KEYCHAIN_SERVICE, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) }));
}

let shared: SealKeys | undefined;

/** The process's keychain sealing keys (one lookup per process). */
export function defaultSealKeys(): SealKeys {
  shared ??= keychainSealKeys();
  return shared;
}
