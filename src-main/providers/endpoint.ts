import type { ModelRef, ModelRole } from '@shared/contracts/model';
import { checkModelUrl, displayModelUrl, isLoopbackHostname, normalizeOllamaHost } from '@shared/contracts/model-url';
import { DEFAULT_OLLAMA_HOST, disallowedHostMessage, invalidAddressMessage, isHostAllowed, type PrivacyPolicy } from '@shared/policy/privacy';
import type { FetchFn } from './http-call';
import { ProviderError } from './provider';

/**
 * Where a model's requests go, decided on the host from the very URL object the request is made
 * with: the shared check (a pattern, in the renderer) only displays. Built once per provider; the
 * provider sends to `href` and nowhere else (see `pinnedFetch`).
 */
export interface ModelEndpoint {
  /** What requests are made to, as `URL` wrote it. */
  readonly href: string;
  readonly origin: string;
  /** `URL.host`: hostname[:port], lowercase. */
  readonly host: string;
  /** Read from `URL.hostname`: localhost, 127.x.x.x or [::1]. */
  readonly local: boolean;
  /** For messages: no userinfo, no query. */
  readonly display: string;
}

export type EndpointResult = { ok: true; endpoint: ModelEndpoint } | { ok: false; problem: string };

/**
 * The endpoint of a model address, or what is wrong with it. The strict shared check runs first,
 * so an address two parsers could read differently never reaches `URL` at all.
 */
export function parseEndpoint(address: string): EndpointResult {
  const check = checkModelUrl(address);
  if (!check.ok) return { ok: false, problem: check.problem };
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { ok: false, problem: 'is not a valid URL' };
  }
  // The strict check already refused these; a second look costs nothing and fails closed.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.hash !== '') {
    return { ok: false, problem: 'must be a plain http:// or https:// address' };
  }
  return {
    ok: true,
    endpoint: { href: url.href, origin: url.origin, host: url.host, local: isLoopbackHostname(url.hostname), display: displayModelUrl(address) },
  };
}

export type RemoteModelRef = Extract<ModelRef, { provider: 'ollama' | 'openai_compatible' }>;

/** The address a ref's requests go to; an Ollama ref without a host uses the app's (OLLAMA_HOST forms allowed). */
export function modelAddress(ref: RemoteModelRef, ollamaDefault?: string): string {
  return ref.provider === 'ollama' ? (ref.host ?? normalizeOllamaHost(ollamaDefault ?? DEFAULT_OLLAMA_HOST)) : ref.base_url;
}

export type AllowedEndpoint = { ok: true; endpoint: ModelEndpoint } | { ok: false; message: string };

/** The host's privacy check (DESIGN.md §4): local always, another host only when the policy lists it. */
export function allowedEndpoint(ref: RemoteModelRef, role: ModelRole, policy: PrivacyPolicy, ollamaDefault?: string): AllowedEndpoint {
  const parsed = parseEndpoint(modelAddress(ref, ollamaDefault));
  if (!parsed.ok) return { ok: false, message: invalidAddressMessage(ref, role, parsed.problem) };
  const { endpoint } = parsed;
  if (endpoint.local || isHostAllowed(policy, endpoint.host)) return { ok: true, endpoint };
  return { ok: false, message: disallowedHostMessage(ref, role, endpoint.host, policy) };
}

/** For a provider built without a checked endpoint (tests, status probes): parsed here, refused when invalid. */
export function endpointOrThrow(ref: RemoteModelRef, role: ModelRole, ollamaDefault?: string): ModelEndpoint {
  const parsed = parseEndpoint(modelAddress(ref, ollamaDefault));
  if (!parsed.ok) throw new ProviderError('bad_response', invalidAddressMessage(ref, role, parsed.problem));
  return parsed.endpoint;
}

/**
 * A fetch that reaches `endpoint`'s origin only, and follows no redirect (it would take the prompt
 * to an address nobody checked). The `ollama` client builds request URLs from the host with its own
 * parser: this makes sure they land where the check said.
 */
export function pinnedFetch(endpoint: ModelEndpoint, fetch: FetchFn): FetchFn {
  return (input, init) => {
    const target = input instanceof Request ? input.url : String(input);
    let origin: string | undefined;
    try {
      origin = new URL(target).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== endpoint.origin) {
      return Promise.reject(new ProviderError('bad_response', `a request to another address than ${endpoint.display} was refused`));
    }
    return fetch(input, { ...init, redirect: 'manual' });
  };
}
