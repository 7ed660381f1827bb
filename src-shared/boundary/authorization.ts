import { z } from 'zod';
import type { Decision } from '../contracts/decision';
import type { OfferedTool } from '../contracts/tool-snapshot';
import { isProtectedEffect } from '../contracts/tool-effect';

/** Facts the host gathers for step 5 (ledger lookup, the user's answer); the ruling stays pure. */
export const AuthorizationFacts = z
  .object({
    idempotency_key: z.string().min(8).optional(),
    ledger: z.enum(['new', 'executed', 'in_flight']),
    /**
     * An executed key whose call's result the ledger kept (the history holds it whole): a node that a stop cut
     * off and that starts again gets that result back for the same call, which is not made again.
     */
    result_kept: z.literal(true).optional(),
    /** `pending`: the app will ask the user; the round ends here and the run waits for the answer. */
    confirmation: z.enum(['not_needed', 'granted', 'denied', 'unavailable', 'pending']),
    /** SCS finish gate: a `complete` is delivered only once the monitor allowed it (seed 001). */
    finish: z.enum(['allowed', 'rejected']).optional(),
  })
  .strict();
export type AuthorizationFacts = z.infer<typeof AuthorizationFacts>;

export const DENIAL_REASONS = [
  'protected_unreviewed',
  'confirmation_denied',
  'confirmation_unavailable',
  'confirmation_pending',
  'duplicate_execution',
  'missing_idempotency_key',
  'finish_rejected',
] as const;
export const DenialReason = z.enum(DENIAL_REASONS);
export type DenialReason = z.infer<typeof DenialReason>;

export const Authorization = z.discriminatedUnion('ok', [
  /** `recorded_result`: the call was made before (an executed key); its kept result is given again and nothing is called. */
  z.object({ ok: z.literal(true), idempotency_key: z.string().optional(), recorded_result: z.literal(true).optional() }).strict(),
  z.object({ ok: z.literal(false), reason: DenialReason, message: z.string() }).strict(),
]);
export type Authorization = z.infer<typeof Authorization>;

export const DENIAL_MESSAGES = {
  protected_unreviewed: 'a protected effect was not reviewed by the teacher; it is never executed unreviewed',
  confirmation_denied: 'the user declined this tool call',
  confirmation_unavailable: 'this tool requires user confirmation and none could be obtained',
  confirmation_pending: 'this tool requires your confirmation: the run waits for your answer',
  duplicate_execution: 'this exact call (same run, round, tool and arguments) was already made, or started before a stop cut it off: it is never made twice',
  missing_idempotency_key: 'a tool call needs an idempotency key before it can execute',
  finish_rejected: 'the monitor has not seen evidence that the acceptance criteria are met; the run goes on',
} satisfies Record<DenialReason, string>;

/**
 * Step 5, execution/delivery authorization. `reviewed` means a teacher verdict selected this
 * decision (accept or replace) or the teacher itself proposed it. Control responses need no tool
 * authority; every tool call needs a fresh idempotency key.
 */
export function authorizeDecision(input: {
  decision: Decision;
  tool?: OfferedTool;
  reviewed: boolean;
  facts: AuthorizationFacts;
}): Authorization {
  const { decision, tool, reviewed, facts } = input;
  const deny = (reason: DenialReason): Authorization => ({ ok: false, reason, message: DENIAL_MESSAGES[reason] });
  if (decision.decision_type === 'complete' && facts.finish === 'rejected') return deny('finish_rejected');
  if (decision.decision_type !== 'tool_call') return { ok: true };
  const effect = tool?.effect.effect ?? 'unknown';
  if (isProtectedEffect(effect) && !reviewed) return deny('protected_unreviewed');
  if (!facts.idempotency_key) return deny('missing_idempotency_key');
  if (facts.ledger === 'executed' && facts.result_kept === true) {
    // Made once already, and its result kept: given again, nothing executes (I5), no person is asked twice.
    return { ok: true, idempotency_key: facts.idempotency_key, recorded_result: true };
  }
  if (facts.ledger !== 'new') return deny('duplicate_execution');
  if (tool?.effect.requires_user_confirmation ?? false) {
    if (facts.confirmation === 'denied') return deny('confirmation_denied');
    if (facts.confirmation === 'pending') return deny('confirmation_pending');
    if (facts.confirmation !== 'granted') return deny('confirmation_unavailable');
  }
  return { ok: true, idempotency_key: facts.idempotency_key };
}
