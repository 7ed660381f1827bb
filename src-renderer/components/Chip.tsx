import { runStatusLabel, type RunStatus } from '@shared/contracts/events';
import type { PartialCounts } from '@shared/workflow/partial-failure';
import { OUTCOME_LABELS, type RoundOutcome } from '@shared/contracts/round';
import { VERDICT_LABELS, type Verdict } from '@shared/contracts/verdict';
import type { ReactNode } from 'react';

/** Tones map onto the status colours in styles.css. */
export type Tone = 'neutral' | 'executed' | 'delivered' | 'blocked' | 'escalated' | 'failed' | 'replaced' | 'running' | 'accent';

export function Chip({ tone = 'neutral', children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`chip chip--${tone}`} title={title}>
      {children}
    </span>
  );
}

const STATUS_TONES = {
  running: 'running',
  waiting: 'escalated',
  completed: 'executed',
  // Amber, not green: the run lost work (issue 28).
  completed_with_failures: 'escalated',
  unverified: 'escalated',
  failed: 'failed',
  blocked: 'blocked',
  escalated: 'escalated',
  needs_input: 'escalated',
  rerouted: 'delivered',
  cancelled: 'neutral',
  // A person's decision, not a fault of the system (issue 28): neutral, never the failure red.
  declined: 'neutral',
  stopped: 'neutral',
  max_rounds: 'failed',
  interrupted: 'failed',
} satisfies Record<RunStatus, Tone>;

/**
 * `supervised`: a workflow supervisor's verdicts were applied in the run ("Completed — supervised").
 * `partial`: a run that completed with failures says how many ("Completed · 1 of 5 items failed").
 */
export function StatusBadge({ status, testId, supervised = false, partial }: { status: RunStatus; testId?: string; supervised?: boolean; partial?: PartialCounts }) {
  return (
    <span className={`chip chip--${STATUS_TONES[status]} chip--status`} data-testid={testId} data-status={status} data-supervised={supervised || undefined}>
      {(status === 'running' || status === 'waiting') && <span className="pulse" aria-hidden="true" />}
      {runStatusLabel(status, supervised, partial)}
    </span>
  );
}

export function OutcomeChip({ outcome }: { outcome: RoundOutcome }) {
  return <Chip tone={outcome}>{OUTCOME_LABELS[outcome]}</Chip>;
}

const VERDICT_TONES = { accept: 'executed', replace: 'replaced', block: 'blocked', escalate: 'escalated' } satisfies Record<Verdict, Tone>;

export function VerdictChip({ verdict }: { verdict: Verdict }) {
  return <Chip tone={VERDICT_TONES[verdict]}>{VERDICT_LABELS[verdict]}</Chip>;
}
