import { ConfirmButton } from '../../components/ConfirmButton';

/**
 * Remove, asked twice: the first press says what removing does and offers Remove / Keep; focus
 * moves to the answer so the keyboard path is the same as the mouse's.
 */
export function RemoveButton({ what, consequence, testId, disabled, onRemove }: { what: string; consequence: string; testId: string; disabled?: boolean; onRemove: () => Promise<void> }) {
  return <ConfirmButton label="Remove" ariaLabel={`Remove ${what}`} question={`Remove ${what}? ${consequence}`} confirmLabel="Remove" keepLabel="Keep" small testId={testId} disabled={disabled} onConfirm={onRemove} />;
}
