import type { RowInvocationStatus } from '@shared/history/run-summary';
import { INVOCATION_STATUS_LABELS } from '@shared/workflow/invocation';
import type { Tone } from '../../components/Chip';

const TONES = {
  pending: 'neutral',
  running: 'running',
  waiting: 'escalated',
  done: 'executed',
  failed: 'failed',
  skipped: 'neutral',
  cancelled: 'neutral',
  // A call the person declined: their decision, not a failure of the system (issue 28).
  declined: 'neutral',
} satisfies Record<RowInvocationStatus, Tone>;

const LABELS = { ...INVOCATION_STATUS_LABELS, declined: 'Declined' } satisfies Record<RowInvocationStatus, string>;

/** A node invocation's status, in the colours run statuses use. */
export function InvocationStatusChip({ status, count }: { status: RowInvocationStatus; count?: number }) {
  return (
    <span className={`chip chip--${TONES[status]} chip--status`} data-status={status}>
      {(status === 'running' || status === 'waiting') && <span className="pulse" aria-hidden="true" />}
      {count !== undefined ? `${count} ${LABELS[status].toLowerCase()}` : LABELS[status]}
    </span>
  );
}
