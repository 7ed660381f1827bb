import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { isHostAllowed, type PrivacyPolicy } from '@shared/policy/privacy';
import { parseEndpoint } from '../providers/endpoint';

export type SendOutcome = { ok: true; url: string; rejectedSpans: number } | { ok: false; message: string };

/** Who asks: the fix a refusal names differs (a CLI flag, or the app's settings). */
export type OtlpShell = 'cli' | 'app';

/** Long enough for a collector on another host; a run's export is one request. */
const SEND_TIMEOUT_MS = 15_000;

/**
 * Where an OTLP/HTTP export may go, checked as a model's address is (DESIGN.md §4): the strict URL
 * rules first, then loopback always, another host only when the privacy policy lists it. A bare
 * collector address gets the standard `/v1/traces` path; any other path is used as given.
 */
export function otlpTarget(address: string, policy: PrivacyPolicy, shell: OtlpShell = 'cli'): { ok: true; href: string; display: string } | { ok: false; message: string } {
  const parsed = parseEndpoint(address);
  if (!parsed.ok) return { ok: false, message: `the OTLP endpoint is not used: its address ${parsed.problem}` };
  const { endpoint } = parsed;
  if (!endpoint.local && !isHostAllowed(policy, endpoint.host)) {
    const allowed = policy.allowed_hosts.length ? `, plus ${policy.allowed_hosts.join(', ')}` : '';
    return {
      ok: false,
      message: `the OTLP endpoint would send this run's data to ${endpoint.host}, which the privacy policy does not allow (local only${allowed}); ${shell === 'cli' ? `pass --allow-host ${endpoint.host} or allow it in the app's privacy settings` : `allow ${endpoint.host} in Settings → Privacy, or send to a collector on this machine`}`,
    };
  }
  const url = new URL(endpoint.href);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return { ok: true, href: url.href, display: `${endpoint.origin}${url.pathname}` };
}

/**
 * POSTs an OTLP/JSON request body to an allowed endpoint. Never throws: a refusal, a network
 * failure, a redirect (it would take the trace somewhere nobody checked) or a non-2xx answer is a
 * message naming the endpoint without its query.
 */
export async function sendOtlp(body: Uint8Array, address: string, policy: PrivacyPolicy, fetchFn: typeof fetch = fetch, shell: OtlpShell = 'cli'): Promise<SendOutcome> {
  const target = otlpTarget(address, policy, shell);
  if (!target.ok) return target;
  let response: Response;
  try {
    response = await fetchFn(target.href, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // As text: the body is JSON, and a string is a body every fetch typing accepts.
      body: new TextDecoder().decode(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
  } catch (err) {
    const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer in ${SEND_TIMEOUT_MS / 1000} s` : 'the endpoint could not be reached';
    return { ok: false, message: `sending to ${target.display} failed: ${reason}` };
  }
  const answer = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  if (response.status < 200 || response.status > 299) {
    return { ok: false, message: `${target.display} answered HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (a redirect, not followed)' : ''}` };
  }
  const partial = JsonTraceSerializer.deserializeResponse(answer).partialSuccess;
  return { ok: true, url: target.display, rejectedSpans: Number(partial?.rejectedSpans ?? 0) };
}
