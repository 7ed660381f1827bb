import { INVOCATION_STATUS_LABELS, type InvocationStatus } from '@shared/workflow/invocation';
import type { Tone } from '../../components/Chip';

const TONES = {
  pending: 'neutral',
  running: 'running',
  waiting: 'escalated',
  done: 'executed',
  failed: 'failed',
  skipped: 'neutral',
  cancelled: 'neutral',
} satisfies Record<InvocationStatus, Tone>;

/** A node invocation's status, in the colours run statuses use. */
export function InvocationStatusChip({ status, count }: { status: InvocationStatus; count?: number }) {
  return (
    <span className={`chip chip--${TONES[status]} chip--status`} data-status={status}>
      {(status === 'running' || status === 'waiting') && <span className="pulse" aria-hidden="true" />}
      {count !== undefined ? `${count} ${INVOCATION_STATUS_LABELS[status].toLowerCase()}` : INVOCATION_STATUS_LABELS[status]}
    </span>
  );
}
