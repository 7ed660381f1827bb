import type { RegisteredServer } from '@shared/contracts/host-registry';
import type { SignInClient } from '@shared/contracts/mcp-revision';
import type { McpServerSpec } from '@shared/contracts/spec';
import { serverTransport } from '@shared/policy/expand-workflow';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { isSignedIn, signInClientOf, signInRemoteServer, signOutRemoteServer, usesOAuth, type SignInOutcome } from './sign-in';

/** A registered remote server as the spec a run would give it. */
function remoteSpec(registered: RegisteredServer): McpServerSpec {
  return { id: registered.id, ...serverTransport(registered), args: registered.args };
}

/** Whether the app offers "Sign in" for this server: a url server without its own Authorization header. */
export function canSignIn(registered: RegisteredServer): boolean {
  return usesOAuth(remoteSpec(registered));
}

/** The app's "Sign in" (mcp.sign_in): the host opens the authorization page in the system browser. */
export function signInRegistered(registered: RegisteredServer, options: { store: CredentialStore; privacy: PrivacyPolicy; openUrl: (url: string) => void }): Promise<SignInOutcome> {
  return signInRemoteServer(remoteSpec(registered), {
    store: options.store,
    privacy: options.privacy,
    open: async (url) => options.openUrl(url.href),
  });
}

export function signOutRegistered(registered: RegisteredServer, store: CredentialStore): Promise<boolean> {
  return signOutRemoteServer(remoteSpec(registered), store);
}

export function signedInRegistered(registered: RegisteredServer, store: CredentialStore): Promise<boolean> {
  return isSignedIn(remoteSpec(registered), store);
}

/** How the client of this registered server's sign-in was obtained (mcp.auth_status `client`). */
export function signInClientRegistered(registered: RegisteredServer, store: CredentialStore): Promise<SignInClient | undefined> {
  return signInClientOf(remoteSpec(registered), store);
}
