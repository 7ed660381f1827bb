import { useState } from 'react';
import { CredentialPicker } from './CredentialPicker';
import { FieldProblem } from './FormParts';

/**
 * A secret the form asks for by its credential's name in the keychain (a client secret, a private
 * key, an ID token): its label, the `keychain:` prefix, the picker (a name typed instead when the
 * keychain's names are unknown or the person chooses to) and its problem or hint. The form never
 * holds the value itself.
 */
export function CredentialField(props: {
  id: string;
  /** The group's name for a screen reader. */
  group: string;
  label: string;
  value: string;
  onChange: (name: string) => void;
  names: readonly string[] | undefined;
  emptyLabel: string;
  ariaLabel: string;
  /** The picker's test ids: `${testId}-credential` (the list) and `${testId}-name` (a typed name). */
  testId: string;
  problem: string | undefined;
  hint: string;
}) {
  const [typing, setTyping] = useState(false);
  const { id, problem } = props;
  return (
    <div className="env-row" role="group" aria-label={props.group}>
      <label className="field__label" htmlFor={id}>
        {props.label}
      </label>
      <code className="env-row__prefix">keychain:</code>
      <CredentialPicker
        id={id}
        value={props.value}
        onChange={props.onChange}
        names={props.names}
        typing={typing}
        onTyping={() => setTyping(true)}
        emptyLabel={props.emptyLabel}
        ariaLabel={props.ariaLabel}
        selectTestId={`${props.testId}-credential`}
        inputTestId={`${props.testId}-name`}
        problem={problem}
      />
      <FieldProblem id={id} message={problem} hint={props.hint} />
    </div>
  );
}
