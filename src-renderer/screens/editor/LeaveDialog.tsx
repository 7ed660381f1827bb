import { useEffect, useId, useRef, type KeyboardEvent } from 'react';
import type { LeaveChoice } from './use-leave-guard';

/**
 * Asked before the editor is left with unsaved changes: Save, Discard or Keep editing. A modal
 * alert dialog: Save has the focus, Tab stays among the three answers, Escape keeps editing.
 */
export function LeaveDialog({ name, canSave, onChoose }: { name: string; canSave: boolean; onChoose: (choice: LeaveChoice) => void }) {
  const id = useId();
  const first = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => first.current?.focus(), []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onChoose('keep');
      return;
    }
    if (e.key !== 'Tab') return;
    const buttons = [...(box.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[(at + (e.shiftKey ? -1 : 1) + buttons.length) % buttons.length];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };
  return (
    <div className="wf-dialog-backdrop">
      <div ref={box} className="wf-dialog card" role="alertdialog" aria-modal="true" aria-labelledby={`${id}-title`} aria-describedby={`${id}-text`} onKeyDown={onKeyDown} data-testid="leave-dialog">
        <h2 id={`${id}-title`} className="wf-dialog__title">
          Save your changes to “{name}”?
        </h2>
        <p id={`${id}-text`}>
          {canSave ? 'You have changes that are not saved. Save them before you leave, or discard them.' : 'You have changes that are not saved, and they cannot be saved until the problems marked on the nodes are fixed. Keep editing to fix them, or discard them.'}
        </p>
        <div className="wf-dialog__actions">
          <button ref={canSave ? undefined : first} type="button" className="button" onClick={() => onChoose('keep')} data-testid="leave-keep">
            Keep editing
          </button>
          <button type="button" className="button button--danger" onClick={() => onChoose('discard')} data-testid="leave-discard">
            Discard
          </button>
          <button ref={canSave ? first : undefined} type="button" className="button button--primary" onClick={() => onChoose('save')} disabled={!canSave} data-testid="leave-save">
            Save
          </button>
        </div>
      </div>
    </div>
  );
}
