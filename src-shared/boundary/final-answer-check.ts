import { z } from 'zod';
import { Decision } from '../contracts/decision';
import type { RunEvent } from '../contracts/events';
import type { HumanAction } from '../contracts/intervention';
import type { RoundRecord } from '../contracts/round';
import { canonicalJson } from '../util/canonical-json';

/**
 * A final answer is not trusted blindly (issue 10): once a decision of the run was blocked, or
 * rejected by the teacher or a person, a student's later `complete` / `present_result` may claim
 * what never happened ("Posted the items to shared.md" after the person rejected that write). This
 * module keeps the facts a claim is checked against — what was refused and what actually ran — as a
 * pure fold over the run's rounds, routes such a final answer to the teacher with those facts, and
 * checks it mechanically when no teacher ruled on it.
 */

/** How a decision was kept from running as proposed. */
export const REFUSALS = ['blocked', 'replaced', 'escalated', 'awaiting_person', 'rejected_by_person', 'approved_by_person'] as const;
export const Refusal = z.enum(REFUSALS);
export type Refusal = z.infer<typeof Refusal>;

export const REFUSAL_LABELS = {
  blocked: 'blocked',
  replaced: 'replaced by the teacher',
  escalated: 'escalated by the teacher, not run',
  awaiting_person: 'waiting for a person, not run',
  rejected_by_person: 'rejected by a person',
  approved_by_person: 'approved by a person',
} satisfies Record<Refusal, string>;

const MAX_TEXT = 300;
const MAX_ITEMS = 40;

export const RefusedDecision = z
  .object({
    round: z.number().int().nonnegative(),
    how: Refusal,
    /** One-line summary: the tool and its (already masked) arguments, or the control decision. */
    decision: z.string().max(MAX_TEXT + 40),
    tool: z.string().optional(),
    /** Identifies the call (tool + canonical arguments): it counts as done once the same call ran. */
    key: z.string().optional(),
    reason: z.string().max(MAX_TEXT + 40).optional(),
  })
  .strict();
export type RefusedDecision = z.infer<typeof RefusedDecision>;

export const ExecutedCall = z
  .object({
    round: z.number().int().nonnegative(),
    tool: z.string(),
    arguments: z.string().max(MAX_TEXT + 40),
    key: z.string(),
    ok: z.boolean(),
  })
  .strict();
export type ExecutedCall = z.infer<typeof ExecutedCall>;

/** What a final answer is checked against; carried across a wait for a person (the checkpoint). */
export const ClaimFacts = z
  .object({ refused: z.array(RefusedDecision).max(MAX_ITEMS), executed: z.array(ExecutedCall).max(MAX_ITEMS) })
  .strict();
export type ClaimFacts = z.infer<typeof ClaimFacts>;

export const NO_CLAIM_FACTS: ClaimFacts = { refused: [], executed: [] };

const clip = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);
const keep = <T>(items: readonly T[]): T[] => items.slice(-MAX_ITEMS);

/** A short, stable identity for a call; a 53-bit string hash keeps big arguments out of the facts. */
function callKey(tool: string, args: unknown): string {
  const text = `${tool}\u0000${canonicalJson(args)}`;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${tool}#${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

function summarize(decision: Decision): { decision: string; tool?: string; key?: string } {
  switch (decision.decision_type) {
    case 'tool_call':
      return { decision: clip(`${decision.tool_name} ${JSON.stringify(decision.arguments)}`), tool: decision.tool_name, key: callKey(decision.tool_name, decision.arguments) };
    case 'complete':
      return { decision: clip(`complete: ${decision.output}`) };
    case 'present_result':
      return { decision: clip(`present_result: ${decision.content}`) };
    case 'ask_user':
      return { decision: clip(`ask_user: ${decision.question}`) };
    case 'request_confirmation':
      return { decision: clip(`request_confirmation: ${decision.message}`) };
    case 'reroute':
      return { decision: clip(`reroute to ${decision.target}`) };
  }
}

/** The proposer's candidate as a decision, when it was one. */
function candidateOf(record: RoundRecord): Decision | undefined {
  const parsed = Decision.safeParse(record.candidate.parsed?.raw);
  return parsed.success ? parsed.data : undefined;
}

// Not refusals of a claimable act: SCS's monitor is itself the check of a finish, and a duplicate
// was refused because the very call already ran.
const NOT_A_REFUSAL = new Set(['finish_rejected', 'duplicate_execution', 'cancelled']);

function refusalOf(record: RoundRecord): Omit<RefusedDecision, 'decision'> & { decision?: Decision } | undefined {
  const explanation = record.verdict?.explanation;
  const base = { round: record.round };
  switch (record.outcome) {
    case 'escalated':
      return { ...base, how: 'escalated', decision: candidateOf(record), reason: explanation ?? record.message };
    case 'blocked': {
      if (NOT_A_REFUSAL.has(record.reason ?? '')) return undefined;
      const how: Refusal = record.reason === 'confirmation_pending' ? 'awaiting_person' : record.reason === 'confirmation_denied' ? 'rejected_by_person' : 'blocked';
      return { ...base, how, decision: record.selected?.decision ?? candidateOf(record), reason: record.message ?? record.reason };
    }
    case 'executed':
    case 'delivered':
      // The teacher corrected the student: the student's own candidate never ran.
      if (record.verdict?.verdict === 'replace') return { ...base, how: 'replaced', decision: candidateOf(record), reason: explanation };
      return undefined;
    case 'failed':
      return undefined;
  }
}

/** Folds one finished round into the facts: what it refused, and what it ran. */
export function foldRound(facts: ClaimFacts, record: RoundRecord): ClaimFacts {
  let { refused, executed } = facts;
  const refusal = refusalOf(record);
  if (refusal) {
    const { decision, ...rest } = refusal;
    const summary = decision ? summarize(decision) : { decision: 'a candidate that was not a valid decision' };
    refused = keep([...refused, RefusedDecision.parse({ ...rest, ...summary, ...(rest.reason !== undefined ? { reason: clip(rest.reason) } : {}) })]);
  }
  const selected = record.selected?.decision;
  if (record.execution && selected?.decision_type === 'tool_call') {
    const e = record.execution;
    executed = keep([...executed, { round: record.round, tool: e.tool, arguments: clip(JSON.stringify(selected.arguments)), key: callKey(selected.tool_name, selected.arguments), ok: e.ok && !e.is_error }]);
  }
  return refused === facts.refused && executed === facts.executed ? facts : { refused, executed };
}

/** A person answered the question a round asked: its refused decision is now theirs to judge. */
export function foldAnswer(facts: ClaimFacts, round: number, action: HumanAction): ClaimFacts {
  const how: Refusal | undefined = action === 'approve' ? 'approved_by_person' : action === 'reject' ? 'rejected_by_person' : undefined;
  if (how === undefined) return facts;
  const asked = (r: RefusedDecision) => r.round === round && (r.how === 'awaiting_person' || r.how === 'escalated');
  if (!facts.refused.some(asked)) return facts;
  return { ...facts, refused: facts.refused.map((r) => (asked(r) ? { ...r, how } : r)) };
}

/** Folds a stored run event (only finished rounds and people's answers matter). */
export function foldClaimEvent(facts: ClaimFacts, event: RunEvent): ClaimFacts {
  if (event.type === 'round.completed') return foldRound(facts, event.record);
  if (event.type === 'intervention.answered') return foldAnswer(facts, event.round, event.answer.action);
  return facts;
}

/** Refusals that stand: a person's approval undoes the teacher's escalation. */
export const standingRefusals = (facts: ClaimFacts): RefusedDecision[] => facts.refused.filter((r) => r.how !== 'approved_by_person');

const isFinalAnswer = (decision: Decision | undefined): boolean => decision?.decision_type === 'complete' || decision?.decision_type === 'present_result';

/**
 * The guard: a final answer (complete, present_result) given after a decision was blocked or
 * rejected goes to the teacher, whatever the review rules say.
 */
export function finalAnswerNeedsReview(facts: ClaimFacts | undefined, decision: Decision | undefined): boolean {
  return facts !== undefined && isFinalAnswer(decision) && standingRefusals(facts).length > 0;
}

/** Refused calls that never ran afterwards or before (the same tool with the same arguments). */
export function unexecutedRefusals(facts: ClaimFacts): RefusedDecision[] {
  const ran = new Set(facts.executed.filter((e) => e.ok).map((e) => e.key));
  return standingRefusals(facts).filter((r) => r.key !== undefined && !ran.has(r.key));
}

/** The facts as the teacher reads them, one line each, oldest first. */
export function describeClaimFacts(facts: ClaimFacts): string[] {
  const refused = standingRefusals(facts).map((r) => `- refused (${REFUSAL_LABELS[r.how]}): ${r.decision}${r.reason ? ` — ${r.reason}` : ''}`);
  const executed = facts.executed.map((e) => `- ran${e.ok ? '' : ' with an error'}: ${e.tool} ${e.arguments}`);
  return [
    'Decisions of this run that did NOT run as proposed:',
    ...(refused.length ? refused : ['- none']),
    'Tool calls that actually ran (nothing else did):',
    ...(executed.length ? executed : ['- none']),
  ];
}

export type FinalAnswerCheck = { trusted: true } | { trusted: false; unexecuted: RefusedDecision[]; message: string };

/**
 * The mechanical check of a run's final answer when no teacher ruled on it (unsupervised, or no
 * review): trusted when the teacher or a person chose it, or the teacher accepted it; otherwise
 * not trusted while a refused call never ran, since the answer may claim it did.
 */
export function checkFinalAnswer(facts: ClaimFacts, record: Pick<RoundRecord, 'selected' | 'review' | 'verdict'>): FinalAnswerCheck {
  const source = record.selected?.source;
  if (source === 'teacher' || source === 'human') return { trusted: true };
  if (record.review?.required === true && record.verdict?.verdict === 'accept') return { trusted: true };
  const unexecuted = unexecutedRefusals(facts);
  if (unexecuted.length === 0) return { trusted: true };
  const list = unexecuted.map((r) => `${r.decision} (${REFUSAL_LABELS[r.how]})`).join('; ');
  return { trusted: false, unexecuted, message: `nobody reviewed the final answer, and these calls never ran: ${list}` };
}
