import { isCredentialRef } from '@shared/contracts/credentials';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import { McpLaunchError } from './errors';
import type { McpConnection } from './mcp-connection';
import { connectNegotiated } from './negotiated-connection';
import { allowedRemoteEndpoint, type RemoteEndpoint } from './remote-endpoint';
import { resolveLaunch, type LaunchOptions, type ServerLaunch } from './server-launch';
import type { ConnectOptions } from './server-connection';
import { connectStdio } from './stdio-negotiation';
import type { CredentialStore } from '../credentials/credential-store';
import type { RemoteAuth } from './oauth/oauth-fetch';
import { runAuth, type RunConsent } from './oauth/sign-in';

/** How one server is reached: a process to spawn, or a remote address already allowed. */
export type ServerTarget = { kind: 'stdio'; launch: ServerLaunch } | { kind: 'remote'; endpoint: RemoteEndpoint; headers: Record<string, string>; auth?: RemoteAuth };

/**
 * Resolves a spec before anything is started or sent: a stdio launch, or a remote endpoint that
 * passed the privacy check with its headers taken from the resolved keychain values.
 */
export function resolveTarget(spec: McpServerSpec, options: LaunchOptions & { privacy: PrivacyPolicy; oauthStore?: CredentialStore; onSecret?: (name: string, value: string) => void; consent?: RunConsent }): ServerTarget {
  if (spec.url === undefined) return { kind: 'stdio', launch: resolveLaunch(spec, options) };
  const allowed = allowedRemoteEndpoint(spec.id, spec.url, options.privacy);
  if (!allowed.ok) throw new McpLaunchError(spec.id, allowed.message);
  const headers: Record<string, string> = {};
  for (const [name, ref] of Object.entries(spec.headers ?? {})) {
    // The contract already refuses a literal; a hand-built spec fails closed here too.
    const secret = isCredentialRef(ref) ? options.credentials?.get(ref) : undefined;
    if (secret === undefined) throw new McpLaunchError(spec.id, `MCP server "${spec.id}" needs credential ${isCredentialRef(ref) ? ref : '(not a keychain reference)'} in headers.${name}, and it was not resolved`);
    headers[name] = secret;
  }
  // With the keychain at hand, a server without its own Authorization header may use an OAuth sign-in.
  // A token the server echoes back (a debug tool, an error page) is masked in the run like any keychain value.
  const onSecret = options.onSecret;
  const onToken = onSecret && ((token: string) => onSecret(`oauth.${spec.id}`.slice(0, 64), token));
  const auth = options.oauthStore ? runAuth(spec, allowed.endpoint, options.oauthStore, options.privacy, onToken, options.consent) : undefined;
  return { kind: 'remote', endpoint: allowed.endpoint, headers, auth };
}

/** Either kind negotiates: 2026-07-28 first, the 2025 revisions (SDK 1.x) for a server that does not offer it. */
export function connectTarget(id: string, target: ServerTarget, options: ConnectOptions): Promise<McpConnection> {
  switch (target.kind) {
    case 'stdio':
      return connectStdio(id, target.launch, options);
    case 'remote':
      return connectNegotiated(id, target.endpoint, target.headers, options, target.auth);
  }
}
