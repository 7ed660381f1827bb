import { problemProps } from './FormParts';

/** The choice that switches to typing a name (never a credential: their names start with a letter or digit). */
export const TYPE_A_NAME = '__type-a-name';

/**
 * A credential of the keychain, by name: picked from the names the host lists, or typed when the
 * list is unavailable or the person chooses "Type a name…". Never a field for a secret's value.
 */
export function CredentialPicker(props: {
  id: string;
  value: string;
  onChange: (name: string) => void;
  /** The keychain's credential names; undefined while unknown (then a name is typed). */
  names: readonly string[] | undefined;
  typing: boolean;
  onTyping: () => void;
  /** What the empty choice says: e.g. "Pick a credential…" or "No secret". */
  emptyLabel: string;
  selectTestId: string;
  inputTestId: string;
  problem?: string;
  /** The control's name for a screen reader (default: Credential). */
  ariaLabel?: string;
}) {
  const { id, value, names } = props;
  if (props.typing || names === undefined) {
    return (
      <input
        id={id}
        className="input"
        aria-label={`${props.ariaLabel ?? 'Credential'} name`}
        value={value}
        onChange={(e) => props.onChange(e.target.value)}
        placeholder="credential name"
        spellCheck={false}
        autoComplete="off"
        data-testid={props.inputTestId}
        {...problemProps(id, props.problem)}
      />
    );
  }
  return (
    <select
      id={id}
      className="select"
      aria-label={props.ariaLabel ?? 'Credential'}
      value={value}
      onChange={(e) => (e.target.value === TYPE_A_NAME ? props.onTyping() : props.onChange(e.target.value))}
      data-testid={props.selectTestId}
      {...problemProps(id, props.problem)}
    >
      <option value="">{props.emptyLabel}</option>
      {value !== '' && !names.includes(value) && <option value={value}>{value} (not in the keychain)</option>}
      {names.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
      <option value={TYPE_A_NAME}>Type a name…</option>
    </select>
  );
}
