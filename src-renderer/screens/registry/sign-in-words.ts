import type { RegisteredServer } from '@shared/contracts/host-registry';
import { displayModelUrl } from '@shared/contracts/model-url';

/**
 * What a server card says about how the server is signed in to, when the way is one a person would
 * not guess from the card: enterprise-managed (SEP-990) goes through the organisation's identity
 * provider, never a sign-in page of the server's. Undefined: nothing to say.
 */
export function signInWords(server: Pick<RegisteredServer, 'oauth'>): string | undefined {
  const oauth = server.oauth;
  if (oauth?.grant !== 'enterprise_managed') return undefined;
  const at = oauth.idp === undefined ? '' : ` (${displayModelUrl(oauth.idp.issuer)})`;
  return `signs in through your organisation’s identity provider${at} with your ID token from the keychain; nobody signs in at the server`;
}
