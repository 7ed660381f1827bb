import { z } from 'zod';

/** The MCP revision in which Roots, Sampling, Logging and dynamic client registration are deprecated (SEP-2577). */
export const DEPRECATING_REVISION = '2026-07-28';

/**
 * A feature deprecated in MCP 2026-07-28 that a server was seen to use (issue 30). It keeps working
 * for that server; the MCP registry and `steward validate` say so.
 */
export const DeprecatedFeature = z.enum(['roots', 'sampling', 'logging', 'dynamic_registration']);
export type DeprecatedFeature = z.infer<typeof DeprecatedFeature>;

const USES = {
  roots: 'asks for its roots (the workspace folders)',
  sampling: 'asks the run\'s model for completions (sampling)',
  logging: 'sends log messages (logging)',
  dynamic_registration: 'is signed in to with a client Steward registered for it on the spot (dynamic client registration)',
} as const satisfies Record<DeprecatedFeature, string>;

/**
 * How the OAuth client of a remote server's sign-in was obtained: Steward's client ID metadata
 * document (its https address is the client_id, SEP-991), a dynamic client registration (deprecated
 * in MCP 2026-07-28), a client registered beforehand (spec or registry `oauth`, enterprise-managed
 * too), or a machine-to-machine client (`oauth.grant: "client_credentials"`, nobody signs in).
 */
export const SignInClient = z.enum(['metadata_document', 'dynamic_registration', 'pre_registered', 'client_credentials']);
export type SignInClient = z.infer<typeof SignInClient>;

/** The deprecated feature a sign-in's client is, if it is one: a dynamically registered client. */
export function deprecatedSignIn(client: SignInClient | undefined): DeprecatedFeature | undefined {
  return client === 'dynamic_registration' ? 'dynamic_registration' : undefined;
}

/** "asks for its roots … — deprecated in MCP 2026-07-28, still supported for this server". */
export function deprecatedUseText(feature: DeprecatedFeature): string {
  return `${USES[feature]} — deprecated in MCP ${DEPRECATING_REVISION}, still supported for this server`;
}
