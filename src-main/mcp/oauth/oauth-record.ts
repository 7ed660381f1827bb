import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CredentialStore } from '../../credentials/credential-store';

/**
 * What Steward keeps about one signed-in remote MCP server: the client it registered (dynamic
 * client registration) and the tokens it holds. One OS keychain entry per server address, never a
 * file: `mcp-oauth.<host>.<hash>`, visible (and deletable, which signs out) in the credentials list.
 */
const StoredRecord = z
  .object({
    client: z.record(z.string(), z.unknown()).optional(),
    tokens: z.record(z.string(), z.unknown()).optional(),
    /** When the access token stops working (ms since epoch), from its `expires_in`. */
    expires_at: z.number().optional(),
  })
  .strict();

export interface OAuthRecord {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  expires_at?: number;
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
    const record = StoredRecord.safeParse(parsed);
    if (!record.success) return {};
    return record.data as OAuthRecord;
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
