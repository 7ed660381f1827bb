import { z } from 'zod';

/** The MCP revision in which Roots, Sampling, Logging and dynamic client registration are deprecated (SEP-2577). */
export const DEPRECATING_REVISION = '2026-07-28';

/**
 * A feature deprecated in MCP 2026-07-28 that a server was seen to use (issue 30). It keeps working
 * for that server; the MCP registry and `steward validate` say so.
 */
export const DeprecatedFeature = z.enum(['roots', 'sampling', 'logging']);
export type DeprecatedFeature = z.infer<typeof DeprecatedFeature>;

const USES = {
  roots: 'asks for its roots (the workspace folders)',
  sampling: 'asks the run\'s model for completions (sampling)',
  logging: 'sends log messages (logging)',
} as const satisfies Record<DeprecatedFeature, string>;

/** "asks for its roots … — deprecated in MCP 2026-07-28, still supported for this server". */
export function deprecatedUseText(feature: DeprecatedFeature): string {
  return `${USES[feature]} — deprecated in MCP ${DEPRECATING_REVISION}, still supported for this server`;
}
