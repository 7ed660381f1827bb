import { SignInRequiredError } from './keychain-oauth-provider';

/** The person declined the consent, or it went unanswered (the run stopped, nobody answered in time): the call is not made. */
export class ConsentRefusedError extends SignInRequiredError {
  constructor(
    message: string,
    readonly action: 'decline' | 'cancel',
  ) {
    super(message);
  }
}

/** Where the app holds a run's consent ask until the person answers (PersonAsks). */
export interface ConsentAsks {
  consent(runId: string, signal: AbortSignal | undefined, ask: { server: string; message: string; scopes: string[] }): Promise<'accept' | 'decline' | 'cancel'>;
}

/** The shape of the tool host's `oauthConsent` (mcp-tool-host.ts OAuthConsent). */
export type AppConsent = (server: string, authorizationUrl: URL, why: string) => Promise<void>;

/** The scopes an authorization page asks for (its `scope` parameter: the granted ones and the new, SEP-2350). */
export function scopesAsked(authorizationUrl: URL): string[] {
  return (authorizationUrl.searchParams.get('scope') ?? '').split(' ').filter((s) => s !== '');
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/** What the card says: a wider scope, or a sign-in that is missing or expired (`why` from sign-in.ts consentFlow). */
export function consentMessage(server: string, scopes: readonly string[], why: string): string {
  if (why.startsWith('it asks for access') && scopes.length > 0) return `MCP server "${server}" asks for more access: ${listed(scopes)}.`;
  return `MCP server "${server}" needs you to sign in again (${why}).`;
}

/**
 * A run's OAuth consent in the app (scope step-up mid-run, issue 30): the ask is held for the
 * person where waits are shown ("Waiting for you", the run's view) and the tool call waits. Agreed:
 * the host opens the server's authorization page in the system browser (as the registry's Sign in
 * does), and the run's loopback redirect takes the code, checks the issuer and stores the tokens
 * (sign-in.ts consentFlow); the same call is then sent once more. Declined, unanswered, the run
 * stopped or the host closed: the call fails with the reason in words. The wait lives in this
 * process only (not across a restart).
 */
export function appConsent(asks: ConsentAsks, runId: string, signal: AbortSignal | undefined, openUrl: (url: string) => void): AppConsent {
  return async (server, authorizationUrl, why) => {
    const scopes = scopesAsked(authorizationUrl);
    const action = await asks.consent(runId, signal, { server, message: consentMessage(server, scopes, why), scopes });
    if (action === 'accept') {
      openUrl(authorizationUrl.href);
      return;
    }
    const asked = scopes.length > 0 ? `more access (${listed(scopes)})` : 'a sign-in';
    if (action === 'decline') throw new ConsentRefusedError(`MCP server "${server}" asked for ${asked} and you declined, so the call was not made`, 'decline');
    const when = signal?.aborted ? 'the run stopped before you answered' : 'nobody answered in time, or Steward closed';
    throw new ConsentRefusedError(`MCP server "${server}" asked for ${asked} and ${when}, so the call was not made; sign in from the registry and run it again`, 'cancel');
  };
}
