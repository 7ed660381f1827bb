import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { judgmentExpired } from '@shared/pattern/human-ask';

/**
 * The host's persisted timer for pattern judgments: the expiry is written in the waiting
 * intervention (`judgment.expires_at`), so it holds across restarts; this sweep, run by the host
 * that owns the data folder, answers each judgment past it with `expired` — its fallback model
 * judges, or the system escalates — through the same path a person's answer takes.
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
    if (i.kind !== 'pattern_judgment' || !judgmentExpired(i.judgment, now)) continue;
    try {
      if (deps.answer(i.run_id, i.id, { action: 'expired' })) expired.push(i.id);
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
