import type { ReactNode } from 'react';
import { Spinner } from '../../components/Icons';

/** Links a control to its note: the problem when there is one (announced), else the hint. */
export function problemProps(id: string, message: string | undefined): { 'aria-invalid'?: true; 'aria-describedby': string } {
  return { ...(message ? { 'aria-invalid': true as const } : {}), 'aria-describedby': `${id}-note` };
}

export function FieldProblem({ id, message, hint }: { id: string; message?: string; hint?: ReactNode }) {
  if (message) {
    return (
      <p id={`${id}-note`} className="form-row__issue" data-testid="field-problem">
        {message}
      </p>
    );
  }
  return hint ? (
    <p id={`${id}-note`} className="form-row__hint">
      {hint}
    </p>
  ) : null;
}

/** A labelled one-line text field with its problem or hint below. */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  testId: string;
  problem?: string;
  hint?: ReactNode;
  readOnly?: boolean;
  autoFocus?: boolean;
}) {
  return (
    <div className="field">
      <label className="field__label" htmlFor={props.id}>
        {props.label}
      </label>
      <input
        id={props.id}
        className="input"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        placeholder={props.placeholder}
        spellCheck={false}
        readOnly={props.readOnly}
        autoFocus={props.autoFocus}
        data-testid={props.testId}
        {...problemProps(props.id, props.problem)}
      />
      <FieldProblem id={props.id} message={props.problem} hint={props.hint} />
    </div>
  );
}

/** What the host said against the last submit, then Submit / Cancel. */
export function FormFooter({ failure, failureTestId, busy, disabled, submitLabel, submitTestId, onCancel }: { failure?: string; failureTestId: string; busy: boolean; disabled: boolean; submitLabel: string; submitTestId: string; onCancel: () => void }) {
  return (
    <>
      {failure && (
        <p className="error" role="alert" data-testid={failureTestId}>
          {failure}
        </p>
      )}
      <div className="server-form__actions">
        <button type="submit" className="button button--primary" disabled={busy || disabled} data-testid={submitTestId}>
          {busy && <Spinner />}
          {submitLabel}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </>
  );
}
