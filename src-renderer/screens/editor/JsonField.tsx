import { useEffect, useId, useState } from 'react';
import { readJsonText } from './json-text';
import { useFieldKey, useUnparsedFields } from './unparsed-fields';

/**
 * A JSON value edited as text: the document changes only when the text parses, and the parse
 * error is shown under it. Text that does not parse is never dropped for the old value: it stays
 * in the field (and in the editor's list of unparsed fields, which blocks saving) until it parses
 * or the value is changed from outside (undo), which replaces the text.
 */
export function JsonField({
  label,
  value,
  onChange,
  testId,
  hint,
  check,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  testId: string;
  hint?: string;
  /** Why a parsed value is not accepted here (e.g. "an object"), if it is not. */
  check?: (v: unknown) => string | undefined;
}) {
  const id = useId();
  const shown = JSON.stringify(value ?? null, null, 2);
  const unparsed = useUnparsedFields();
  const { key, scope } = useFieldKey(testId);
  // The person's text for this field, kept while another node was shown, if the value is still the one it was typed over.
  const keptFor = (k: string) => {
    const kept = unparsed.get(k);
    return kept && kept.base === shown ? kept : undefined;
  };
  const [text, setText] = useState(() => keptFor(key)?.text ?? shown);
  const [error, setError] = useState<string | undefined>(() => keptFor(key)?.error);
  // A value changed from outside (undo, another node) replaces the text unless the text already says it.
  const [synced, setSynced] = useState({ shown, key });
  if (synced.key !== key) {
    setSynced({ shown, key });
    const kept = keptFor(key);
    setText(kept?.text ?? shown);
    setError(kept?.error);
  } else if (synced.shown !== shown) {
    setSynced({ shown, key });
    if (!sameJson(text, shown)) {
      setText(shown);
      setError(undefined);
    }
  }
  // The list of unparsed fields follows this field's state (cleared once its text is the document's).
  useEffect(() => {
    if (error === undefined) unparsed.clear(key);
  }, [error, key, unparsed]);
  const refuse = (typed: string, message: string) => {
    setError(message);
    unparsed.set(key, { scope, field: testId, label, text: typed, error: message, base: shown });
  };
  return (
    <div className="form-row">
      <label className="form-row__label" htmlFor={id}>
        {label}
      </label>
      <div className="form-row__control">
        <textarea
          id={id}
          className="input input--area wf-json"
          rows={5}
          spellCheck={false}
          value={text}
          aria-invalid={error !== undefined}
          data-testid={testId}
          onChange={(e) => {
            const typed = e.target.value;
            setText(typed);
            const read = readJsonText(typed, check);
            if (!read.ok) return refuse(typed, read.error);
            setError(undefined);
            onChange(read.value);
          }}
        />
        {hint && <p className="form-row__hint">{hint}</p>}
        {error && (
          <p className="form-row__issue" data-testid={`${testId}-unparsed`}>
            {error} — this text is not used until it is fixed
          </p>
        )}
      </div>
    </div>
  );
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(JSON.parse(json));
  } catch {
    return false;
  }
}
