import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage } from '../errors';
import { authorizationResponseIssuerRefusal, metadataIssuerRefusal, recordedIssuerOf, sameIssuer } from './issuer-check';
import { issuerOfRecord, type OAuthRecord, type OAuthRecordStore } from './oauth-record';

/** A sign-in in progress: where the browser comes back to, and how the host shows the page. */
export interface SignInInteraction {
  /** The loopback address the authorization server redirects to (loopback-redirect.ts). */
  readonly redirectUrl: string;
  /** The CSRF value the redirect must carry back. */
  readonly state: string;
  /** Shows the authorization page: the system browser, a printed link, or (tests) a headless visit. */
  open(authorizationUrl: URL): Promise<void>;
}

/** A run met a server whose sign-in is missing or no longer valid: only a person can fix that. */
export class SignInRequiredError extends Error {
  override readonly name = 'SignInRequiredError';
}

/** Tokens this close to their expiry are refreshed before use, not after a refusal. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * The SDK's OAuthClientProvider (`@modelcontextprotocol/sdk/client/auth.js` runs the protocol:
 * discovery, registration, PKCE, resource indicators, refresh) over Steward's keychain record.
 * Tokens and client information go to the OS keychain and nowhere else; the PKCE verifier and the
 * discovery state live in memory for this one flow.
 *
 * Without an interaction (a run), it can use and refresh what a sign-in stored, but never starts a
 * sign-in: registering a client or opening an authorization page fails with SignInRequiredError.
 *
 * Credentials are keyed by issuer (SEP-2352): once discovery names the flow's authorization server,
 * a record from another one (the server moved to a new authorization server), or one that cannot
 * say which it came from, is neither used nor refreshed there. A run stops, saying the person must
 * sign in again and why; a sign-in registers with the new server, and its credentials replace the
 * old ones.
 *
 * With a client ID metadata document (`clientMetadataUrl`, SEP-991), an authorization server that
 * says it supports them gets that HTTPS address as the client_id; others get a registration.
 */
export class KeychainOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** The record as this flow found it: what a refused sign-in leaves behind (undoRefusedSignIn). */
  private readonly found: OAuthRecord;
  /** This flow's authorization response was refused (issuer checks): what it stored is to be undone. */
  private refused = false;
  /** The authorization server this flow discovered (the SDK's key for what it stores), once it has. */
  private flowIssuer: string | undefined;
  /** The scopes this flow's authorization page asks for: kept with the tokens it brings (SEP-2350). */
  private requestedScope: string | undefined;

  private constructor(
    private readonly records: OAuthRecordStore,
    private record: OAuthRecord,
    private readonly serverLabel: string,
    private readonly interaction: SignInInteraction | undefined,
    private readonly now: () => number,
    /** A client registered beforehand (spec `oauth`): always used, never replaced by a registration. */
    private readonly preRegistered: OAuthClientInformationMixed | undefined,
    /**
     * A consent the person gives anew (a wider scope mid-run): the stored tokens are not offered to
     * the flow, so it asks the person instead of refreshing the old, narrower grant.
     */
    private fresh: boolean,
    private readonly options: ProviderOptions,
  ) {
    this.found = record;
  }

  static async load(records: OAuthRecordStore, serverLabel: string, options: ProviderOptions = {}): Promise<KeychainOAuthProvider> {
    const preRegistered = await options.preRegistered?.();
    return new KeychainOAuthProvider(records, await records.read(), serverLabel, options.interaction, options.now ?? Date.now, preRegistered, options.fresh === true, options);
  }

  /** SEP-991: the HTTPS address of Steward's client ID metadata document, where one is configured (never with a client registered beforehand). */
  get clientMetadataUrl(): string | undefined {
    return this.preRegistered ? undefined : this.options.clientMetadataUrl;
  }

  /** The scopes the stored sign-in asked for (or was granted): what a re-authorization keeps (SEP-2350). */
  previousScope(): string | undefined {
    return this.record.scope ?? this.record.tokens?.scope;
  }

  /**
   * Whether the stored credentials are another authorization server's than the one this flow
   * discovered, or cannot say whose they are: then they are not this flow's (SEP-2352).
   */
  private otherIssuer(): boolean {
    if (this.flowIssuer === undefined) return false;
    if (this.record.client === undefined && this.record.tokens === undefined) return false;
    const stored = issuerOfRecord(this.record);
    return stored === undefined || !sameIssuer(stored, this.flowIssuer);
  }

  get redirectUrl(): string {
    // A run never redirects; a registered client's own address keeps the SDK on the code flow.
    return this.interaction?.redirectUrl ?? registeredRedirect(this.record.client) ?? 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    // SEP-837's application_type is newer than the SDK's type: a desktop app with a loopback redirect is native.
    const metadata: OAuthClientMetadata & { application_type: 'native' } = {
      client_name: 'Steward',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
    return metadata;
  }

  state(): string {
    return this.interaction?.state ?? '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.preRegistered) {
      const bound = this.options.preRegisteredIssuer;
      if (bound !== undefined && this.flowIssuer !== undefined && !sameIssuer(bound, this.flowIssuer)) {
        throw new Error(
          `MCP server "${this.serverLabel}" now names the authorization server ${this.flowIssuer}, but its OAuth client was registered with ${bound} (oauth.issuer): ` +
            'Steward presents that client to its own authorization server only. Register a client with the new one and update the server\'s OAuth client.',
        );
      }
      return this.preRegistered;
    }
    if (this.otherIssuer()) return undefined;
    const client = this.record.client;
    // A client registered for another loopback port cannot receive this sign-in's redirect: register anew.
    if (client && this.interaction && !redirectAllowed(client, this.interaction.redirectUrl)) return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // The SDK stamps a pre-registered client with its issuer: nothing to keep, the spec has it.
    if (this.preRegistered) return;
    if (!this.interaction) throw this.signInRequired('it has no registered client');
    // A client of the new authorization server replaces the old one's sign-in whole.
    const base = this.otherIssuer() ? {} : this.record;
    await this.write(() => ({ ...base, ...this.issuerKey(base), client }));
  }

  tokens(): OAuthTokens | undefined {
    return this.fresh || this.otherIssuer() ? undefined : this.record.tokens;
  }

  /** Whether the access token is (about to be) expired and a refresh token could renew it. */
  needsRefresh(): boolean {
    const { tokens, expires_at } = this.record;
    if (!tokens?.refresh_token || expires_at === undefined) return false;
    // A short-lived token gets a tenth of its life as margin, so it is not renewed on every request.
    const margin = Math.min(EXPIRY_MARGIN_MS, ((tokens.expires_in ?? 0) * 1000) / 10);
    return expires_at - margin <= this.now();
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expires_at = tokens.expires_in !== undefined ? this.now() + tokens.expires_in * 1000 : undefined;
    const base = this.otherIssuer() ? {} : this.record;
    // A refresh that returns no new refresh token keeps the old one (RFC 6749 §6).
    const refresh_token = tokens.refresh_token ?? base.tokens?.refresh_token;
    // The scopes asked for: this flow's authorization page, else (a refresh) what the sign-in asked for.
    const scope = this.requestedScope ?? base.scope;
    this.fresh = false;
    this.refused = false;
    this.requestedScope = undefined;
    await this.write(() => ({
      ...base,
      ...this.issuerKey(base, tokens),
      tokens: refresh_token === undefined ? tokens : { ...tokens, refresh_token },
      expires_at,
      ...(scope === undefined ? {} : { scope }),
    }));
  }

  /** The issuer a record written now is keyed by: this flow's authorization server, else what the record or the SDK's stamp says. */
  private issuerKey(base: OAuthRecord, stamped?: unknown): { issuer?: string } {
    const issuer = this.flowIssuer ?? issuerOfRecord(base) ?? issuerOfRecord({ tokens: stamped as OAuthTokens | undefined });
    return issuer === undefined ? {} : { issuer };
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.interaction) throw this.signInRequired('its sign-in is missing or has expired');
    this.requestedScope = authorizationUrl.searchParams.get('scope') ?? undefined;
    await this.interaction.open(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no sign-in is in progress (no PKCE verifier)');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // RFC 8414 §3.3: metadata naming another issuer than the one the resource metadata advertised
    // is not used (the SDK saves it before any use). With no advertised issuer (the 2025-03-26
    // fallback to the MCP server's own origin) there is no issuer identifier to hold it to.
    const metadata = state.authorizationServerMetadata;
    const advertised = (state.resourceMetadata?.authorization_servers ?? []).length > 0;
    const refusal = metadata === undefined || !advertised ? undefined : metadataIssuerRefusal(state.authorizationServerUrl, metadata.issuer);
    if (refusal !== undefined) throw new Error(refusal);
    this.discovery = state;
    this.flowIssuer = state.authorizationServerUrl;
    // SEP-2352: a run does not present another authorization server's credentials, nor register
    // with the new one: only the person can sign in there. A sign-in goes on with a new registration.
    if (this.interaction || !this.otherIssuer()) return;
    const stored = issuerOfRecord(this.record);
    throw this.signInRequired(
      stored === undefined
        ? `its stored sign-in does not say which authorization server issued it, and Steward presents a sign-in only to the server that issued it`
        : `it now uses the authorization server ${state.authorizationServerUrl} instead of ${stored}, where you signed in; Steward does not present one authorization server's sign-in to another`,
    );
  }

  /** RFC 9207: whether the redirect's `iss` (undefined when absent) matches this sign-in's authorization server; a refusal in words if not. */
  issuerRefusal(iss: string | undefined): string | undefined {
    const refusal = authorizationResponseIssuerRefusal(recordedIssuerOf(this.discovery?.authorizationServerMetadata), iss);
    if (refusal !== undefined) this.refused = true;
    return refusal;
  }

  /** After a refused authorization response: the keychain goes back to what this flow found (a client it registered is not kept). */
  async undoRefusedSignIn(): Promise<boolean> {
    if (!this.refused) return false;
    this.refused = false;
    try {
      await this.write(() => this.found);
    } catch (error) {
      throw new Error(`the sign-in to MCP server "${this.serverLabel}" was stopped, and Steward could not remove the client registration it had stored for it: ${errorMessage(error)}`);
    }
    return true;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    if (scope === 'all') await this.write(() => ({}));
    else if (scope === 'client') await this.write((r) => ({ ...r, client: undefined }));
    else if (scope === 'tokens') await this.write((r) => ({ ...r, tokens: undefined, expires_at: undefined }));
  }

  private async write(change: (record: OAuthRecord) => OAuthRecord): Promise<void> {
    this.record = change(this.record);
    await this.records.update(() => this.record);
  }

  signInRequired(why: string): SignInRequiredError {
    return new SignInRequiredError(
      `MCP server "${this.serverLabel}" needs you to sign in (${why}): press "Sign in" on the server in the app, or run \`steward mcp sign-in <spec> ${this.serverLabel}\``,
    );
  }
}

export interface ProviderOptions {
  interaction?: SignInInteraction;
  preRegistered?: () => Promise<OAuthClientInformationMixed | undefined>;
  /** The authorization server the client registered beforehand belongs to (spec `oauth.issuer`): presented to it only. */
  preRegisteredIssuer?: string;
  /** SEP-991: the HTTPS address of Steward's client ID metadata document (client-metadata.ts). */
  clientMetadataUrl?: string;
  now?: () => number;
  fresh?: boolean;
}

function registeredRedirect(client: OAuthClientInformationMixed | undefined): string | undefined {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : undefined;
}

function redirectAllowed(client: OAuthClientInformationMixed, redirectUrl: string): boolean {
  const uris = (client as { redirect_uris?: unknown }).redirect_uris;
  // Pre-registered clients carry no list: trust them with any loopback redirect.
  return !Array.isArray(uris) || uris.includes(redirectUrl);
}
