import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { DECISION_LABELS, type Decision } from '@shared/contracts/decision';
import type { VerdictAttempt } from '@shared/contracts/round';
import type { RoundView, RoundStage, Rejection, RepairAttempt } from '../db/derive-rounds';
import { HUMAN_ACTION_LABELS } from '@shared/contracts/intervention';
import type { LearningKind } from '@shared/contracts/learning-export';
import { describeCandidate } from '../view/describe-decision';
import { CandidateBody, DecisionView } from '../components/DecisionView';
import { Chip, OutcomeChip, VerdictChip } from '../components/Chip';
import { Spinner } from '../components/Icons';
import type { ReactNode } from 'react';
import { SCS_ROLE_LABELS } from '@shared/scs/contracts';
import type { FinishGateEntry } from '../db/derive-scs';
import { REASON_CODE_LABELS, VALIDATION_CODE_LABELS, roundReasonWords } from '@shared/contracts/code-words';
import { verdictProblemWords } from './verdict-problem-words';

const STAGE_LABELS = {
  proposing: 'Waiting for the model’s proposal…',
  validating: 'Validating the candidate…',
  reviewing: 'The teacher is reviewing…',
  authorizing: 'Authorizing…',
  committing: 'Committing to history…',
  dispatching: 'Executing…',
  done: '',
} satisfies Record<RoundStage, string>;

const REJECTION_LABELS = {
  invalid: 'rejected · failed validation',
  replaced: 'rejected · replaced by the teacher',
  blocked: 'rejected · blocked',
  escalated: 'rejected · escalated',
  finish_refused: 'rejected · finish refused by the monitor',
} satisfies Record<Rejection, string>;

const LEARNING_LABELS = {
  review: 'review',
  shadow: 'shadow comparison',
  demonstration: 'teacher demonstration',
} satisfies Record<LearningKind, string>;

function RepairView({ repair, index }: { repair: RepairAttempt; index: number }) {
  const display = describeCandidate(repair.parsed, repair.reply);
  return (
    <li className="repair" data-testid="repair" data-attempt={index}>
      <div className="candidate__meta">
        <span className="muted">Attempt {index + 1}</span>
        <Chip tone="failed">invalid · student asked to repair</Chip>
      </div>
      <div className="struck">{display ? <CandidateBody display={display} /> : <span className="muted">no output</span>}</div>
      {/* An unparseable reply already says why above; other problems are listed. */}
      {repair.validation && !repair.validation.ok && display?.kind !== 'unparseable' && (
        <ul className="issues">
          {repair.validation.issues.map((issue, i) => (
            <li key={i}>
              <span className="tag tag--bad" title={issue.code} data-code={issue.code}>
                {VALIDATION_CODE_LABELS[issue.code]}
              </span>{' '}
              {issue.message}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function Step({ label, children, tone }: { label: string; children: ReactNode; tone?: 'bad' | 'good' }) {
  return (
    <div className={`step ${tone ? `step--${tone}` : ''}`}>
      <div className="step__label">{label}</div>
      <div className="step__body">{children}</div>
    </div>
  );
}

function VerdictAttemptView({ attempt, total }: { attempt: VerdictAttempt; total: number }) {
  const v = attempt.verdict;
  return (
    <li className="verdict" data-testid="verdict" data-verdict={v?.verdict ?? 'unusable'} data-usable={attempt.usable}>
      <div className="verdict__head">
        {total > 1 && <span className="muted">Attempt {attempt.attempt}</span>}
        {v ? <VerdictChip verdict={v.verdict} /> : <Chip tone="failed">No usable verdict</Chip>}
        {v && !attempt.usable && <Chip tone="failed">unusable · re-asked</Chip>}
        {v?.reason_codes.map((code) => (
          <span key={code} className="tag" title={code} data-code={code}>
            {REASON_CODE_LABELS[code]}
          </span>
        ))}
        {attempt.reply && <span className="muted verdict__model">{attempt.reply.model}</span>}
      </div>
      {v?.explanation && <p className="verdict__explanation">{v.explanation}</p>}
      {!attempt.usable && (
        <div className="verdict__problem" data-testid="verdict-problem">
          <p>{verdictProblemWords(attempt, attempt.attempt < total)}</p>
          {attempt.problem && (
            <details className="verdict__problem-detail">
              <summary>What the check said</summary>
              <code data-testid="verdict-problem-raw">{attempt.problem}</code>
            </details>
          )}
        </div>
      )}
    </li>
  );
}

function effectOfTool(view: RoundView, decision: Decision) {
  if (decision.decision_type !== 'tool_call') return undefined;
  return view.snapshot?.tools.find((t) => t.name === decision.tool_name)?.effect;
}

/**
 * SCS's finish gate on this round's `complete` (it is part of authorization): the monitor's ruling
 * and reason, linked to its entry in the SCS timeline.
 */
function FinishGateStep({ gate, denied, onShowGate }: { gate?: FinishGateEntry; denied?: string; onShowGate?: () => void }) {
  const allowed = gate ? gate.kind === 'finish_allowed' : denied === undefined;
  return (
    <Step label="Finish gate" tone={allowed ? 'good' : 'bad'}>
      <div className="finish-gate" data-testid="round-finish-gate" data-allowed={allowed}>
        <div className="candidate__meta">
          <strong className={allowed ? 'ok-text' : 'is-bad'}>{allowed ? 'Finish allowed by the monitor' : 'Finish refused by the monitor'}</strong>
          {gate && (
            <span className="muted">
              {SCS_ROLE_LABELS.monitor} · confidence {gate.decision.confidence.toFixed(2)}
            </span>
          )}
        </div>
        <p className="finish-gate__reason" data-testid="finish-gate-reason">
          {gate?.decision.reason ?? denied}
        </p>
        {!allowed && <p className="muted finish-gate__note">Nothing reached history; the executor was sent back with this reason.</p>}
        {onShowGate && (
          <button type="button" className="link-button finish-gate__link" onClick={onShowGate}>
            Show in the SCS timeline
          </button>
        )}
      </div>
    </Step>
  );
}

/**
 * `ended`: the run has ended. A round it left unfinished (a host stop, a kill, a trace cut short) says so;
 * it is never shown as still in progress.
 */
export function RoundCard({ view, dryRun = false, gate, onShowGate, ended = false }: { view: RoundView; dryRun?: boolean; gate?: FinishGateEntry; onShowGate?: () => void; ended?: boolean }) {
  const display = describeCandidate(view.candidate?.parsed, view.candidate?.reply);
  const byTeacher = view.proposer === 'teacher';
  // A person's approval is replayed as its own round: no model is asked, the approved decision is selected.
  const byYou = view.selected?.source === 'human' || view.review?.rule === 'human_decided';
  const approvedLater = view.intervention?.answer?.action === 'approve';
  const outcome = view.outcome ?? 'in_flight';
  // Cancelling ends the round as failed with reason `cancelled`: it is the person's doing, not the model's.
  const cancelled = view.complete && view.reason === 'cancelled';
  const outcomeChip = cancelled ? <Chip>Cancelled</Chip> : view.outcome && (dryRun && view.outcome === 'executed' ? <Chip tone="accent">Would execute</Chip> : <OutcomeChip outcome={view.outcome} />);

  return (
    <article className={`card round ${view.complete || ended ? '' : 'round--live'}`} data-testid="round-card" data-round={view.round} data-outcome={outcome} data-cancelled={cancelled ? 'true' : undefined} aria-label={`Round ${view.number}`} tabIndex={-1}>
      <header className="round__head">
        <h3 className="round__title">Round {view.number}</h3>
        <span className="muted">{byYou ? 'Decided by you' : byTeacher ? 'Teacher proposed (takeover)' : 'Student proposed'}</span>
        <span className="round__spacer" />
        {view.snapshot && (
          <span className="muted" title={`Tool snapshot ${view.snapshot.hash}`}>
            {view.snapshot.tools.length} tools offered
          </span>
        )}
        {outcomeChip ||
          (ended ? (
            <Chip tone="failed" title="The run ended before this round did: nothing after its last step was done">
              Did not finish
            </Chip>
          ) : (
            <Chip tone="running">
              <Spinner /> In progress
            </Chip>
          ))}
      </header>

      <div className="steps">
        {view.told !== undefined && (
          <Step label="Told">
            <span data-testid="round-told">
              <Chip tone="accent">From you</Chip> <span className="muted">the agent proposed this round with your words in its prompt:</span> “{view.told}”
            </span>
          </Step>
        )}
        {view.repairs.length > 0 && (
          <Step label="Repairs" tone="bad">
            <ol className="repairs" data-testid="repairs">
              {view.repairs.map((r, i) => (
                <RepairView key={i} repair={r} index={i} />
              ))}
            </ol>
          </Step>
        )}
        <Step label="Candidate">
          {display ? (
            <div className="candidate" data-testid="candidate" data-rejected={view.rejected ? 'true' : 'false'} data-pending={view.pending ? 'true' : 'false'}>
              <div className="candidate__meta">
                <span className="muted">
                  {byTeacher ? 'teacher' : 'student'}
                  {view.candidate?.reply ? ` · ${view.candidate.reply.model}` : ''}
                </span>
                {view.rejection &&
                  (approvedLater ? (
                    <Chip tone="accent">escalated · you approved it; it ran next round</Chip>
                  ) : view.pending ? (
                    <Chip tone="escalated">pending · waiting for your decision</Chip>
                  ) : (
                    <Chip tone={view.rejection === 'replaced' ? 'replaced' : view.rejection === 'escalated' ? 'escalated' : 'blocked'}>{REJECTION_LABELS[view.rejection]}</Chip>
                  ))}
              </div>
              <div className={view.rejected ? 'struck' : undefined}>
                <CandidateBody display={display} effect={view.candidateEffect} />
              </div>
            </div>
          ) : byYou ? (
            <span className="muted" data-testid="candidate-human">No model was asked: this round runs the decision you approved.</span>
          ) : cancelled ? (
            <span className="muted">No candidate: the run was cancelled before the model answered.</span>
          ) : view.complete ? (
            <span className="muted">No candidate: the model produced nothing usable.</span>
          ) : ended ? (
            <span className="muted" data-testid="round-unfinished">No candidate: the run ended before the model answered this round.</span>
          ) : (
            <span className="muted">
              <Spinner /> {STAGE_LABELS.proposing}
            </span>
          )}
        </Step>

        {view.validation && (
          <Step label="Validation" tone={view.validation.ok ? 'good' : 'bad'}>
            {view.validation.ok ? (
              <span>
                <span className="ok-mark" aria-hidden="true">✓</span> Valid
                {view.validation.schema_hash && <span className="muted"> · arguments checked against schema {view.validation.schema_hash.slice(0, 10)}</span>}
              </span>
            ) : (
              <ul className="issues" data-testid="validation-issues">
                {view.validation.issues.map((issue, i) => (
                  <li key={i}>
                    <span className="tag tag--bad" title={issue.code} data-code={issue.code}>
                      {VALIDATION_CODE_LABELS[issue.code]}
                    </span>
                    {issue.path && <code className="muted"> {issue.path}</code>} {issue.message}
                  </li>
                ))}
              </ul>
            )}
          </Step>
        )}

        {view.review && (
          <Step label="Review">
            <span data-testid="review" data-required={view.review.required}>
              {view.review.required ? <Chip tone="accent">Teacher review required</Chip> : <Chip>No review</Chip>}{' '}
              <span className="muted">{REVIEW_RULE_LABELS[view.review.rule]}</span>
              {view.review.detail !== undefined && <span className="muted" data-testid="review-detail">: {view.review.detail}</span>}
            </span>
          </Step>
        )}

        {view.verdicts.length > 0 && (
          <Step label="Verdict">
            <ul className="verdicts">
              {view.verdicts.map((a) => (
                <VerdictAttemptView key={a.attempt} attempt={a} total={view.verdicts.length} />
              ))}
            </ul>
          </Step>
        )}

        {view.intervention && (
          <Step label="You">
            <span data-testid="round-intervention" data-answered={view.intervention.answer ? view.intervention.answer.action : 'pending'}>
              {view.intervention.answer ? (
                <>
                  <Chip tone="accent">{HUMAN_ACTION_LABELS[view.intervention.answer.action]}</Chip>
                  {(view.intervention.answer.text ?? view.intervention.answer.note) && <span className="muted"> “{view.intervention.answer.text ?? view.intervention.answer.note}”</span>}
                  {view.intervention.answer.arguments && <span className="muted"> with your edited arguments</span>}
                </>
              ) : (
                <Chip tone="escalated">Waiting for your answer</Chip>
              )}
            </span>
          </Step>
        )}

        {view.selected && (
          <Step label="Selected" tone="good">
            <div className="selected" data-testid="selected-decision" data-source={view.selected.source}>
              <div className="candidate__meta">
                <Chip tone={view.selected.source === 'teacher' && !byTeacher ? 'replaced' : view.selected.source === 'human' ? 'accent' : 'neutral'}>
                  {view.selected.source === 'human' ? 'Approved by you' : view.selected.source === 'teacher' ? (byTeacher ? 'Teacher' : 'Teacher replacement') : 'Student'}
                </Chip>
                {view.historyIndex !== undefined && <span className="muted">committed as history #{view.historyIndex + 1}</span>}
              </div>
              {view.rejected || !display || (view.selected.source !== view.proposer && view.selected.source !== 'human') ? <DecisionView decision={view.selected.decision} effect={effectOfTool(view, view.selected.decision)} /> : <span className="muted">the candidate above, as proposed</span>}
            </div>
          </Step>
        )}

        {(gate || (view.authorization && !view.authorization.ok && view.authorization.reason === 'finish_rejected')) && (
          <FinishGateStep gate={gate} denied={view.authorization && !view.authorization.ok ? view.authorization.message : undefined} onShowGate={onShowGate} />
        )}

        {view.authorization && !view.authorization.ok && view.authorization.reason !== 'finish_rejected' && (
          <Step label="Authorization" tone="bad">
            <span data-testid="authorization-denied">
              <span className="tag tag--bad" title={view.authorization.reason} data-code={view.authorization.reason}>
                {roundReasonWords(view.authorization.reason)}
              </span>{' '}
              {view.authorization.message}
            </span>
          </Step>
        )}

        {!view.complete && view.stage !== 'proposing' && view.stage !== 'done' && (
          <Step label={ended ? 'Stopped' : 'Now'}>
            <span className="muted" data-testid={ended ? 'round-unfinished' : undefined}>
              {ended ? `The run ended here, at “${STAGE_LABELS[view.stage].replace(/…$/, '')}”: the round never finished.` : <><Spinner /> {STAGE_LABELS[view.stage]}</>}
            </span>
          </Step>
        )}

        {view.complete && (
          <Step label="Outcome" tone={view.outcome === 'executed' || view.outcome === 'delivered' ? 'good' : cancelled ? undefined : 'bad'}>
            <div className="outcome">
              {dryRun && view.outcome === 'executed' ? <Chip tone="accent">Would have executed · dry run, not run</Chip> : outcomeChip}
              {view.reason && (
                <span className="tag" title={view.reason} data-code={view.reason}>
                  {roundReasonWords(view.reason)}
                </span>
              )}
              {view.message && <p className="outcome__message">{view.message}</p>}
              {view.authorization?.ok && view.authorization.recorded_result && (
                // Issue 26's restart of a node: the same call (the same key) made before a stop, never twice.
                <p className="muted" data-testid="round-result-given-again">
                  This exact call was made before a stop cut the run off. The result it got then is given again; the call was not made twice.
                </p>
              )}
              {view.execution && (
                <details className="result" open={view.execution.content.length < 240}>
                  <summary>
                    <code>{view.execution.tool}</code> result
                    {(view.execution.is_error || !view.execution.ok) && <Chip tone="failed">error</Chip>}
                    <span className="muted"> · {view.execution.content.length} chars · {Math.round(view.execution.duration_ms)} ms</span>
                  </summary>
                  <pre className="code">{view.execution.error ?? view.execution.content}</pre>
                </details>
              )}
              {view.delivered && view.outcome === 'delivered' && (
                <span className="muted">{DECISION_LABELS[view.delivered.decision_type]} delivered</span>
              )}
            </div>
          </Step>
        )}
      </div>
      {view.learning && (
        <footer className="round__foot muted" data-testid="round-learning" data-kinds={view.learningKinds.join(' ')}>
          Learning example recorded · {view.learningKinds.map((k) => LEARNING_LABELS[k]).join(' + ')} ·{' '}
          {view.learning.kind === 'demonstration' ? 'the teacher decided' : view.learning.agreement ? 'teacher agreed' : 'teacher disagreed'}
        </footer>
      )}
    </article>
  );
}
