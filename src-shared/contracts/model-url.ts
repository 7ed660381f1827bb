import { looksLikeRawSecret, KEYCHAIN_HINT } from '../policy/secrets';

/**
 * The address of a model server (an Ollama `host`, an OpenAI-compatible `base_url`), read by one
 * strict pattern. Whether a model is local is decided from the host read here (in the renderer) and
 * from the host's own URL parser (in src-main, where the request is made): anything two parsers
 * could read differently — a backslash, userinfo, a fragment, whitespace, a numeric IPv4 form other
 * than a.b.c.d, an IPv6 spelling — is refused rather than interpreted. No URL global here: shared
 * code stays pure.
 */
export interface ModelUrlParts {
  scheme: 'http' | 'https';
  /** Lowercase; an IPv6 literal keeps its brackets, as the WHATWG URL parser's `hostname` does. */
  hostname: string;
  /** `hostname[:port]`, the port left out when it is the scheme's default (as `URL.host` does). */
  host: string;
  /** Path and query, as written (possibly empty). */
  rest: string;
}

export type ModelUrlCheck = { ok: true; parts: ModelUrlParts } | { ok: false; problem: string };

const SECRET_PARAM = /key|token|secret|passw|pwd|auth|sig|credential/i;
const URL_KEY_HINT = `${KEYCHAIN_HINT} and set the model's api_key to keychain:NAME`;

export function checkModelUrl(url: string): ModelUrlCheck {
  const fail = (problem: string): ModelUrlCheck => ({ ok: false, problem });
  if (/[^\x21-\x7e]/.test(url)) {
    return fail('contains a space, a control character or a non-ASCII character');
  }
  if (url.includes('\\')) return fail('contains a backslash');
  if (url.includes('#')) return fail('has a fragment (#…), which is never sent to the server: remove it');
  const scheme = /^(https?):\/\//i.exec(url);
  if (!scheme?.[1]) return fail('must start with http:// or https://');
  const afterScheme = url.slice(scheme[0].length);
  const authorityEnd = afterScheme.search(/[/?]/);
  const authority = authorityEnd < 0 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd < 0 ? '' : afterScheme.slice(authorityEnd);
  if (authority.includes('@')) {
    return fail(`must not carry a user name or password (user:password@host): they end up in logs and traces — ${URL_KEY_HINT}`);
  }
  const hostPort = /^(\[[^\]]*\]|[^:[\]]*)(?::([^:]*))?$/.exec(authority);
  if (!hostPort) return fail('has a malformed host or port (write host:port, e.g. 127.0.0.1:11434)');
  const rawHost = (hostPort[1] ?? '').toLowerCase();
  const port = hostPort[2];
  if (rawHost === '') return fail('has no host after the //');
  const hostProblem = checkHostname(rawHost);
  if (hostProblem) return fail(hostProblem);
  if (port !== undefined && (!/^(?:0|[1-9]\d{0,4})$/.test(port) || Number(port) > 65535)) {
    return fail('has an invalid port (a number from 0 to 65535, without leading zeros)');
  }
  const secret = secretIn(rest);
  if (secret) return fail(secret);
  const schemeName = scheme[1].toLowerCase() === 'https' ? 'https' : 'http';
  const defaultPort = schemeName === 'https' ? '443' : '80';
  const host = port === undefined || port === defaultPort ? rawHost : `${rawHost}:${port}`;
  return { ok: true, parts: { scheme: schemeName, hostname: rawHost, host, rest } };
}

function checkHostname(host: string): string | undefined {
  // IPv6 has many spellings of one address (and IPv4-mapped ones): only the loopback, as URL writes it.
  if (host.startsWith('[')) return host === '[::1]' ? undefined : 'uses an IPv6 address other than [::1]: use a host name instead';
  const labels = host.split('.');
  if (labels.some((l) => l === '')) return 'has an empty part in its host (a leading, trailing or double dot)';
  if (labels.some((l) => !/^[a-z0-9_-]+$/.test(l))) return 'has a host that is not letters, digits, "-" and "_" between dots';
  // Punycode labels are decoded (and may be rejected) by URL parsers: one more reading to disagree on.
  if (labels.some((l) => l.startsWith('xn--'))) return 'has an international (xn--) host name: use an ASCII host name or an IP address';
  // URL parsers read a host ending in a number as IPv4 in several notations (2130706433, 0x7f.1, 127.1): only a.b.c.d.
  const last = labels[labels.length - 1] ?? '';
  if (/^(?:\d+|0x[0-9a-f]*)$/.test(last)) {
    const quad = labels.length === 4 && labels.every((l) => /^(?:0|[1-9]\d{0,2})$/.test(l) && Number(l) <= 255);
    if (!quad) return 'has an IP address that is not written as four decimal numbers from 0 to 255 (e.g. 127.0.0.1)';
  }
  return undefined;
}

/** A path segment or query parameter that holds (or is named for) a secret. */
function secretIn(rest: string): string | undefined {
  const queryStart = rest.indexOf('?');
  const path = queryStart < 0 ? rest : rest.slice(0, queryStart);
  const query = queryStart < 0 ? '' : rest.slice(queryStart + 1);
  const hint = `holds what looks like a secret: a URL ends up in logs and traces — ${URL_KEY_HINT}`;
  if (path.split('/').some((segment) => looksLikeRawSecret(decoded(segment)))) return `has a path that ${hint}`;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = decoded(eq < 0 ? pair : pair.slice(0, eq));
    const value = decoded(eq < 0 ? '' : pair.slice(eq + 1));
    if (SECRET_PARAM.test(name) || looksLikeRawSecret(value)) return `has a query string that ${hint}`;
  }
  return undefined;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Loopback by name: this machine. The host applies the same test to `URL.hostname`. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** An address a credential must not be sent to: plain http to another machine (https, or http on loopback, may carry one). */
export function inTheClearOffMachine(parts: ModelUrlParts): boolean {
  return parts.scheme === 'http' && !isLoopbackHostname(parts.hostname);
}

export const DEFAULT_OLLAMA_PORT = '11434';

/**
 * An Ollama address as OLLAMA_HOST may write it (`127.0.0.1:11434`, `localhost`, `:11434`) made a
 * full URL, the way the `ollama` client completes it: http, and port 11434 when none is written.
 */
export function normalizeOllamaHost(host: string): string {
  if (host.includes('://')) return host;
  if (host.startsWith(':')) return `http://127.0.0.1${host}`;
  const end = host.search(/[/?#\\]/);
  const authority = end < 0 ? host : host.slice(0, end);
  const hasPort = /:\d*$/.test(authority) && !authority.endsWith(']');
  return `http://${authority}${hasPort ? '' : `:${DEFAULT_OLLAMA_PORT}`}${end < 0 ? '' : host.slice(end)}`;
}

/**
 * The address as messages and labels show it: scheme, host and path, never userinfo or a query
 * (they may hold secrets). An address this module refuses is not shown at all.
 */
export function displayModelUrl(url: string): string {
  const check = checkModelUrl(url);
  if (!check.ok) return '(an invalid address)';
  const path = check.parts.rest.replace(/\?.*$/, '').replace(/\/+$/, '');
  return `${check.parts.scheme}://${check.parts.host}${path}`;
}
