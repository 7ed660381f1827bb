import { useId, useState } from 'react';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { SUPERVISOR_ACTION_LABELS, type SupervisorAction, type Verdict } from '@shared/supervisor/contracts';
import type { PersonEscalation } from '@shared/supervisor/person-escalation';
import { spentText } from '@shared/supervisor/cost';
import { lineageText } from '@shared/workflow/invocation-text';
import { useHost } from '../app/HostProvider';
import { Spinner } from '../components/Icons';
import { AnswerError, ReconnectNote } from '../screens/interventions/answer-notes';
import { AnswerCardHead, AnswerSent, useSendAnswer } from '../screens/interventions/answer-card';
import { JsonField } from '../screens/editor/JsonField';
import { formatDateTime } from '../view/format';

/** What each verdict does to the run, said on its button. */
const HINTS = {
  retry: 'The node runs again with the same inputs.',
  skip: 'The node is skipped; what needs its output is skipped too. The run is not failed.',
  substitute: 'Your value becomes the node’s output, once it passes the node’s output check.',
  end_stream: 'The stream ends here with what it sent.',
  fail: 'The node fails with its own error and your reason.',
} satisfies Record<SupervisorAction, string>;

const REASON_MAX = 1000;

/** The answer sent for a verdict: the reason said, and for a substitute the value. */
export function verdictAnswer(action: SupervisorAction, reason: string, value: Record<string, unknown> | undefined): HumanAnswer {
  const said = reason.trim() || 'decided by a person';
  const verdict: Verdict = action === 'substitute' ? { action, value: value ?? {}, reason: said } : { action, reason: said };
  return { action: 'verdict', verdict };
}

const signatureText = (s: PersonEscalation['escalation']['failure_signature']): string =>
  [s.code !== undefined ? `code ${s.code}` : undefined, s.http_status !== undefined ? `HTTP ${s.http_status}` : undefined, s.errno !== undefined ? `errno ${s.errno}` : undefined].filter(Boolean).join(' · ') || 'none (asked every time)';

/**
 * "Waiting for you" for a supervised workflow node that failed (issue 11), when a person
 * supervises: the node, the redacted detail, the failure's signature, any candidate output, and a
 * button for exactly the verdicts the kernel allows (a JSON field for a substitute, a reason box).
 * The run waits persisted, across restarts, until one is sent (or its decision time is up).
 */
export function EscalationAnswer({ intervention, wait }: { intervention: Intervention; wait: PersonEscalation }) {
  const { connection } = useHost();
  const id = useId();
  const e = wait.escalation;
  const allowed = e.allowed_actions;
  const spent = spentText(e);
  const [reason, setReason] = useState('');
  const candidate = e.candidate_output !== null && typeof e.candidate_output === 'object' && !Array.isArray(e.candidate_output) ? (e.candidate_output as Record<string, unknown>) : undefined;
  // Asked again after a refused substitute: the person goes on from their own value, not the node's.
  const lastRefused = wait.refused.at(-1);
  const [value, setValue] = useState<Record<string, unknown> | undefined>(lastRefused?.action === 'substitute' ? lastRefused.value : (candidate ?? {}));
  const { sending, sent, error, send } = useSendAnswer<SupervisorAction>(intervention, 'The run is no longer waiting for this verdict (answered elsewhere, its time ran out, or it was stopped).');
  const busy = sending !== undefined || connection !== 'open';
  const answer = (action: SupervisorAction) => send(action, verdictAnswer(action, reason, value));

  return (
    <section className="card intervention" aria-labelledby={`${id}-title`} data-testid="intervention-card" data-intervention-id={intervention.id} data-kind={intervention.kind}>
      <AnswerCardHead titleId={`${id}-title`} intervention={intervention}>
        <span className="muted" data-testid="escalation-node">
          node <code>{e.node}</code>
          {e.correlation_lineage.length > 0 ? ` · ${lineageText(e.correlation_lineage)}` : ''} · attempt {e.attempt}
        </span>
      </AnswerCardHead>

      <div className="steps">
        <div className="step">
          <div className="step__label">What failed</div>
          <div className="step__body">
            <p>The node still failed after its own retries. You supervise this run: choose what happens to it.</p>
            <pre className="judgment-card__text" data-testid="escalation-detail" tabIndex={0} aria-label="The failure, with secrets masked">
              {e.detail}
            </pre>
          </div>
        </div>
        <div className="step">
          <div className="step__label">Signature</div>
          <div className="step__body" data-testid="escalation-signature">
            {signatureText(e.failure_signature)}
          </div>
        </div>
        {spent !== undefined && (
          <div className="step">
            <div className="step__label">Already spent</div>
            <div className="step__body" data-testid="escalation-spent">
              {spent} on model calls in the failed attempt: a retry would pay again.
            </div>
          </div>
        )}
        {e.created_assets.length > 0 && (
          <div className="step">
            <div className="step__label">Already created</div>
            <div className="step__body" data-testid="escalation-created">
              <p>The failed attempt already made or changed these, so it is not offered a retry (it would make them again):</p>
              <ul>
                {e.created_assets.map((asset) => (
                  <li key={asset}>
                    <code>{asset}</code>
                  </li>
                ))}
              </ul>
            </div>
          </div>
        )}
        {e.candidate_output !== undefined && (
          <div className="step">
            <div className="step__label">Its output</div>
            <div className="step__body">
              <pre className="judgment-card__text" data-testid="escalation-candidate" tabIndex={0} aria-label="What the node produced before failing">
                {JSON.stringify(e.candidate_output, null, 2)}
              </pre>
            </div>
          </div>
        )}
        {wait.feedback !== undefined && (
          <div className="step">
            <div className="step__label">Asked again</div>
            <div className="step__body" role="note" data-testid="escalation-feedback">
              {wait.feedback}
            </div>
          </div>
        )}
        {wait.expires_at !== undefined && (
          <div className="step">
            <div className="step__label">Decide by</div>
            <div className="step__body" data-testid="escalation-expiry">
              <time dateTime={wait.expires_at}>{formatDateTime(wait.expires_at)}</time>: then the node fails (the default verdict).
            </div>
          </div>
        )}
      </div>

      {sent ? (
        <AnswerSent label={SUPERVISOR_ACTION_LABELS[sent]} />
      ) : (
        <>
          <div className="intervention__note">
            <label htmlFor={`${id}-reason`} className="field__label">
              Your reason (kept in the run’s report)
            </label>
            <textarea
              id={`${id}-reason`}
              className="input input--area"
              rows={2}
              maxLength={REASON_MAX}
              value={reason}
              onChange={(ev) => setReason(ev.target.value)}
              placeholder="e.g. That file was never written; go on without it."
              data-testid="escalation-reason"
            />
          </div>
          {allowed.includes('substitute') && (
            <div className="intervention__note">
              <JsonField
                label="Substitute output (JSON object, one value per output port)"
                hint="Checked against the node’s outputs before it is used; a value that does not pass comes back here with the problem."
                value={value}
                onChange={(v) => setValue(v as Record<string, unknown>)}
                check={(v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'the substitute is a JSON object')}
                testId="escalation-substitute-value"
              />
            </div>
          )}
          <div className="intervention__actions" role="group" aria-label="Your verdict">
            {allowed.map((action) => (
              <button
                key={action}
                type="button"
                className={`button ${action === 'fail' ? 'button--danger' : action === allowed[0] ? 'button--primary' : ''}`}
                disabled={busy}
                onClick={() => void answer(action)}
                title={HINTS[action]}
                aria-describedby={`${id}-hint-${action}`}
                data-testid={`escalation-${action}`}
              >
                {sending === action && <Spinner />}
                {SUPERVISOR_ACTION_LABELS[action]}
                <span id={`${id}-hint-${action}`} className="visually-hidden">
                  {HINTS[action]}
                </span>
              </button>
            ))}
          </div>
          <ReconnectNote connection={connection} />
        </>
      )}
      <AnswerError error={error} />
    </section>
  );
}
