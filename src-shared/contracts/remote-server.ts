import { z } from 'zod';
import { isCredentialRef } from './credentials';
import { checkModelUrl } from './model-url';
import { KEYCHAIN_HINT } from '../policy/secrets';

/**
 * A remote MCP server (issue 13): an entry gives `url` instead of `command`/`package`, and its
 * request headers only as keychain references, so no secret sits in a spec, a registry file or a
 * trace. The address is read by the same strict pattern as a model's (model-url.ts): anything two
 * URL parsers could read differently is refused here, before the host parses it once.
 */

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;

/** Headers the transport itself sets: a spec that set them would break (or steer) the protocol. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'content-type', 'accept', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']);

/** `headers` of a remote server: name → `keychain:NAME`; a pasted value is refused, naming the header. */
const keychainRef = (field: string) => z.string().refine(isCredentialRef, { message: `${field} must be a keychain reference (keychain:NAME), never the value itself` });

/**
 * Enterprise-managed authorization (SEP-990, cross-app access): the organisation's identity
 * provider (IdP) exchanges the person's ID token (RFC 8693) for an ID-JAG, which the server's
 * authorization server takes as a JWT bearer grant (RFC 7523). The ID token is one the
 * organisation's sign-in tooling (or the person) stored in the keychain; it is sent to this IdP only.
 */
export const EnterpriseIdp = z
  .object({
    /** The IdP's issuer: the ID token must be one it issued; its token endpoint is discovered from it unless given. */
    issuer: z.string().url().max(2048),
    token_endpoint: z.string().url().max(2048).optional(),
    /** Steward's client at the IdP (and its secret, when the IdP gave it one). */
    client_id: z.string().min(1).max(500),
    client_secret: keychainRef('oauth.idp.client_secret').optional(),
    /** The person's ID token from the IdP (OpenID Connect), as a keychain reference. */
    id_token: keychainRef('oauth.idp.id_token'),
  })
  .strict();
export type EnterpriseIdp = z.infer<typeof EnterpriseIdp>;

/**
 * A client registered with the server's authorization server beforehand (no dynamic registration):
 * its id, and its secret as a keychain reference only. Used by the OAuth sign-in of a url server.
 */
export const ServerOAuthClient = z
  .object({
    client_id: z.string().min(1).max(500),
    client_secret: z.string().refine(isCredentialRef, { message: 'oauth.client_secret must be a keychain reference (keychain:NAME), never the secret itself' }).optional(),
    /**
     * `client_credentials`: a machine-to-machine client (no person signs in): a run gets its own
     * token with the client's secret (client_secret_basic) or a JWT signed with its private key
     * (private_key_jwt, RFC 7523). Absent: a person signs in through the browser.
     */
    grant: z.enum(['authorization_code', 'client_credentials', 'enterprise_managed']).optional(),
    /** The private key (PEM, PKCS#8) that signs the client's JWT, as a keychain reference only. */
    private_key: z.string().refine(isCredentialRef, { message: 'oauth.private_key must be a keychain reference (keychain:NAME), never the key itself' }).optional(),
    /** The JWT's signing algorithm (default ES256). */
    signing_algorithm: z.enum(['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'EdDSA']).optional(),
    /** The authorization server the credentials were registered with: they are presented to it only. */
    issuer: z.string().url().max(2048).optional(),
    /** `enterprise_managed` (SEP-990): the organisation's identity provider that turns the person's ID token into an ID-JAG. */
    idp: EnterpriseIdp.optional(),
  })
  .strict()
  .superRefine((oauth, ctx) => {
    if (oauth.grant !== 'enterprise_managed' && oauth.idp !== undefined) ctx.addIssue({ code: 'custom', path: ['idp'], message: 'oauth.idp is for enterprise-managed authorization: set oauth.grant to "enterprise_managed"' });
    if (oauth.grant === 'enterprise_managed') {
      if (oauth.idp === undefined) ctx.addIssue({ code: 'custom', path: ['idp'], message: 'an enterprise_managed client needs oauth.idp: the identity provider (issuer, client_id, id_token as keychain:NAME)' });
      if (oauth.private_key !== undefined) ctx.addIssue({ code: 'custom', path: ['private_key'], message: 'an enterprise_managed client authenticates with oauth.client_secret (keychain:NAME), not a private key' });
      return;
    }
    if (oauth.grant !== 'client_credentials') {
      if (oauth.private_key !== undefined) ctx.addIssue({ code: 'custom', path: ['private_key'], message: 'oauth.private_key is for a machine-to-machine client: set oauth.grant to "client_credentials"' });
      return;
    }
    const ways = (oauth.client_secret === undefined ? 0 : 1) + (oauth.private_key === undefined ? 0 : 1);
    if (ways !== 1) ctx.addIssue({ code: 'custom', path: ['grant'], message: 'a client_credentials client needs exactly one of oauth.client_secret (keychain:NAME) or oauth.private_key (keychain:NAME)' });
  });
export type ServerOAuthClient = z.infer<typeof ServerOAuthClient>;

export const ServerHeaders = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `"${name}" is not an HTTP header name` });
    } else if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: [name], message: `headers.${name} is set by the MCP transport itself and cannot be given` });
    } else if (!isCredentialRef(value)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `headers.${name} must be a keychain reference (keychain:NAME), never the value itself: ${KEYCHAIN_HINT}, storing the whole header value (e.g. "Bearer …")`,
      });
    }
  }
});
export type ServerHeaders = z.infer<typeof ServerHeaders>;

/** A remote server's address: plain http(s), no user info, fragment or secret in it. */
export const ServerUrl = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((url, ctx) => {
    const check = checkModelUrl(url);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: `the server's url ${check.problem.replace("the model's api_key to keychain:NAME", 'a header to keychain:NAME')}` });
  });

/** The fields that say how a server is reached, as both a spec entry and a registration carry them. */
interface ServerTransportFields {
  package?: string;
  command?: string;
  url?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
  inherit_env?: readonly string[];
  oauth?: unknown;
}

export const ONE_TRANSPORT_MESSAGE = 'a server needs exactly one of package, command (stdio) or url (remote)';

/**
 * Exactly one of package, command or url; a remote server has no args or env (nothing is started)
 * and only a remote server has headers. Adds its issues to `ctx`.
 */
export function checkServerTransport(server: ServerTransportFields, ctx: z.RefinementCtx): void {
  const given = [server.package, server.command, server.url].filter((v) => v !== undefined).length;
  if (given !== 1) {
    ctx.addIssue({ code: 'custom', message: ONE_TRANSPORT_MESSAGE });
    return;
  }
  if (server.url !== undefined) {
    if ((server.args?.length ?? 0) > 0) ctx.addIssue({ code: 'custom', path: ['args'], message: 'a remote (url) server takes no args: nothing is started' });
    if (Object.keys(server.env ?? {}).length > 0) ctx.addIssue({ code: 'custom', path: ['env'], message: 'a remote (url) server takes no env: send credentials as headers (Name: keychain:NAME)' });
    if ((server.inherit_env?.length ?? 0) > 0) ctx.addIssue({ code: 'custom', path: ['inherit_env'], message: 'a remote (url) server inherits no environment: nothing is started' });
  } else {
    if (Object.keys(server.headers ?? {}).length > 0) ctx.addIssue({ code: 'custom', path: ['headers'], message: 'headers are for a remote (url) server; a stdio server gets credentials through env' });
    if (server.oauth !== undefined) ctx.addIssue({ code: 'custom', path: ['oauth'], message: 'oauth is for a remote (url) server: a stdio server signs in to nothing' });
  }
}
