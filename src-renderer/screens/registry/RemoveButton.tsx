import { useEffect, useRef, useState } from 'react';

/**
 * Remove, asked twice: the first press says what removing does and offers Remove / Keep; focus
 * moves to the answer so the keyboard path is the same as the mouse's.
 */
export function RemoveButton({ what, consequence, testId, disabled, onRemove }: { what: string; consequence: string; testId: string; disabled?: boolean; onRemove: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  const answered = useRef(false);
  // After Keep, focus goes back to Remove, where the keyboard was.
  useEffect(() => {
    if (!asking && answered.current) first.current?.focus();
  }, [asking]);
  const close = () => {
    answered.current = true;
    setAsking(false);
  };
  if (!asking) {
    return (
      <button ref={first} type="button" className="button button--small" onClick={() => setAsking(true)} disabled={disabled} data-testid={testId} aria-label={`Remove ${what}`}>
        Remove
      </button>
    );
  }
  return (
    <span className="remove-confirm" role="group" aria-label={`Remove ${what}?`} onKeyDown={(e) => e.key === 'Escape' && !busy && close()}>
      <span className="remove-confirm__text">
        Remove {what}? {consequence}
      </span>
      <button
        type="button"
        className="button button--danger button--small"
        autoFocus
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void onRemove().finally(() => {
            setBusy(false);
            close();
          });
        }}
        data-testid={`confirm-${testId}`}
      >
        Remove
      </button>
      <button type="button" className="button button--small" onClick={close} disabled={busy}>
        Keep
      </button>
    </span>
  );
}
