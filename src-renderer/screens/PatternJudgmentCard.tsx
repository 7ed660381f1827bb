import { useId, useMemo, useState } from 'react';
import { HUMAN_ACTION_LABELS, INTERVENTION_KIND_LABELS, type HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import { describeFallback, type PatternJudgmentAsk } from '@shared/pattern/human-ask';
import { judgmentAnswerProblem } from '@shared/pattern/human-answer';
import { useHost } from '../app/HostProvider';
import { Chip } from '../components/Chip';
import { Spinner } from '../components/Icons';
import { AnswerError, ReconnectNote } from './interventions/answer-notes';
import { AnswerSent, useSendAnswer } from './interventions/answer-card';
import { formatDateTime } from '../view/format';

type JudgmentAction = 'approve' | 'reject' | 'escalate';

/** The feedback goes back to the members in the next prompt (the answer's note). */
const FEEDBACK_MAX = 2000;

const HINTS = {
  approve: 'The output leaves the pattern node as approved.',
  reject: 'The members try again with your feedback in their prompt.',
  escalate: 'The pattern stops here and reports the escalation; your text is the reason.',
} satisfies Record<JudgmentAction, string>;

/** What is sent: approve and reject cite the chosen outputs; reject's and escalate's text is their note. */
export function judgmentAnswer(action: JudgmentAction, text: string, cited: readonly string[]): HumanAnswer {
  const note = text.trim();
  if (action === 'escalate') return note ? { action, note } : { action };
  return { action, evidence: [...cited], ...(note ? { note } : {}) };
}

/**
 * "Waiting for you" for a pattern node's judgment (issue 12): the output under judgment, every
 * member output with a box to cite it as evidence, the feedback it was to address, and a feedback
 * box. Approve lets the output leave; reject sends the feedback into the next iteration; escalate
 * ends the pattern. The run waits persisted (across restarts) until one is sent, or its expiry.
 */
export function PatternJudgmentCard({ intervention, ask }: { intervention: Intervention; ask: PatternJudgmentAsk }) {
  const { connection } = useHost();
  const id = useId();
  const [feedback, setFeedback] = useState('');
  const [cited, setCited] = useState<ReadonlySet<string>>(() => new Set(ask.outputs.map((o) => o.id)));
  const { sending, sent, error, send } = useSendAnswer<JudgmentAction>(intervention, 'The run is no longer waiting for this judgment (answered elsewhere, expired, or stopped).');
  const citedIds = useMemo(() => ask.outputs.map((o) => o.id).filter((o) => cited.has(o)), [ask.outputs, cited]);
  // Checked here as the host checks it, so a citation problem is said before anything is sent
  // (the expiry is the host's to judge: time 0 never counts as expired here).
  const problemOf = (action: JudgmentAction) => judgmentAnswerProblem(ask, judgmentAnswer(action, action === 'reject' ? feedback || ' ' : feedback, citedIds), 0);
  const citationProblem = problemOf('approve');
  const busy = sending !== undefined || connection !== 'open';

  const answer = (action: JudgmentAction) => send(action, judgmentAnswer(action, feedback, citedIds));
  const toggle = (output: string, on: boolean) =>
    setCited((prev) => {
      const next = new Set(prev);
      if (on) next.add(output);
      else next.delete(output);
      return next;
    });

  return (
    <section className="card intervention judgment-card" aria-labelledby={`${id}-title`} data-testid="intervention-card" data-intervention-id={intervention.id} data-kind={intervention.kind}>
      <header className="intervention__head">
        <span className="pulse intervention__pulse" aria-hidden="true" />
        <h2 id={`${id}-title`} className="intervention__title">
          Waiting for you
        </h2>
        <Chip tone="escalated">{INTERVENTION_KIND_LABELS[intervention.kind]}</Chip>
        <span className="round__spacer" />
        <span className="muted" data-testid="judgment-iteration">
          {ask.pattern_type} <code>{ask.node}</code>
          {ask.steps > 1 ? ` · step ${ask.step + 1} of ${ask.steps}` : ''} · iteration {ask.iteration} of {ask.max_iterations}
        </span>
      </header>

      <div className="steps">
        {ask.previous_feedback !== undefined && (
          <div className="step">
            <div className="step__label">Feedback it addresses</div>
            <div className="step__body" data-testid="judgment-previous-feedback">
              <p className="intervention__reason">“{ask.previous_feedback}”</p>
            </div>
          </div>
        )}
        {ask.problem !== undefined && (
          <div className="step">
            <div className="step__label">Asked again</div>
            <div className="step__body" role="note" data-testid="judgment-problem">
              The previous answer could not be used: {ask.problem}
            </div>
          </div>
        )}
        <div className="step">
          <div className="step__label">Output</div>
          <div className="step__body">
            <pre className="judgment-card__text" data-testid="judgment-output" tabIndex={0} aria-label="The output under judgment">
              {ask.output}
            </pre>
          </div>
        </div>
        <div className="step">
          <div className="step__label">Evidence</div>
          <fieldset className="step__body judgment-card__outputs" data-testid="judgment-outputs">
            <legend className="muted">
              The member outputs your verdict cites{ask.min_citations > 0 ? ` (at least ${ask.min_citations})` : ''}
              {ask.must_cite.length > 0 ? `; it must cite ${ask.must_cite.join(', ')}` : ''}.
            </legend>
            {ask.outputs.map((o) => (
              <div key={o.id} className="judgment-card__output" data-testid="judgment-member-output" data-output-id={o.id}>
                <div className="form-check">
                  <input id={`${id}-cite-${o.id}`} type="checkbox" checked={cited.has(o.id)} disabled={sent !== undefined} onChange={(e) => toggle(o.id, e.target.checked)} data-testid="judgment-cite" />
                  <label htmlFor={`${id}-cite-${o.id}`}>
                    <span className="form-check__label">
                      {o.member_id} <code className="tag">{o.id}</code>
                    </span>
                  </label>
                </div>
                <pre className="judgment-card__text" tabIndex={0} aria-label={`Output of ${o.member_id}`}>
                  {o.text}
                </pre>
              </div>
            ))}
          </fieldset>
        </div>
        {ask.expires_at !== undefined && (
          <div className="step">
            <div className="step__label">Expires</div>
            <div className="step__body" data-testid="judgment-expiry">
              <time dateTime={ask.expires_at}>{formatDateTime(ask.expires_at)}</time>: then {describeFallback(ask.fallback)}.
            </div>
          </div>
        )}
      </div>

      {sent ? (
        <AnswerSent label={HUMAN_ACTION_LABELS[sent]} />
      ) : (
        <>
          <div className="intervention__note">
            <label htmlFor={`${id}-feedback`} className="field__label">
              Feedback for the next iteration (needed to reject; the reason if you escalate)
            </label>
            <textarea
              id={`${id}-feedback`}
              className="input input--area"
              rows={3}
              maxLength={FEEDBACK_MAX}
              value={feedback}
              onChange={(e) => setFeedback(e.target.value)}
              onKeyDown={(e) => {
                // Ctrl+Enter (⌘+Enter) rejects with this feedback; Enter alone makes a new line.
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && feedback.trim() && !busy && problemOf('reject') === undefined) {
                  e.preventDefault();
                  void answer('reject');
                }
              }}
              aria-describedby={`${id}-feedback-hint`}
              placeholder="e.g. The report has no timeline: add one."
              data-testid="judgment-feedback"
            />
            <p id={`${id}-feedback-hint`} className="muted">
              {feedback.length}/{FEEDBACK_MAX} characters · Ctrl+Enter rejects with this feedback
            </p>
          </div>
          {citationProblem !== undefined && (
            <p className="muted" role="status" data-testid="judgment-citation-problem">
              {citationProblem}
            </p>
          )}
          <div className="intervention__actions" role="group" aria-label="Your judgment">
            <button type="button" className="button button--primary" disabled={busy || citationProblem !== undefined} onClick={() => void answer('approve')} title={HINTS.approve} data-testid="judgment-approve">
              {sending === 'approve' && <Spinner />}
              Approve
            </button>
            <button type="button" className="button" disabled={busy || !feedback.trim() || problemOf('reject') !== undefined} onClick={() => void answer('reject')} title={HINTS.reject} data-testid="judgment-reject">
              {sending === 'reject' && <Spinner />}
              Reject with feedback
            </button>
            <button type="button" className="button button--danger" disabled={busy} onClick={() => void answer('escalate')} title={HINTS.escalate} data-testid="judgment-escalate">
              {sending === 'escalate' && <Spinner />}
              Escalate
            </button>
          </div>
          <ReconnectNote connection={connection} />
        </>
      )}
      <AnswerError error={error} />
    </section>
  );
}
