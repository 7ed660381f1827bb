import { z } from 'zod';
import type { Decision } from '../contracts/decision';
import type { RunEvent } from '../contracts/events';
import { Proposer, RoundOutcome } from '../contracts/round';
import { canonicalJson } from '../util/canonical-json';

/**
 * What the boundary decided in one round, reduced to what two runs can be compared on. Ids, times
 * and idempotency keys (which name the run) are left out: they always differ.
 */
export const RoundDecisions = z
  .object({
    round: z.number().int().nonnegative(),
    proposer: Proposer.optional(),
    /** The selected decision: the tool it calls, or its kind for a control decision (`complete`…). */
    tool: z.string().optional(),
    /** The selected decision's arguments (a control decision's content), as canonical JSON. */
    arguments: z.string().optional(),
    /** The teacher's verdict the boundary acted on. */
    verdict: z.string().optional(),
    /** `authorized`, or why not (`protected_unreviewed`, `confirmation_pending`…). */
    authorization: z.string().optional(),
    executed: z.boolean(),
    outcome: RoundOutcome.optional(),
  })
  .strict();
export type RoundDecisions = z.infer<typeof RoundDecisions>;

function decisionTool(decision: Decision): string {
  return decision.decision_type === 'tool_call' ? decision.tool_name : decision.decision_type;
}

function decisionArguments(decision: Decision): string {
  if (decision.decision_type === 'tool_call') return canonicalJson(decision.arguments);
  // Confidence is how sure the model said it was, not what it decided.
  const { decision_type: _type, confidence: _confidence, ...content } = decision;
  return canonicalJson(content);
}

/**
 * Each round's decisions, in round order, from a run's events (an agent run's own; a workflow's
 * agent nodes are keyed apart by their invocation and not read here). A round that was answered
 * by a person and resumed keeps what it ended with.
 */
export function roundDecisions(events: readonly RunEvent[]): RoundDecisions[] {
  const rounds = new Map<number, RoundDecisions>();
  const at = (round: number): RoundDecisions => {
    let entry = rounds.get(round);
    if (!entry) {
      entry = { round, executed: false };
      rounds.set(round, entry);
    }
    return entry;
  };
  for (const e of events) {
    if (e.invocation_id !== undefined) continue;
    switch (e.type) {
      case 'round.started':
        at(e.round).proposer = e.proposer;
        break;
      case 'verdict.received':
        if (e.attempt.usable && e.attempt.verdict) at(e.round).verdict = e.attempt.verdict.verdict;
        break;
      case 'decision.selected': {
        const entry = at(e.round);
        entry.tool = decisionTool(e.decision);
        entry.arguments = decisionArguments(e.decision);
        break;
      }
      case 'decision.authorized':
        at(e.round).authorization = e.authorization.ok ? 'authorized' : e.authorization.reason;
        break;
      case 'tool.executed':
        at(e.round).executed = true;
        break;
      case 'round.completed':
        at(e.round).outcome = e.record.outcome;
        break;
      default:
        break;
    }
  }
  return [...rounds.values()].sort((a, b) => a.round - b.round);
}
