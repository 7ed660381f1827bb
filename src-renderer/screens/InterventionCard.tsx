import { useId, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { answerHint, HUMAN_ACTION_LABELS, NOTE_ACTIONS, REPLY_MAX_LENGTH, type HumanAction, type HumanAnswer, type Intervention, type InterventionKind } from '@shared/contracts/intervention';
import { useHost } from '../app/HostProvider';
import { DecisionView } from '../components/DecisionView';
import { Spinner } from '../components/Icons';
import { AnswerError, ReconnectNote } from './interventions/answer-notes';
import { ConfirmButton } from '../components/ConfirmButton';
import { JsonField } from './editor/JsonField';
import { PatternJudgmentCard } from './PatternJudgmentCard';
import { EscalationAnswer } from '../supervision/EscalationAnswer';
import { ServerInputCard } from './interventions/ServerInputCard';
import { AnswerCardHead, AnswerSent } from './interventions/answer-card';
import { ProvenanceMarks } from './interventions/ProvenanceMarks';
import type { SnapshotTool } from '../db/derive-rounds';
import { storedEffect } from '../db/intervention-effect';
import { roundNumber } from '@shared/contracts/round-number';
import { REASON_CODE_LABELS } from '@shared/contracts/code-words';

const WHY = {
  escalation: 'The teacher did not want to decide this alone.',
  confirmation: 'This tool needs your confirmation before it runs.',
  ask_user: 'The agent asks you a question before it goes on.',
  request_confirmation: 'The agent asks you to confirm before it goes on.',
  blocked: 'A decision was blocked; the agent waits for your word on how to go on.',
  pattern_judgment: 'A pattern node waits for your judgment of its output.',
  supervisor_escalation: 'A supervised node failed; you decide what happens to it.',
  server_input: 'A tool asks you something in the middle of its call; the call goes on with your answer.',
} satisfies Record<InterventionKind, string>;

/** A question the student asked itself: its words are the question, not a decision to approve. */
const ASKED_BY_STUDENT: ReadonlySet<InterventionKind> = new Set(['ask_user', 'request_confirmation']);

/** A reply typed but not sent survives a reload of the page (the run waits persisted on the host). */
const draftKey = (id: string) => `steward.reply-draft.${id}`;
function readDraft(id: string): string {
  try {
    return globalThis.localStorage?.getItem(draftKey(id)) ?? '';
  } catch {
    return '';
  }
}
function writeDraft(id: string, text: string): void {
  try {
    if (text) globalThis.localStorage?.setItem(draftKey(id), text);
    else globalThis.localStorage?.removeItem(draftKey(id));
  } catch {
    // Storage refused (private mode, quota): the draft lives in the page only.
  }
}

/** What is sent for the pressed button: a reply carries its text; reject, decline, yes and no may carry a note. */
function answerOf(action: HumanAction, reply: string, note: string, edited: Record<string, unknown> | undefined): HumanAnswer {
  if (action === 'reply') return { action, text: reply.trim() };
  // Approve with edits: the host validates the arguments against the round's tools, or refuses them.
  if (action === 'approve' && edited !== undefined) return { action, arguments: edited };
  const trimmed = note.trim();
  return NOTE_ACTIONS.has(action) && trimmed ? { action, note: trimmed } : { action };
}

/**
 * "Waiting for you": a run paused at the boundary for a person. The run stays persisted in this
 * state (also across restarts) until one of the offered answers is sent; then it continues live.
 */
export function InterventionCard({ intervention, tools }: { intervention: Intervention; tools?: SnapshotTool[] }) {
  // Each kind with its own answers has its own card.
  if (intervention.kind === 'pattern_judgment' && intervention.judgment) return <PatternJudgmentCard intervention={intervention} ask={intervention.judgment} />;
  if (intervention.kind === 'supervisor_escalation' && intervention.supervision) return <EscalationAnswer intervention={intervention} wait={intervention.supervision} />;
  if (intervention.kind === 'server_input' && intervention.server_input) return <ServerInputCard intervention={intervention} input={intervention.server_input} />;
  return <DecisionInterventionCard intervention={intervention} tools={tools} />;
}

function DecisionInterventionCard({ intervention, tools }: { intervention: Intervention; tools?: SnapshotTool[] }) {
  const { client, connection, db } = useHost();
  const noteId = useId();
  const replyId = useId();
  const [note, setNote] = useState('');
  const [reply, setReplyState] = useState(() => readDraft(intervention.id));
  const setReply = (text: string) => {
    setReplyState(text);
    writeDraft(intervention.id, text);
  };
  const canReply = intervention.options.includes('reply');
  const takesNote = intervention.options.some((a) => NOTE_ACTIONS.has(a));
  // What a refusal does here, said beside the buttons: the agent's tries left, or a step nobody can try again.
  const refusal = intervention.options.find((a) => a === 'reject' || a === 'decline');
  const askedByStudent = ASKED_BY_STUDENT.has(intervention.kind);
  const decisionToEdit = intervention.options.includes('approve') && intervention.decision?.decision_type === 'tool_call' ? intervention.decision : undefined;
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState<Record<string, unknown> | undefined>(decisionToEdit?.arguments);
  const [sending, setSending] = useState<HumanAction>();
  const [sent, setSent] = useState<HumanAction>();
  const [error, setError] = useState<string>();
  const decision = intervention.decision;
  // As the run recorded it for this round and agent (any page, before or after a restart), else from the tools the caller has at hand.
  const recorded = useLiveQuery(() => storedEffect(db, intervention), [db, intervention]);
  const effect = decision?.decision_type === 'tool_call' ? (recorded ?? tools?.find((t) => t.name === decision.tool_name)?.effect) : undefined;

  const answer = async (action: HumanAction) => {
    setSending(action);
    setError(undefined);
    try {
      const { resumed } = await client.request('interventions.answer', {
        run_id: intervention.run_id,
        intervention_id: intervention.id,
        answer: answerOf(action, reply, note, editing ? edited : undefined),
      });
      if (resumed) {
        setSent(action);
        writeDraft(intervention.id, '');
      } else setError('The run is no longer waiting for this answer (it may have been answered in another window, or stopped).');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSending(undefined);
    }
  };

  return (
    <section className="card intervention" aria-labelledby={`${noteId}-title`} data-testid="intervention-card" data-intervention-id={intervention.id} data-kind={intervention.kind}>
      <AnswerCardHead titleId={`${noteId}-title`} intervention={intervention}>
        <span className="muted">Round {roundNumber(intervention.round)}</span>
      </AnswerCardHead>

      <div className="steps">
        <div className="step">
          <div className="step__label">{askedByStudent ? 'Question' : 'Why'}</div>
          <div className="step__body" data-testid="intervention-reason">
            <p>{WHY[intervention.kind]}</p>
            {intervention.reason && (
              <p className="intervention__reason" data-testid={askedByStudent ? 'intervention-question' : undefined}>
                “{intervention.reason}”
              </p>
            )}
            {intervention.reason_codes.length > 0 && (
              <p>
                {intervention.reason_codes.map((c) => (
                  <span key={c} className="tag" title={c} data-code={c}>
                    {REASON_CODE_LABELS[c]}
                  </span>
                ))}
              </p>
            )}
          </div>
        </div>
        {!askedByStudent && (
          <div className="step">
            <div className="step__label">Decision</div>
            <div className="step__body" data-testid="intervention-decision">
              {decision ? <DecisionView decision={decision} effect={effect} /> : <span className="muted">No decision attached: the teacher escalated without a usable candidate.</span>}
              <ProvenanceMarks marks={intervention.provenance} decision={decision} />
            </div>
          </div>
        )}
      </div>

      {sent ? (
        <AnswerSent label={HUMAN_ACTION_LABELS[sent]} />
      ) : (
        <>
          {decisionToEdit && (
            <div className="intervention__note">
              <button type="button" className="button button--small" aria-expanded={editing} onClick={() => setEditing(!editing)} data-testid="intervention-edit-arguments">
                {editing ? 'Keep the arguments as proposed' : 'Edit arguments'}
              </button>
              {editing && (
                <JsonField
                  label={`Arguments for ${decisionToEdit.tool_name}`}
                  hint="Approve runs these instead of the proposed ones; they are checked like any decision."
                  value={edited}
                  onChange={(v) => setEdited(v as Record<string, unknown>)}
                  check={(v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'the arguments are a JSON object')}
                  testId="intervention-arguments"
                />
              )}
            </div>
          )}
          {canReply && (
            <div className="intervention__note">
              <label htmlFor={replyId} className="field__label">
                Your reply to the agent
              </label>
              <textarea
                id={replyId}
                className="input input--area"
                rows={3}
                maxLength={REPLY_MAX_LENGTH}
                value={reply}
                onChange={(e) => setReply(e.target.value)}
                onKeyDown={(e) => {
                  // Ctrl+Enter (⌘+Enter) sends, as in a chat; Enter alone makes a new line.
                  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && reply.trim() && sending === undefined && connection === 'open') {
                    e.preventDefault();
                    void answer('reply');
                  }
                }}
                aria-describedby={`${replyId}-hint`}
                data-testid="intervention-reply-text"
              />
              <p id={`${replyId}-hint`} className="muted">
                {reply.length}/{REPLY_MAX_LENGTH} characters · Ctrl+Enter sends
              </p>
            </div>
          )}
          {takesNote && (
            <div className="intervention__note">
              <label htmlFor={noteId} className="field__label">
                {noteLabel(intervention.options)}
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
                  title={answerHint(action, intervention)}
                  testId={`intervention-${action}`}
                  onConfirm={() => answer(action)}
                />
              ) : (
                <button
                  key={action}
                  type="button"
                  className={`button ${i === 0 ? 'button--primary' : ''}`}
                  disabled={sending !== undefined || connection !== 'open' || (action === 'reply' && !reply.trim())}
                  onClick={() => void answer(action)}
                  title={answerHint(action, intervention)}
                  data-testid={`intervention-${action}`}
                >
                  {sending === action && <Spinner />}
                  {action === 'approve' && editing ? 'Approve and run it with your arguments' : HUMAN_ACTION_LABELS[action]}
                </button>
              ),
            )}
          </div>
          {refusal && (
            <p className="muted intervention__hint" data-testid="intervention-refusal-hint">
              <strong>{HUMAN_ACTION_LABELS[refusal]}:</strong> {answerHint(refusal, intervention)}
            </p>
          )}
          <ReconnectNote connection={connection} />
        </>
      )}
      <AnswerError error={error} />
    </section>
  );
}

/** The note box's label: who reads the note depends on the answers offered. */
function noteLabel(options: readonly HumanAction[]): string {
  if (options.includes('reject')) return 'Note for the agent if you reject (optional)';
  if (options.includes('decline')) return 'Why you don’t run it (optional; the run’s outcome says it)';
  return 'Note for the agent with your answer (optional)';
}
