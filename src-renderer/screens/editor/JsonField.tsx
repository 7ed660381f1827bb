import { useId, useState } from 'react';

/**
 * A JSON value edited as text: the document changes only when the text parses, and the parse
 * error is shown under it. Undo (a new `value` from outside) replaces the text.
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
  const [text, setText] = useState(shown);
  const [error, setError] = useState<string>();
  // A value changed from outside (undo, another node) replaces the text unless the text already says it.
  const [synced, setSynced] = useState(shown);
  if (synced !== shown) {
    setSynced(shown);
    if (!sameJson(text, shown)) {
      setText(shown);
      setError(undefined);
    }
  }
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
            setText(e.target.value);
            try {
              const parsed: unknown = JSON.parse(e.target.value);
              const refused = check?.(parsed);
              setError(refused);
              if (refused === undefined) onChange(parsed);
            } catch (err) {
              setError(`not JSON yet: ${err instanceof Error ? err.message : String(err)}`);
            }
          }}
        />
        {hint && <p className="form-row__hint">{hint}</p>}
        {error && <p className="form-row__issue">{error}</p>}
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
