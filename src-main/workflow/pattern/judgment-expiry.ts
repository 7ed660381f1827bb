import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { judgmentExpired } from '@shared/pattern/human-ask';

/**
 * The host's persisted timer for pattern judgments: the expiry is written in the waiting
 * intervention (`judgment.expires_at`), so it holds across restarts; this sweep, run by the host
 * that owns the data folder, answers each judgment past it with `expired` — its fallback model
 * judges, or the system escalates — through the same path a person's answer takes. A workflow
 * supervisor's escalation past its decision time (`supervision.expires_at`) is swept the same way:
 * the run then applies the default verdict, `fail`.
 */
export interface JudgmentExpiryDeps {
  /** What waits for a person now (the host's list, from the checkpoints on disk). */
  pending: () => Intervention[];
  answer: (runId: string, interventionId: string, answer: HumanAnswer) => boolean;
  now?: () => number;
  log?: (line: string) => void;
}

/** One sweep: the judgments it expired (their intervention ids). */
export function expireJudgments(deps: JudgmentExpiryDeps): string[] {
  const now = deps.now?.() ?? Date.now();
  const expired: string[] = [];
  for (const i of deps.pending()) {
    const escalationExpired = i.kind === 'supervisor_escalation' && i.supervision?.expires_at !== undefined && Date.parse(i.supervision.expires_at) <= now;
    if (!escalationExpired && (i.kind !== 'pattern_judgment' || !judgmentExpired(i.judgment, now))) continue;
    try {
      // A supervisor escalation past its decision time: the run applies the default verdict (fail, decided_by default) to any answer then.
      const answer: HumanAnswer = escalationExpired ? { action: 'verdict', verdict: { action: 'fail', reason: 'the decision time ran out' } } : { action: 'expired' };
      if (deps.answer(i.run_id, i.id, answer)) expired.push(i.id);
    } catch (err) {
      deps.log?.(`the judgment ${i.id} expired but could not be handed to its fallback: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return expired;
}

/** Sweeps every `everyMs` (an expiry is at least a minute, so a few seconds late is fine) until stopped. */
export function startJudgmentExpiry(deps: JudgmentExpiryDeps, everyMs = 5_000): () => void {
  const timer = setInterval(() => expireJudgments(deps), everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
