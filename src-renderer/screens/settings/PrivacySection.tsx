import { useState, type FormEvent } from 'react';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import { useHost } from '../../app/HostProvider';
import { normaliseHost } from '../../db/settings';
import { useHostRegistry } from '../../host/use-host-registry';
import { useExplicitAction } from '../../components/ExplicitAction';

/**
 * The privacy policy, held by the host (it applies it to every run): local only by default; each
 * allowed host is listed by name. Allowing a host waits for a person's approval; removing one does not.
 */
export function PrivacySection() {
  const { client } = useHost();
  const { state, error: loadError, refresh } = useHostRegistry();
  const action = useExplicitAction();
  const policy = state?.privacy;
  const [input, setInput] = useState('');
  const [error, setError] = useState<string>();

  const change = async (next: PrivacyPolicy): Promise<boolean> => {
    setError(undefined);
    try {
      const outcome = await action.run(() => client.request('privacy.set', { policy: next }));
      await refresh();
      if (outcome.status === 'denied') setError(outcome.message);
      return outcome.status === 'done';
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    }
  };

  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!policy) return;
    const host = normaliseHost(input);
    if (!host) {
      setError(`“${input}” is not a host name (e.g. api.openai.com or my-server:8080).`);
      return;
    }
    if (policy.allowed_hosts.includes(host) || (await change({ allowed_hosts: [...policy.allowed_hosts, host] }))) setInput('');
  };

  return (
    <section className="card settings-section" aria-labelledby="privacy-title" data-testid="privacy-section">
      <h2 id="privacy-title" className="settings-section__title">
        Privacy
      </h2>
      <p className="settings-section__intro">
        <strong>Local only</strong> is the default: a run may use models on this machine (replay, Ollama, a local OpenAI-compatible server) and nothing else. A model on another host — a cloud
        teacher, say — is refused before the run starts unless its host is listed here. Every run records which model saw which data.
      </p>
      {loadError ? (
        <p className="error" role="alert">
          Could not read the host’s privacy policy: {loadError}
        </p>
      ) : policy === undefined ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <h3 className="settings-section__subtitle">Allowed hosts</h3>
          {policy.allowed_hosts.length === 0 ? (
            <p className="muted" data-testid="privacy-local-only">
              None: local only.
            </p>
          ) : (
            <ul className="cred-list" data-testid="allowed-hosts">
              {policy.allowed_hosts.map((h) => (
                <li key={h} className="cred-list__item">
                  <code>{h}</code>
                  <span className="round__spacer" />
                  <button type="button" className="button button--small" aria-label={`Remove ${h}`} onClick={() => void change({ allowed_hosts: policy.allowed_hosts.filter((x) => x !== h) })}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="cred-form" onSubmit={(e) => void add(e)}>
            <div className="field">
              <label className="field__label" htmlFor="privacy-host">
                Allow a host
              </label>
              <input id="privacy-host" className="input" value={input} onChange={(e) => setInput(e.target.value)} placeholder="api.openai.com" data-testid="privacy-host" />
            </div>
            <button type="submit" className="button" disabled={!input.trim()}>
              Allow
            </button>
          </form>
          {action.panel}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </>
      )}
    </section>
  );
}
