import { isHttpsUrl } from '@modelcontextprotocol/sdk/client/auth.js';

/**
 * Client ID metadata documents (SEP-991, draft-ietf-oauth-client-id-metadata-document): instead of
 * registering itself with every authorization server, a client names itself with an HTTPS address
 * whose JSON document describes it, and an authorization server that says
 * `client_id_metadata_document_supported` fetches that document. Steward is a desktop app with no
 * web origin of its own, so the address is one a person or their organisation hosts: set it in
 * STEWARD_OAUTH_CLIENT_METADATA_URL, host there what `steward mcp client-metadata URL` prints, and
 * sign-ins use it where the authorization server supports it (dynamic registration everywhere else,
 * and everywhere when it is not set).
 */
export const CLIENT_METADATA_URL_ENV = 'STEWARD_OAUTH_CLIENT_METADATA_URL';

/** Steward's loopback redirect as a metadata document lists it: any port (RFC 8252 §7.3), path /callback. */
const LOOPBACK_REDIRECT = 'http://127.0.0.1/callback';

/** The configured document address, or undefined; an address that cannot be one is refused in words. */
export function configuredClientMetadataUrl(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const value = env[CLIENT_METADATA_URL_ENV]?.trim();
  if (value === undefined || value === '') return undefined;
  const problem = clientMetadataUrlProblem(value);
  if (problem !== undefined) throw new Error(`${CLIENT_METADATA_URL_ENV} ${problem}; fix or unset it to sign in`);
  return value;
}

/** Why an address cannot name a client ID metadata document (the SDK's rule: https, with a path), or undefined. */
export function clientMetadataUrlProblem(value: string): string | undefined {
  if (isHttpsUrl(value)) return undefined;
  return `must be an https:// address with a path to Steward's client metadata document (e.g. https://example.org/steward/client.json), and "${value.slice(0, 200)}" is not`;
}

/** The document to host at `url`: Steward as a public native client with a loopback redirect. */
export function clientMetadataDocument(url: string): Record<string, unknown> {
  const problem = clientMetadataUrlProblem(url);
  if (problem !== undefined) throw new Error(`the address ${problem}`);
  return {
    client_id: url,
    client_name: 'Steward',
    redirect_uris: [LOOPBACK_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
}
