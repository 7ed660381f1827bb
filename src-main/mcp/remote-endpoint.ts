import { checkModelUrl, displayModelUrl, isLoopbackHostname } from '@shared/contracts/model-url';
import { isHostAllowed, type PrivacyPolicy } from '@shared/policy/privacy';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * Where a remote MCP server's requests go (issue 13), decided on the host. The address is read once
 * by the WHATWG URL parser and that same `URL` object is what the transport connects to, so the
 * check and the connection can never read one address two ways. The strict shared pattern runs
 * first: an address parsers could disagree on (userinfo, backslash, odd IPv4 forms) never gets here.
 */
export interface RemoteEndpoint {
  /** The very object the transport is given. */
  readonly url: URL;
  readonly origin: string;
  /** `URL.host`: hostname[:port], lowercase — what the privacy policy lists. */
  readonly host: string;
  /** Read from `URL.hostname`: localhost, 127.x.x.x or [::1]. */
  readonly local: boolean;
  /** For messages and the ledger: no query. */
  readonly display: string;
}

export type RemoteEndpointResult = { ok: true; endpoint: RemoteEndpoint } | { ok: false; message: string };

/**
 * The endpoint of a remote server, or why no byte is sent to it: an address that is refused, or a
 * host the run's privacy policy does not allow (loopback is always allowed).
 */
export function allowedRemoteEndpoint(serverId: string, address: string, policy: PrivacyPolicy): RemoteEndpointResult {
  const check = checkModelUrl(address);
  if (!check.ok) return { ok: false, message: `MCP server "${serverId}" is not contacted: its url ${check.problem}` };
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { ok: false, message: `MCP server "${serverId}" is not contacted: its url is not a valid URL` };
  }
  // The strict check already refused these; a second look at the parsed value fails closed.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.hash !== '') {
    return { ok: false, message: `MCP server "${serverId}" is not contacted: its url must be a plain http:// or https:// address` };
  }
  const local = isLoopbackHostname(url.hostname);
  if (!local && !isHostAllowed(policy, url.host)) {
    const allowed = policy.allowed_hosts.length ? `, plus ${policy.allowed_hosts.join(', ')}` : '';
    return {
      ok: false,
      message: `MCP server "${serverId}" would send this run's data to ${url.host}, which the workspace privacy policy does not allow (local only${allowed}); allow that host in the workspace settings or use a local server`,
    };
  }
  return { ok: true, endpoint: { url, origin: url.origin, host: url.host, local, display: displayModelUrl(address) } };
}

/**
 * A fetch that reaches the endpoint's origin only and follows no redirect itself: the SDK's own
 * requests (the SSE `endpoint` it is told, a redirect) cannot take the run's data anywhere unchecked.
 */
export function pinnedMcpFetch(endpoint: RemoteEndpoint, fetchImpl: FetchLike = fetch): FetchLike {
  return (input, init) => {
    let origin: string | undefined;
    try {
      origin = new URL(String(input)).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== endpoint.origin) return Promise.reject(new Error(`a request to another address than ${endpoint.display} was refused`));
    return fetchImpl(input, { ...init, redirect: 'manual' });
  };
}
