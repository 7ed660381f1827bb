import { z } from 'zod';

/** A credential's name in the OS keychain: letters, digits, `.`, `_`, `-`. */
export const CredentialName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a credential name uses letters, digits, ".", "_" and "-" (at most 64)');
export type CredentialName = z.infer<typeof CredentialName>;

export const CREDENTIAL_PREFIX = 'keychain:';

/**
 * A reference to a secret held in the OS keychain (`keychain:NAME`). Specs, profiles and the
 * renderer only ever hold references; the host resolves them when it starts a provider or server.
 */
export const CredentialRef = z
  .string()
  .regex(/^keychain:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a credential reference looks like keychain:NAME');
export type CredentialRef = z.infer<typeof CredentialRef>;

export function credentialNameOf(ref: CredentialRef): string {
  return ref.slice(CREDENTIAL_PREFIX.length);
}

export function isCredentialRef(value: string): value is CredentialRef {
  return CredentialRef.safeParse(value).success;
}

/** What the app may know about a stored credential: its name, never its value. */
export const CredentialInfo = z.object({ name: CredentialName }).strict();
export type CredentialInfo = z.infer<typeof CredentialInfo>;
