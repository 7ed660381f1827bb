/**
 * The two issuer rules of an OAuth sign-in, as pure checks that return a refusal in words (or
 * undefined when the rule holds):
 *
 * - RFC 8414 §3.3: the authorization server metadata's `issuer` is the issuer the client fetched it
 *   for. The only leeway is one trailing "/", because the well-known address is built with it
 *   removed (`https://as.example/` and `https://as.example` share one metadata address).
 * - RFC 9207 (SEP-2468): the authorization response's `iss` is compared with the metadata's issuer
 *   as a plain string, with no URL normalization (a trailing "/" differs); a present `iss` is always
 *   compared, and a missing one is refused when the metadata says the server sends it.
 */

/** What the sign-in recorded about its authorization server (from its metadata). */
export interface RecordedIssuer {
  issuer: string;
  /** `authorization_response_iss_parameter_supported` of the metadata. */
  issParameterSupported: boolean;
}

const NOTHING_STORED = 'nothing was stored';

/** RFC 8414 §3.3: the metadata fetched for `requestedIssuer` must name that issuer. */
export function metadataIssuerRefusal(requestedIssuer: string, metadataIssuer: unknown): string | undefined {
  if (typeof metadataIssuer !== 'string') {
    return `The sign-in was stopped: the authorization server's metadata for "${requestedIssuer}" names no issuer (RFC 8414); ${NOTHING_STORED}.`;
  }
  if (withoutTrailingSlash(metadataIssuer) === withoutTrailingSlash(requestedIssuer)) return undefined;
  return (
    `The sign-in was stopped: the authorization server's metadata says it is "${metadataIssuer}" but Steward fetched it for ` +
    `"${requestedIssuer}" (RFC 8414); its addresses were not used and ${NOTHING_STORED}.`
  );
}

/** RFC 9207: the `iss` of the redirect back to Steward (undefined when absent) against the recorded issuer. */
export function authorizationResponseIssuerRefusal(recorded: RecordedIssuer | undefined, iss: string | undefined): string | undefined {
  // No metadata (the 2025-03-26 fallback): no issuer was recorded to compare with.
  if (recorded === undefined) return undefined;
  if (iss === undefined) {
    if (!recorded.issParameterSupported) return undefined;
    return (
      `The sign-in was stopped: the authorization server "${recorded.issuer}" says it names itself in its answer, ` +
      `and this answer did not (RFC 9207); ${NOTHING_STORED}.`
    );
  }
  if (iss === recorded.issuer) return undefined;
  return `The sign-in was stopped: the authorization server answered as "${iss}" but Steward asked "${recorded.issuer}" (RFC 9207); ${NOTHING_STORED}.`;
}

/** The issuer and its `iss` support from authorization server metadata as the SDK keeps it (any shape). */
export function recordedIssuerOf(metadata: unknown): RecordedIssuer | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const issuer: unknown = Object.getOwnPropertyDescriptor(metadata, 'issuer')?.value;
  if (typeof issuer !== 'string') return undefined;
  const supported: unknown = Object.getOwnPropertyDescriptor(metadata, 'authorization_response_iss_parameter_supported')?.value;
  return { issuer, issParameterSupported: supported === true };
}

function withoutTrailingSlash(value: string): string {
  return value.endsWith('/') ? value.slice(0, -1) : value;
}

/**
 * Whether stored credentials belong to the authorization server a flow discovered (SEP-2352): the
 * same issuer identifier, with the one trailing "/" leeway of RFC 8414 §3.3 (the SDK records the
 * discovered address parsed, which adds it to a bare origin).
 */
export function sameIssuer(stored: string, discovered: string): boolean {
  return withoutTrailingSlash(stored) === withoutTrailingSlash(discovered);
}
