import { useState, type FormEvent } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../../app/HostProvider';
import { getPrivacy, normaliseHost, setPrivacy } from '../../db/settings';

/** The workspace privacy policy: local only by default; each allowed host is listed by name. */
export function PrivacySection() {
  const { db } = useHost();
  const policy = useLiveQuery(() => getPrivacy(db), [db]);
  const [input, setInput] = useState('');
  const [error, setError] = useState<string>();

  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!policy) return;
    const host = normaliseHost(input);
    if (!host) {
      setError(`“${input}” is not a host name (e.g. api.openai.com or my-server:8080).`);
      return;
    }
    setError(undefined);
    if (!policy.allowed_hosts.includes(host)) await setPrivacy(db, { allowed_hosts: [...policy.allowed_hosts, host] });
    setInput('');
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
      {policy === undefined ? (
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
                  <button type="button" className="button button--small" aria-label={`Remove ${h}`} onClick={() => void setPrivacy(db, { allowed_hosts: policy.allowed_hosts.filter((x) => x !== h) })}>
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
