import { useEffect, useId, useReducer, useRef, type ReactNode } from 'react';
import { IDLE, nextConfirmStep } from './confirm-step';
import { Spinner } from './Icons';

export interface ConfirmButtonProps {
  /** What the button says before it is pressed. */
  label: ReactNode;
  /** Asked after the first press: what pressing again does. */
  question: string;
  confirmLabel: string;
  keepLabel: string;
  /** Runs once the person confirms; settles (never rejects) when the action is done. */
  onConfirm: () => Promise<void>;
  testId: string;
  disabled?: boolean;
  small?: boolean;
  /** The first button in the danger colour too (Cancel run, Stop the run). */
  danger?: boolean;
  ariaLabel?: string;
  title?: string;
}

/**
 * A consequential button (Cancel run, Stop the run, Remove): the first press asks, focus moves to
 * the confirm button so the keyboard path is the mouse's; Escape or Keep closes the question and
 * focus returns to the button.
 */
export function ConfirmButton({ label, question, confirmLabel, keepLabel, onConfirm, testId, disabled, small, danger, ariaLabel, title }: ConfirmButtonProps) {
  const [state, dispatch] = useReducer(nextConfirmStep, IDLE);
  const trigger = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (state.step === 'idle' && state.focus === 'trigger') trigger.current?.focus();
  }, [state]);
  const size = small ? ' button--small' : '';

  if (state.step === 'idle') {
    return (
      <button
        ref={trigger}
        type="button"
        className={`button${danger ? ' button--danger' : ''}${size}`}
        onClick={() => dispatch({ type: 'press' })}
        disabled={disabled}
        data-testid={testId}
        aria-label={ariaLabel}
        aria-haspopup="dialog"
        aria-expanded={false}
        title={title}
      >
        {label}
      </button>
    );
  }
  return (
    <ConfirmPrompt
      question={question}
      confirmLabel={confirmLabel}
      keepLabel={keepLabel}
      testId={testId}
      small={small}
      running={state.step === 'running'}
      onKey={(key) => dispatch({ type: 'key', key })}
      onKeep={() => dispatch({ type: 'keep' })}
      onConfirm={() => {
        dispatch({ type: 'confirm' });
        void onConfirm().finally(() => dispatch({ type: 'settled' }));
      }}
    />
  );
}

/** The question with its two answers; the confirm button takes focus when it appears. */
export function ConfirmPrompt({
  question,
  confirmLabel,
  keepLabel,
  testId,
  small,
  running,
  onKey,
  onKeep,
  onConfirm,
}: {
  question: string;
  confirmLabel: string;
  keepLabel: string;
  testId: string;
  small?: boolean;
  running: boolean;
  onKey: (key: string) => void;
  onKeep: () => void;
  onConfirm: () => void;
}) {
  const questionId = useId();
  const size = small ? ' button--small' : '';
  return (
    <span
      className="remove-confirm"
      role="alertdialog"
      aria-labelledby={questionId}
      data-testid={`${testId}-question`}
      onKeyDown={(e) => {
        // Escape closes this question only, not a dialog around it.
        if (e.key === 'Escape') e.stopPropagation();
        onKey(e.key);
      }}
    >
      <span id={questionId} className="remove-confirm__text">
        {question}
      </span>
      <button type="button" className={`button button--danger${size}`} autoFocus disabled={running} onClick={onConfirm} data-testid={`confirm-${testId}`}>
        {running && <Spinner />}
        {confirmLabel}
      </button>
      <button type="button" className={`button${size}`} onClick={onKeep} disabled={running}>
        {keepLabel}
      </button>
    </span>
  );
}
