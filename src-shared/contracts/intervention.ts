import { z } from 'zod';
import { Decision } from './decision';
import { ReasonCode } from './verdict';

/**
 * A run waiting for a person (DESIGN.md §3): the teacher escalated to human handling, or a tool
 * that requires the user's confirmation was selected. The run is persisted in this state and
 * resumes when the person answers — also after the app restarts.
 */
export const INTERVENTION_KINDS = ['escalation', 'confirmation'] as const;
export const InterventionKind = z.enum(INTERVENTION_KINDS);
export type InterventionKind = z.infer<typeof InterventionKind>;

export const HUMAN_ACTIONS = ['approve', 'reject', 'takeover', 'stop'] as const;
export const HumanAction = z.enum(HUMAN_ACTIONS);
export type HumanAction = z.infer<typeof HumanAction>;

export const HUMAN_ACTION_LABELS = {
  approve: 'Approve and run it',
  reject: 'Reject; let the agent try again',
  takeover: 'Let the teacher take over',
  stop: 'Stop the run',
} satisfies Record<HumanAction, string>;

export const Intervention = z
  .object({
    id: z.string().min(8),
    run_id: z.string(),
    round: z.number().int().nonnegative(),
    kind: InterventionKind,
    /** The decision waiting for the person: the escalated candidate, or the tool call to confirm. */
    decision: Decision.optional(),
    /** Why a person is asked: the teacher's explanation, or the tool's confirmation requirement. */
    reason: z.string(),
    reason_codes: z.array(ReasonCode).default([]),
    /** The answers the person may give, in the order to show them. */
    options: z.array(HumanAction).min(1),
    requested_at: z.string(),
  })
  .strict();
export type Intervention = z.infer<typeof Intervention>;

export const HumanAnswer = z
  .object({
    action: HumanAction,
    /** Said back to the agent on reject (and recorded). */
    note: z.string().max(2000).optional(),
  })
  .strict();
export type HumanAnswer = z.infer<typeof HumanAnswer>;
