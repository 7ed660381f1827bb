import { useRef, useState, type FormEvent } from 'react';
import { CredentialName } from '@shared/contracts/credentials';
import { useHost } from '../../app/HostProvider';
import { Spinner } from '../../components/Icons';
import { useCredentialNames } from '../../supervision/use-workflow-config';
import { useExplicitAction } from '../../components/ExplicitAction';
import type { ConnectionState } from '../../host/transport';

/**
 * Credentials are write-only from here: a value goes to the host's OS keychain with
 * `credentials.set` and never comes back. The value field is uncontrolled and emptied the moment it
 * is read, so the secret is held neither in React state nor in the page's storage. The host asks a
 * person to approve each write (a native dialog, or the code it prints in its terminal).
 */
export function CredentialsSection() {
  const { connection } = useHost();
  const listing = useCredentialNames();
  return <CredentialsPanel connection={connection} listing={listing} />;
}

/** What the host said of its keychain: names, or why it cannot be reached, or why it could not be asked. */
export type KeychainListing = Pick<ReturnType<typeof useCredentialNames>, 'names' | 'error' | 'unavailable' | 'refresh'>;

/**
 * The section for a known connection and listing. A keychain the host cannot reach is said at once,
 * in words, and the form is off: nobody is asked to approve a write that could only fail.
 */
export function CredentialsPanel({ connection, listing }: { connection: ConnectionState; listing: KeychainListing }) {
  const { client } = useHost();
  const { names, error: listError, unavailable, refresh } = listing;
  const off = connection !== 'open' || unavailable !== undefined;
  const valueRef = useRef<HTMLInputElement>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string }>();
  const [confirming, setConfirming] = useState<string>();
  const action = useExplicitAction();

  const nameCheck = name === '' ? undefined : CredentialName.safeParse(name);
  const nameError = nameCheck && !nameCheck.success ? nameCheck.error.issues[0]?.message : undefined;

  const add = async (e: FormEvent) => {
    e.preventDefault();
    const input = valueRef.current;
    const value = input?.value ?? '';
    if (input) input.value = '';
    if (!nameCheck?.success) return;
    if (value.length < 4) {
      setMessage({ tone: 'error', text: 'The value is empty or too short (at least 4 characters). Nothing was stored.' });
      return;
    }
    setBusy(true);
    setMessage(undefined);
    try {
      const stored = nameCheck.data;
      const outcome = await action.run(() => client.request('credentials.set', { name: stored, value }));
      if (outcome.status === 'denied') {
        setMessage({ tone: 'error', text: outcome.message });
        return;
      }
      setMessage({ tone: 'ok', text: `Stored in the keychain as keychain:${stored}. Use that reference in a model profile or a server’s env.` });
      setName('');
      refresh();
    } catch (err) {
      setMessage({ tone: 'error', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const remove = async (credential: string) => {
    setBusy(true);
    setMessage(undefined);
    try {
      const { deleted } = await client.request('credentials.delete', { name: credential });
      setMessage(deleted ? { tone: 'ok', text: `Deleted keychain:${credential}.` } : { tone: 'error', text: `keychain:${credential} was not in the keychain.` });
      refresh();
    } catch (err) {
      setMessage({ tone: 'error', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
      setConfirming(undefined);
    }
  };

  return (
    <section className="card settings-section" aria-labelledby="credentials-title" data-testid="credentials-section">
      <h2 id="credentials-title" className="settings-section__title">
        Credentials
      </h2>
      <p className="settings-section__intro">
        API keys and tokens live in your operating system’s keychain, on the host. Profiles and workflow files only ever hold a reference like <code>keychain:openai</code>; a value you enter here is
        sent to the keychain once and never shown again, exported, or stored in this page.
      </p>
      {connection !== 'open' ? (
        <p className="muted">Connect to the Steward host to manage credentials.</p>
      ) : unavailable !== undefined ? (
        <div className="notice notice--warning" role="status" data-testid="credentials-unavailable">
          <span>
            <strong>No keychain available.</strong> {unavailable} Workflows that need no key (local Ollama models, replay scripts) still run.
          </span>
        </div>
      ) : listError ? (
        <p className="error" role="alert">
          Could not read the keychain: {listError}
        </p>
      ) : names === undefined ? (
        <p className="muted">
          <Spinner /> Reading the keychain…
        </p>
      ) : names.length === 0 ? (
        <p className="muted" data-testid="credentials-empty">
          No credentials stored yet.
        </p>
      ) : (
        <ul className="cred-list" data-testid="credentials-list">
          {names.map((n) => (
            <li key={n} className="cred-list__item" data-testid="credential" data-name={n}>
              <code>keychain:{n}</code>
              <span className="muted">••••••••</span>
              <span className="round__spacer" />
              {confirming === n ? (
                <span className="confirm" role="group" aria-label={`Delete keychain:${n}?`}>
                  <span>Delete it from the keychain?</span>
                  <button type="button" className="button button--danger button--small" onClick={() => void remove(n)} disabled={busy} data-testid="credential-delete-confirm">
                    Delete
                  </button>
                  <button type="button" className="button button--small" onClick={() => setConfirming(undefined)}>
                    Cancel
                  </button>
                </span>
              ) : (
                <button type="button" className="button button--small" onClick={() => setConfirming(n)} disabled={busy} data-testid="credential-delete">
                  Delete…
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form className="cred-form" onSubmit={(e) => void add(e)} data-testid="credential-form" autoComplete="off">
        <fieldset className="cred-form__fields" disabled={off}>
          <div className="field">
            <label className="field__label" htmlFor="cred-name">
              Name
            </label>
            <input id="cred-name" className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder="openai" aria-invalid={nameError ? true : undefined} aria-describedby="cred-name-hint" data-testid="credential-name" />
          </div>
          <div className="field">
            <label className="field__label" htmlFor="cred-value">
              Value
            </label>
            <input id="cred-value" ref={valueRef} className="input" type="password" autoComplete="new-password" spellCheck={false} placeholder="paste the key" data-testid="credential-value" />
          </div>
          <button type="submit" className="button button--primary" disabled={busy || off || !nameCheck?.success}>
            {busy && <Spinner />}
            Store in keychain
          </button>
        </fieldset>
      </form>
      {action.panel}
      <p id="cred-name-hint" className={nameError ? 'error' : 'form-row__hint'}>
        {nameError ?? 'Letters, digits, “.”, “_” and “-”. Storing under an existing name replaces its value.'}
      </p>
      {message && (
        <p className={message.tone === 'error' ? 'error' : 'ok-text'} role={message.tone === 'error' ? 'alert' : 'status'} data-testid="credential-message">
          {message.text}
        </p>
      )}
    </section>
  );
}
