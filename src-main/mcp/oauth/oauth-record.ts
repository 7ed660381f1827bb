import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CredentialStore } from '../../credentials/credential-store';

/**
 * What Steward keeps about one signed-in remote MCP server: the client it registered (dynamic
 * client registration or a client ID metadata document) and the tokens it holds, keyed by the
 * server's address and the issuer of the authorization server that issued them (SEP-2352). One OS
 * keychain entry per server address, never a file: `mcp-oauth.<host>.<hash>`, visible (and
 * deletable, which signs out) in the credentials list. Its `issuer` says which authorization
 * server the credentials belong to: they are presented to that one only (keychain-oauth-provider.ts),
 * and a sign-in with another one replaces them.
 *
 * An entry written before Steward keyed them by issuer has no `issuer` of its own; the SDK stamped
 * its client and tokens with the issuer, which is read as the key and written back in place.
 */
const StoredRecord = z
  .object({
    /** The authorization server (its issuer, as the protected-resource metadata names it) these credentials come from. */
    issuer: z.string().optional(),
    client: z.record(z.string(), z.unknown()).optional(),
    tokens: z.record(z.string(), z.unknown()).optional(),
    /** When the access token stops working (ms since epoch), from its `expires_in`. */
    expires_at: z.number().optional(),
    /** The scopes the last authorization asked for: a re-authorization asks for these and the new ones (SEP-2350). */
    scope: z.string().optional(),
  })
  .strict();

export interface OAuthRecord {
  issuer?: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  expires_at?: number;
  scope?: string;
}

/** The issuer a record's credentials belong to: its own key, else the SDK's stamp on its tokens or client. */
export function issuerOfRecord(record: OAuthRecord): string | undefined {
  if (record.issuer !== undefined) return record.issuer;
  const stamp = (value: unknown): string | undefined => {
    const issuer: unknown = typeof value === 'object' && value !== null ? Object.getOwnPropertyDescriptor(value, 'issuer')?.value : undefined;
    return typeof issuer === 'string' ? issuer : undefined;
  };
  return stamp(record.tokens) ?? stamp(record.client);
}

/** The keychain name for a server address: readable host, plus a hash of the whole address. */
export function oauthCredentialName(serverUrl: string | URL): string {
  const url = new URL(String(serverUrl));
  const hash = createHash('sha256').update(url.href).digest('hex').slice(0, 12);
  const host = url.host.replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 40);
  return `mcp-oauth.${host}.${hash}`;
}

/** Reads, writes and forgets one server's record; every value stays in the keychain. */
export class OAuthRecordStore {
  readonly name: string;

  constructor(
    private readonly store: CredentialStore,
    serverUrl: string | URL,
  ) {
    this.name = oauthCredentialName(serverUrl);
  }

  async read(): Promise<OAuthRecord> {
    const raw = await this.store.get(this.name);
    if (raw === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      // An unreadable entry is as good as none: signing in again replaces it.
      return {};
    }
    const found = StoredRecord.safeParse(parsed);
    if (!found.success) return {};
    const record = found.data as OAuthRecord;
    if (record.issuer !== undefined) return record;
    const issuer = issuerOfRecord(record);
    if (issuer === undefined) return record;
    // An entry from before the issuer key: migrated in place (best effort; the next write does it too).
    const keyed = { issuer, ...record };
    await this.store.set(this.name, JSON.stringify(keyed)).catch(() => undefined);
    return keyed;
  }

  async update(change: (record: OAuthRecord) => OAuthRecord): Promise<void> {
    const next = change(await this.read());
    if (next.client === undefined && next.tokens === undefined) {
      await this.store.delete(this.name);
      return;
    }
    await this.store.set(this.name, JSON.stringify(next));
  }

  /** Signs out: the entry is gone from the keychain. */
  async forget(): Promise<boolean> {
    return this.store.delete(this.name);
  }
}
