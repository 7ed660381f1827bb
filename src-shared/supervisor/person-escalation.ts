import { z } from 'zod';
import { NodeFailure } from '../workflow/invocation';
import { Escalation, MAX_REPAIR_ROUNDS, SUPERVISOR_ACTION_LABELS, Verdict } from './contracts';

/**
 * A person supervises (issue 11): an escalation the kernel did not decide itself waits in the app,
 * persisted with the run, as an intervention of kind `supervisor_escalation`. It carries what the
 * run needs to go on after a restart: the redacted escalation, the node's own failure (a `fail`
 * keeps it), the attempt (a `retry` runs the next), and the substitutes the kernel already refused
 * (replayed on the answer, so the repair bound holds across a restart too).
 */
export const PersonEscalation = z
  .object({
    escalation: Escalation,
    failure: NodeFailure,
    attempt: z.number().int().min(1),
    /** Substitutes refused by the kernel's check so far, in order (repair turns). */
    refused: z.array(Verdict).max(MAX_REPAIR_ROUNDS),
    /** Why the last substitute was refused: shown with the question. */
    feedback: z.string().max(2000).optional(),
    /** Unanswered by then, the default verdict (fail) applies. */
    expires_at: z.string().datetime().optional(),
  })
  .strict();
export type PersonEscalation = z.infer<typeof PersonEscalation>;

/**
 * The person's verdict must be one the escalation allows: refused here, before anything changes, so
 * the person can answer again. The kernel enforces the same set on the verdict regardless (a verdict
 * outside it is `fail`, decided by the kernel), so this check is the courtesy, not the guard.
 */
export function checkPersonVerdict(wait: PersonEscalation, verdict: Verdict | undefined): void {
  const allowed = wait.escalation.allowed_actions;
  if (verdict === undefined) throw new Error(`answer with a verdict: ${allowed.join(', ')}`);
  if (!allowed.includes(verdict.action)) {
    throw new Error(`"${verdict.action}" is not allowed for this failure of ${wait.escalation.node} (allowed: ${allowed.map((a) => `${a} — ${SUPERVISOR_ACTION_LABELS[a].toLowerCase()}`).join(', ')})`);
  }
}
