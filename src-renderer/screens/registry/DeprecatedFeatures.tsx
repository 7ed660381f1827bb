import { DEPRECATING_REVISION, deprecatedSignIn, deprecatedUseText, type DeprecatedFeature, type SignInClient } from '@shared/contracts/mcp-revision';

/**
 * What a server card marks as deprecated in MCP 2026-07-28: the features the server used at the
 * last Inspect, and a sign-in whose client was registered dynamically (mcp.auth_status `client`).
 */
export function deprecatedShown(inspected: readonly DeprecatedFeature[], client: SignInClient | undefined): DeprecatedFeature[] {
  const signIn = deprecatedSignIn(client);
  return signIn === undefined || inspected.includes(signIn) ? [...inspected] : [...inspected, signIn];
}

/** One sentence per deprecated feature ("This server … — deprecated in MCP 2026-07-28, still supported for this server."); nothing when none. */
export function DeprecatedFeatures({ server, features }: { server: string; features: readonly DeprecatedFeature[] }) {
  if (features.length === 0) return null;
  return (
    <ul className="muted registry-server__deprecated" data-testid={`deprecated-features-${server}`} aria-label={`Features deprecated in MCP ${DEPRECATING_REVISION} that this server uses`}>
      {features.map((feature) => (
        <li key={feature}>This server {deprecatedUseText(feature)}.</li>
      ))}
    </ul>
  );
}
