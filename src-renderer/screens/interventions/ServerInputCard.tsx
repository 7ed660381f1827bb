import { useId, useState } from 'react';
import { answerHint, HUMAN_ACTION_LABELS, type HumanAction, type HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import type { ServerInputAsk, ServerInputShown } from '@shared/contracts/server-input';
import { elicitationContent, type ElicitEntry } from '@shared/policy/elicitation-form';
import { useHost } from '../../app/HostProvider';
import { ConfirmButton } from '../../components/ConfirmButton';
import { Spinner } from '../../components/Icons';
import { roundNumber } from '@shared/contracts/round-number';
import { FormFieldRow, initialEntries } from '../asks/ServerAskCard';
import { AnswerCardHead, AnswerSent } from './answer-card';
import { AnswerError, ReconnectNote } from './answer-notes';

type Entries = Record<string, ElicitEntry>;

/** What each answer's button says on a tool's question. */
const BUTTON = { approve: 'Send my answers', decline: 'Decline', cancel: 'Dismiss', stop: 'Stop the run' } as const;
const buttonLabel = (action: HumanAction): string => (Object.hasOwn(BUTTON, action) ? BUTTON[action as keyof typeof BUTTON] : HUMAN_ACTION_LABELS[action]);

function allEntries(asks: readonly ServerInputAsk[]): Entries {
  const entries: Entries = {};
  for (const ask of asks) if (ask.mode === 'form') Object.assign(entries, initialEntries(ask.fields));
  return entries;
}

/**
 * "Waiting for you": an MCP server on 2026-07-28 asked for input in the middle of a tool call
 * (issue 30). The run waits persisted (also across a restart of the host) until the person answers
 * here or with `steward answer`; the call then goes on with the answers. Entries are checked here and
 * again on the host; they go to the server only, never into the run's trace.
 */
export function ServerInputCard({ intervention, input }: { intervention: Intervention; input: ServerInputShown }) {
  const { client, connection } = useHost();
  const titleId = useId();
  const [entries, setEntries] = useState<Entries>(() => allEntries(input.asks));
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [sending, setSending] = useState<HumanAction>();
  const [sent, setSent] = useState<HumanAction>();
  const [error, setError] = useState<string>();

  const answer = async (action: HumanAction) => {
    setError(undefined);
    if (action === 'approve') {
      const found: Record<string, string> = {};
      for (const ask of input.asks) {
        if (ask.mode !== 'form') continue;
        const checked = elicitationContent(ask.fields, entries);
        if (!checked.ok) Object.assign(found, checked.issues);
      }
      setIssues(found);
      if (Object.keys(found).length > 0) return;
    }
    const sentAnswer: HumanAnswer = action === 'approve' ? { action, arguments: entries } : { action };
    setSending(action);
    try {
      const { resumed } = await client.request('interventions.answer', { run_id: intervention.run_id, intervention_id: intervention.id, answer: sentAnswer });
      if (resumed) setSent(action);
      else setError('The run is no longer waiting for this answer (it may have been answered in another window, or stopped).');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSending(undefined);
    }
  };

  const busy = sending !== undefined || connection !== 'open';
  return (
    <section className="card intervention ask-card" aria-labelledby={titleId} data-testid="intervention-card" data-intervention-id={intervention.id} data-kind={intervention.kind}>
      <AnswerCardHead titleId={titleId} intervention={intervention}>
        <span className="muted">Round {roundNumber(intervention.round)}</span>
      </AnswerCardHead>
      <p className="muted">
        MCP server <code>{input.server}</code> asks you this in the middle of its call of <code>{input.tool}</code>. The call goes on with your answer; it waits for you, also if Steward restarts.
      </p>
      {sent ? (
        <AnswerSent label={buttonLabel(sent)} />
      ) : (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void answer('approve');
          }}
        >
          {input.asks.map((ask) => (
            <fieldset key={ask.key} className="server-input__ask" data-testid="server-input-ask">
              <legend className="intervention__reason" data-testid="server-input-message">
                {ask.message}
              </legend>
              {ask.mode === 'url' && (
                <p>
                  It asks you to open <code>{ask.url}</code>. Sending your answer says you agree; open the link yourself.
                </p>
              )}
              {ask.mode === 'form' &&
                ask.fields.map((field) => {
                  const id = `${titleId}-${ask.key}-${field.name}`;
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
                        if (issue) setIssues(({ [field.name]: _gone, ...rest }) => rest);
                      }}
                    />
                  );
                })}
            </fieldset>
          ))}
          <div className="intervention__actions" role="group" aria-label="Your answer">
            {intervention.options.map((action) =>
              action === 'stop' ? (
                <ConfirmButton
                  key={action}
                  label={buttonLabel(action)}
                  question="Stop the run here? The server is not asked again, and the run ends as stopped by you."
                  confirmLabel="Stop the run"
                  keepLabel="Keep waiting"
                  danger
                  disabled={busy}
                  title={answerHint(action, intervention)}
                  testId={`intervention-${action}`}
                  onConfirm={() => answer(action)}
                />
              ) : (
                <button
                  key={action}
                  type={action === 'approve' ? 'submit' : 'button'}
                  className={`button ${action === 'approve' ? 'button--primary' : ''}`}
                  disabled={busy}
                  onClick={action === 'approve' ? undefined : () => void answer(action)}
                  title={answerHint(action, intervention)}
                  data-testid={`intervention-${action}`}
                >
                  {sending === action && <Spinner />}
                  {buttonLabel(action)}
                </button>
              ),
            )}
          </div>
          <ReconnectNote connection={connection} />
        </form>
      )}
      <AnswerError error={error} />
    </section>
  );
}
