import { useCallback, useRef, useState, type FormEvent, type ReactElement } from 'react';
import type { ActionResult } from '@shared/contracts/audit';
import { useHost } from '../app/HostProvider';

export type ActionOutcome = { status: 'done' } | { status: 'denied'; message: string };

interface Waiting {
  confirmation_id: string;
  prompt: string;
  error?: string;
  resolve(outcome: ActionOutcome): void;
}

/**
 * An explicit action on the host (register, allow, downgrade, store a credential). The host decides
 * whether a person must approve: in Electron a native dialog opens from the main process and the
 * request simply resolves; in the browser the host prints a one-time code on its terminal and the
 * panel here asks for it. `run` resolves once it is done or denied.
 */
export function useExplicitAction(): { run(request: () => Promise<ActionResult>): Promise<ActionOutcome>; panel: ReactElement | null } {
  const { client } = useHost();
  const [waiting, setWaiting] = useState<Waiting>();
  const [busy, setBusy] = useState(false);
  const codeRef = useRef<HTMLInputElement>(null);

  const run = useCallback(async (request: () => Promise<ActionResult>): Promise<ActionOutcome> => {
    const result = await request();
    if (result.status !== 'needs_confirmation') return result;
    return new Promise<ActionOutcome>((resolve) => setWaiting({ confirmation_id: result.confirmation_id, prompt: result.prompt, resolve }));
  }, []);

  const finish = (outcome: ActionOutcome) => {
    waiting?.resolve(outcome);
    setWaiting(undefined);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // React bubbles a submit through the component tree: never into a form this panel sits in.
    e.stopPropagation();
    if (!waiting) return;
    const code = codeRef.current?.value.trim() ?? '';
    setBusy(true);
    try {
      const answer = await client.request('actions.confirm', { confirmation_id: waiting.confirmation_id, code });
      if (answer.status === 'wrong_code') {
        setWaiting({ ...waiting, error: `That is not the code. ${answer.attempts_left} ${answer.attempts_left === 1 ? 'attempt' : 'attempts'} left.` });
        if (codeRef.current) codeRef.current.value = '';
      } else finish(answer);
    } catch (err) {
      setWaiting({ ...waiting, error: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const cancel = async () => {
    if (!waiting) return;
    await client.request('actions.cancel', { confirmation_id: waiting.confirmation_id }).catch(() => undefined);
    finish({ status: 'denied', message: 'Cancelled: nothing changed.' });
  };

  const panel = waiting ? (
    <form className="confirm-code" role="group" aria-label="Approve with the terminal code" onSubmit={(e) => void submit(e)} data-testid="confirm-code-panel">
      <p className="confirm-code__prompt">{waiting.prompt}</p>
      <div className="field">
        <label className="field__label" htmlFor={`code-${waiting.confirmation_id}`}>
          Code from the terminal
        </label>
        <input id={`code-${waiting.confirmation_id}`} ref={codeRef} className="input" inputMode="numeric" autoComplete="one-time-code" placeholder="123-456" data-testid="confirm-code" autoFocus />
      </div>
      <div className="tool-row__actions">
        <button type="submit" className="button button--primary button--small" disabled={busy} data-testid="confirm-approve">
          Approve
        </button>
        <button type="button" className="button button--small" onClick={() => void cancel()} data-testid="confirm-cancel">
          Cancel
        </button>
      </div>
      {waiting.error && (
        <p className="error" role="alert">
          {waiting.error}
        </p>
      )}
    </form>
  ) : null;

  return { run, panel };
}
