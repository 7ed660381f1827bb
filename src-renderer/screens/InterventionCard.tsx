import { useId, useState } from 'react';
import { HUMAN_ACTION_LABELS, type HumanAction, type Intervention } from '@shared/contracts/intervention';
import { useHost } from '../app/HostProvider';
import { DecisionView } from '../components/DecisionView';
import { Chip } from '../components/Chip';
import { Spinner } from '../components/Icons';
import { ConfirmButton } from '../components/ConfirmButton';
import type { SnapshotTool } from '../db/derive-rounds';

const ACTION_HINTS = {
  approve: 'The decision runs as shown.',
  reject: 'Nothing runs; the agent is told why and tries again.',
  takeover: 'The teacher decides the next rounds instead.',
  stop: 'The run ends here; nothing runs.',
} satisfies Record<HumanAction, string>;

/**
 * "Waiting for you": a run paused at the boundary for a person. The run stays persisted in this
 * state (also across restarts) until one of the offered answers is sent; then it continues live.
 */
export function InterventionCard({ intervention, tools }: { intervention: Intervention; tools?: SnapshotTool[] }) {
  const { client, connection } = useHost();
  const noteId = useId();
  const [note, setNote] = useState('');
  const [sending, setSending] = useState<HumanAction>();
  const [sent, setSent] = useState<HumanAction>();
  const [error, setError] = useState<string>();
  const decision = intervention.decision;
  const effect = decision?.decision_type === 'tool_call' ? tools?.find((t) => t.name === decision.tool_name)?.effect : undefined;

  const answer = async (action: HumanAction) => {
    setSending(action);
    setError(undefined);
    try {
      const trimmed = note.trim();
      const { resumed } = await client.request('interventions.answer', {
        run_id: intervention.run_id,
        intervention_id: intervention.id,
        answer: action === 'reject' && trimmed ? { action, note: trimmed } : { action },
      });
      if (resumed) setSent(action);
      else setError('The run is no longer waiting for this answer (it may have been answered in another window, or stopped).');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSending(undefined);
    }
  };

  return (
    <section className="card intervention" aria-labelledby={`${noteId}-title`} data-testid="intervention-card" data-intervention-id={intervention.id} data-kind={intervention.kind}>
      <header className="intervention__head">
        <span className="pulse intervention__pulse" aria-hidden="true" />
        <h2 id={`${noteId}-title`} className="intervention__title">
          Waiting for you
        </h2>
        <Chip tone="escalated">{intervention.kind === 'escalation' ? 'Teacher escalated' : 'Confirmation needed'}</Chip>
        <span className="round__spacer" />
        <span className="muted">Round {intervention.round + 1}</span>
      </header>

      <div className="steps">
        <div className="step">
          <div className="step__label">Why</div>
          <div className="step__body" data-testid="intervention-reason">
            {intervention.kind === 'confirmation' ? <p>This tool needs your confirmation before it runs.</p> : <p>The teacher did not want to decide this alone.</p>}
            {intervention.reason && <p className="intervention__reason">“{intervention.reason}”</p>}
            {intervention.reason_codes.length > 0 && (
              <p>
                {intervention.reason_codes.map((c) => (
                  <code key={c} className="tag">
                    {c}
                  </code>
                ))}
              </p>
            )}
          </div>
        </div>
        <div className="step">
          <div className="step__label">Decision</div>
          <div className="step__body" data-testid="intervention-decision">
            {decision ? <DecisionView decision={decision} effect={effect} /> : <span className="muted">No decision attached: the teacher escalated without a usable candidate.</span>}
          </div>
        </div>
      </div>

      {sent ? (
        <p className="intervention__sent" role="status" data-testid="intervention-sent">
          <Spinner /> “{HUMAN_ACTION_LABELS[sent]}” sent; the run continues…
        </p>
      ) : (
        <>
          {intervention.options.includes('reject') && (
            <div className="intervention__note">
              <label htmlFor={noteId} className="field__label">
                Note for the agent if you reject (optional)
              </label>
              <textarea id={noteId} className="input input--area" rows={2} maxLength={2000} value={note} onChange={(e) => setNote(e.target.value)} placeholder="e.g. Write the summary to a new file instead." data-testid="intervention-note" />
            </div>
          )}
          <div className="intervention__actions" role="group" aria-label="Your answer">
            {intervention.options.map((action, i) =>
              action === 'stop' ? (
                <ConfirmButton
                  key={action}
                  label={HUMAN_ACTION_LABELS[action]}
                  question="Stop the run here? Nothing runs, and the run ends as cancelled."
                  confirmLabel="Stop the run"
                  keepLabel="Keep waiting"
                  danger
                  disabled={sending !== undefined || connection !== 'open'}
                  title={ACTION_HINTS[action]}
                  testId={`intervention-${action}`}
                  onConfirm={() => answer(action)}
                />
              ) : (
                <button
                  key={action}
                  type="button"
                  className={`button ${i === 0 ? 'button--primary' : ''}`}
                  disabled={sending !== undefined || connection !== 'open'}
                  onClick={() => void answer(action)}
                  title={ACTION_HINTS[action]}
                  data-testid={`intervention-${action}`}
                >
                  {sending === action && <Spinner />}
                  {HUMAN_ACTION_LABELS[action]}
                </button>
              ),
            )}
          </div>
          {connection !== 'open' && <p className="muted">Reconnect to the Steward host to answer.</p>}
        </>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
