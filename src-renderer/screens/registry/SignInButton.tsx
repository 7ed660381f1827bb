import { useEffect, useState } from 'react';
import type { SignInClient } from '@shared/contracts/mcp-revision';
import { useHost } from '../../app/HostProvider';
import { Spinner } from '../../components/Icons';
import { hostErrorText } from './server-form';

/**
 * "Sign in" on a remote (url) server that signs in with OAuth: the host opens the authorization page
 * in the system browser and waits for it to come back; the tokens stay in the host's keychain (the
 * page only learns that it worked). Signed in: "Sign out" forgets them. Nothing for other servers.
 */
export function SignInButton({ server, onStatus, onClient }: { server: string; onStatus: (status: { tone: 'ok' | 'error'; text: string }) => void; /** How the sign-in's client was obtained (undefined: none, or not known). */ onClient?: (client: SignInClient | undefined) => void }) {
  const { client, connection } = useHost();
  const [status, setStatus] = useState<{ can_sign_in: boolean; signed_in: boolean; client?: SignInClient }>();
  const [busy, setBusy] = useState(false);
  /** Bumped after a sign-in, so the status (and its client) is asked for again. */
  const [asked, setAsked] = useState(0);

  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    client.request('mcp.auth_status', { server }).then(
      (s) => live && setStatus(s),
      () => live && setStatus(undefined),
    );
    return () => {
      live = false;
    };
  }, [client, connection, server, asked]);

  useEffect(() => {
    onClient?.(status?.client);
  }, [onClient, status?.client]);

  if (!status?.can_sign_in) return null;

  const signIn = async () => {
    setBusy(true);
    try {
      const result = await client.request('mcp.sign_in', { server });
      setStatus({ can_sign_in: true, signed_in: true });
      setAsked((n) => n + 1);
      onStatus({ tone: 'ok', text: `Signed in to “${server}” (${result.server_name ?? 'server'}, ${result.tools} ${result.tools === 1 ? 'tool' : 'tools'}). The tokens are in your OS keychain.` });
    } catch (err) {
      onStatus({ tone: 'error', text: hostErrorText(err) });
    } finally {
      setBusy(false);
    }
  };
  const signOut = async () => {
    try {
      await client.request('mcp.sign_out', { server });
      setStatus({ can_sign_in: true, signed_in: false });
      onStatus({ tone: 'ok', text: `Signed out of “${server}”.` });
    } catch (err) {
      onStatus({ tone: 'error', text: hostErrorText(err) });
    }
  };

  if (status.signed_in) {
    return (
      <button type="button" className="button button--small" onClick={() => void signOut()} disabled={connection !== 'open'} data-testid={`sign-out-server-${server}`}>
        Sign out
      </button>
    );
  }
  return (
    <button type="button" className="button" onClick={() => void signIn()} disabled={busy || connection !== 'open'} data-testid={`sign-in-server-${server}`} title="Opens the server's sign-in page in your browser">
      {busy && <Spinner />}
      {busy ? 'Waiting for the browser…' : 'Sign in'}
    </button>
  );
}
