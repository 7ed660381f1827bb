import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { credentialNameOf, isCredentialRef } from '@shared/contracts/credentials';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { CredentialStore } from '../../credentials/credential-store';

/** What the OAuth flow around a connection needs of its provider beyond the SDK's seam. */
export interface FlowProvider extends OAuthClientProvider {
  /** Whether the access token is (about to be) expired and could be renewed before it is sent. */
  needsRefresh(): boolean;
  /** The error a run reports when only a person could go on. */
  signInRequired(why: string): Error;
  /** The scopes the stored sign-in asked for, which a re-authorization keeps asking for (SEP-2350). */
  previousScope?(): string | undefined;
}

/** A server a person registered as machine-to-machine (spec `oauth.grant: "client_credentials"`). */
export function isMachineClient(spec: McpServerSpec): boolean {
  return spec.oauth?.grant === 'client_credentials';
}

/**
 * A machine-to-machine client (SEP-1046): the SDK's client_credentials providers do the protocol,
 * with the client's secret (client_secret_basic) or a JWT signed with its private key
 * (private_key_jwt), both read from the keychain here and handed to the token endpoint only. Nobody
 * signs in: each connection gets its own access token, held in memory for that connection (never
 * written anywhere); a refusal gets a fresh one. With `oauth.issuer`, the credentials are presented
 * to that authorization server only.
 */
export async function machineClientProvider(spec: McpServerSpec, store: CredentialStore): Promise<FlowProvider> {
  const oauth = spec.oauth;
  if (oauth?.grant !== 'client_credentials') throw new Error(`MCP server "${spec.id}" is not a machine-to-machine client`);
  const read = async (ref: string, field: string): Promise<string> => {
    const value = isCredentialRef(ref) ? await store.get(credentialNameOf(ref)) : undefined;
    if (value === undefined) throw new Error(`MCP server "${spec.id}" needs credential ${ref} in oauth.${field}, and it is not in the keychain (steward credentials set ${isCredentialRef(ref) ? credentialNameOf(ref) : 'NAME'})`);
    return value;
  };
  const issuer = oauth.issuer === undefined ? {} : { expectedIssuer: oauth.issuer };
  const inner: OAuthClientProvider =
    oauth.private_key !== undefined
      ? new PrivateKeyJwtProvider({ clientId: oauth.client_id, privateKey: await read(oauth.private_key, 'private_key'), algorithm: oauth.signing_algorithm ?? 'ES256', clientName: 'Steward', ...issuer })
      : new ClientCredentialsProvider({ clientId: oauth.client_id, clientSecret: await read(oauth.client_secret ?? '', 'client_secret'), clientName: 'Steward', ...issuer });
  return Object.assign(inner, {
    needsRefresh: () => false,
    signInRequired: (why: string) => new Error(`MCP server "${spec.id}" refused Steward's machine-to-machine client ${oauth.client_id} (${why}): check the client id and its keychain credential`),
  });
}
