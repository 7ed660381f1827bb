import { useId, useState } from 'react';
import type { PendingAsk } from '@shared/contracts/person-ask';
import { elicitationContent, type ElicitEntry, type ElicitField } from '@shared/policy/elicitation-form';
import { useHost } from '../../app/HostProvider';
import { formatDateTime } from '../../view/format';
import { useWaiting } from '../interventions/use-waiting';

type Entries = Record<string, ElicitEntry>;
type Action = 'accept' | 'decline' | 'cancel';

const ACCEPT_LABEL = { form: 'Accept', url: 'Agree and open the link', sampling: 'Allow', consent: 'Sign in to continue' } satisfies Record<PendingAsk['kind'], string>;

const INPUT_TYPE = { email: 'email', uri: 'url', date: 'date', 'date-time': 'text' } as const;

/** A form's entries before the person types: each field's default (shared with a tool's question card, ServerInputCard). */
export function initialEntries(fields: readonly ElicitField[]): Entries {
  const entries: Entries = {};
  for (const f of fields) {
    if (f.kind === 'boolean') entries[f.name] = f.default ?? false;
    else if (f.kind === 'choices') entries[f.name] = f.default ?? [];
    else if (f.default !== undefined) entries[f.name] = String(f.default);
  }
  return entries;
}

/** One field of a server's form: its label, its control, its hint and its problem in words (the ask card and the tool-question card). */
export function FormFieldRow({ field, id, value, issue, onChange }: { field: ElicitField; id: string; value: ElicitEntry | undefined; issue: string | undefined; onChange: (v: ElicitEntry) => void }) {
  return (
    <div className={`form-row ${issue ? 'form-row--issue' : ''}`}>
      <label className="form-row__label" htmlFor={id}>
        {field.title}
        {field.required ? ' *' : ''}
      </label>
      <div className="form-row__control">
        <FieldControl field={field} id={id} value={value} onChange={onChange} issueId={issue ? `${id}-issue` : undefined} />
        {field.description && <p className="form-row__hint">{field.description}</p>}
        {issue && (
          <p className="form-row__issue" id={`${id}-issue`}>
            {issue}
          </p>
        )}
      </div>
    </div>
  );
}

export function FieldControl({ field, id, value, onChange, issueId }: { field: ElicitField; id: string; value: ElicitEntry | undefined; onChange: (v: ElicitEntry) => void; issueId?: string }) {
  const common = { id, 'aria-describedby': issueId, 'aria-invalid': issueId ? true : undefined, 'data-testid': `ask-field-${field.name}` } as const;
  switch (field.kind) {
    case 'boolean':
      return <input {...common} className="ask-card__check" type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case 'choice':
      return (
        <select {...common} className="input" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          {field.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'choices': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <div {...common} role="group" aria-label={field.title} className="ask-card__choices">
          {field.options.map((o) => (
            <label key={o.value} className="ask-card__choice">
              <input type="checkbox" checked={chosen.includes(o.value)} onChange={(e) => onChange(e.target.checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value))} /> {o.label}
            </label>
          ))}
        </div>
      );
    }
    case 'number':
      return <input {...common} className="input" type="text" inputMode="decimal" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
    case 'text':
      return <input {...common} className="input" type={field.format ? INPUT_TYPE[field.format] : 'text'} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} required={field.required} />;
  }
}

/**
 * One MCP server's ask during a run: a form (Accept sends the entries, checked here and again on
 * the host), or a link the person opens only after agreeing. Decline says no; Cancel says not now.
 */
export function ServerAskCard({ ask }: { ask: PendingAsk }) {
  const { client } = useHost();
  const titleId = useId();
  const [entries, setEntries] = useState<Entries>(() => (ask.kind === 'form' ? initialEntries(ask.fields) : {}));
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  const send = async (action: Action) => {
    setProblem(undefined);
    if (action === 'accept' && ask.kind === 'form') {
      const checked = elicitationContent(ask.fields, entries);
      if (!checked.ok) {
        setIssues(checked.issues);
        return;
      }
    }
    setIssues({});
    setBusy(true);
    try {
      const { answered } = await client.request('asks.answer', { ask_id: ask.id, action, ...(action === 'accept' && ask.kind === 'form' ? { entries } : {}) });
      if (!answered) setProblem('This was already answered, or it timed out.');
      // The link opens only now that the person agreed, in a new tab (the app never navigates away).
      else if (action === 'accept' && ask.kind === 'url') window.open(ask.url, '_blank', 'noopener,noreferrer');
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card intervention ask-card" aria-labelledby={titleId} data-testid="server-ask" data-ask-id={ask.id} data-kind={ask.kind} data-run-id={ask.run_id}>
      <header className="intervention__head">
        <span className="pulse intervention__pulse" aria-hidden="true" />
        <h2 id={titleId} className="intervention__title">
          {ask.kind === 'consent' ? (
            <>
              MCP server <code>{ask.server}</code> asks for more access
            </>
          ) : (
            <>
              MCP server <code>{ask.server}</code> asks you
            </>
          )}
        </h2>
        <span className="round__spacer" />
        <span className="muted">
          until <time dateTime={ask.expires_at}>{formatDateTime(ask.expires_at)}</time>
        </span>
      </header>
      <p className="intervention__reason ask-card__message" data-testid="server-ask-message">
        {ask.message}
      </p>
      <form
        // The fields are checked here (and on the host) and said at each field, not by the browser's bubbles.
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void send('accept');
        }}
      >
        {ask.kind === 'form' &&
          ask.fields.map((field) => {
            const id = `${titleId}-${field.name}`;
            const issue = issues[field.name];
            return (
              <FormFieldRow
                key={field.name}
                field={field}
                id={id}
                value={entries[field.name]}
                issue={issue}
                onChange={(v) => {
                  setEntries({ ...entries, [field.name]: v });
                  // A field's problem goes once the person changes it (checked again on Accept).
                  if (issue) setIssues(({ [field.name]: _gone, ...rest }) => rest);
                }}
              />
            );
          })}
        {ask.kind === 'url' && (
          <p data-testid="server-ask-url">
            It asks you to open <code>{ask.url}</code>. It opens in a new tab only if you agree.
          </p>
        )}
        {ask.kind === 'consent' && <ConsentDetails />}
        {ask.kind === 'sampling' && ask.reply !== undefined && (
          <div data-testid="server-ask-sampling-reply">
            <p>
              <strong>{ask.model}</strong> answered. Sent, the server gets this answer; withheld, it is told you did not let it through.
            </p>
            <pre className="judgment-card__text" tabIndex={0} aria-label="The model's answer">
              {ask.reply}
            </pre>
          </div>
        )}
        {ask.kind === 'sampling' && ask.reply === undefined && (
          <div data-testid="server-ask-sampling">
            <p>
              Allowed, <strong>{ask.model}</strong> answers this conversation (at most {ask.max_tokens} tokens), and you see its answer before the server gets it; denied, the server is told you declined.
            </p>
            <ol className="ask-card__messages">
              {ask.messages.map((m, i) => (
                <li key={i}>
                  <span className="muted">{m.role}</span> <span className="ask-card__message">{m.content}</span>
                </li>
              ))}
            </ol>
          </div>
        )}
        {problem && (
          <p className="form-row__issue" role="alert">
            {problem}
          </p>
        )}
        <div className="intervention__actions">
          <button type="submit" className="button button--primary" disabled={busy} data-testid="server-ask-accept">
            {ask.kind === 'sampling' && ask.reply !== undefined ? 'Send the answer' : ACCEPT_LABEL[ask.kind]}
          </button>
          <button type="button" className="button" disabled={busy} onClick={() => void send('decline')} data-testid="server-ask-decline">
            {ask.kind === 'sampling' ? (ask.reply !== undefined ? 'Withhold it' : 'Deny') : ask.kind === 'consent' ? 'Decline (the call fails)' : 'Decline'}
          </button>
          {ask.kind !== 'sampling' && ask.kind !== 'consent' && (
            <button type="button" className="button" disabled={busy} onClick={() => void send('cancel')} data-testid="server-ask-cancel">
              Cancel
            </button>
          )}
        </div>
      </form>
    </section>
  );
}

/** A remote server's step-up (its message names the scopes): what each answer does, and that the wait is not kept across a restart. */
function ConsentDetails() {
  return (
    <div data-testid="server-ask-consent">
      <p>
        <strong>Sign in to continue</strong> opens the server&apos;s sign-in page in your browser; once you agree there, the tool call is made again and the run goes on. Declined, the call fails and the run goes on as after any failed call.
      </p>
      <p className="muted">This wait is kept only while Steward runs: if Steward closes first, the wait (and the run with it) ends; sign in from the registry and run it again.</p>
    </div>
  );
}

/** The asks of MCP servers still waiting for the person: one run's, or every run's. */
export function ServerAsks({ runId }: { runId?: string }) {
  const all = useWaiting().asks;
  const asks = runId === undefined ? all : all.filter((a) => a.run_id === runId);
  if (asks.length === 0) return null;
  return (
    <div className="server-asks" aria-label="MCP servers asking you" role="region" data-testid="server-asks">
      {asks.map((ask) => (
        <ServerAskCard key={ask.id} ask={ask} />
      ))}
    </div>
  );
}
