import { z } from 'zod';
import type { RunEvent, RunEventOf } from '../contracts/events';
import { isProtectedEffect } from '../contracts/tool-effect';
import { Verdict } from '../contracts/verdict';
import { ReviewRule } from './review-policy';

/**
 * What promotion needs to know of one round, folded from its events one at a time. Every fold keeps
 * the latest by sequence number (or an OR), so the same events in any order, any batching, any
 * number of times, give the same facts: the host can keep them as events are folded instead of
 * scanning a workflow's whole trace (src-main/events/promotion-store.ts), and the in-memory scan
 * (promotion.ts) folds the same way, so both agree.
 */

/** A round of an agent run: a workflow run's agent nodes count their rounds each from 0, so the node's invocation is part of it. */
export const RoundKey = z.object({ run_id: z.string(), scope: z.string(), round: z.number().int().nonnegative() }).strict();
export type RoundKey = z.infer<typeof RoundKey>;

const seq = z.number().int().nonnegative();

export const RoundFacts = RoundKey.extend({
  /** The round's tool snapshot: the tools with a protected effect (a tool it does not list could not have passed validation). */
  effects: z.object({ seq, protected_tools: z.array(z.string()) }).strict().optional(),
  /** The latest `round.completed` of a reviewed student round. */
  record: z
    .object({
      seq,
      ts: z.string(),
      rule: ReviewRule.optional(),
      verdict: Verdict.optional(),
      /** Blocked for want of a usable verdict. */
      unusable: z.boolean(),
      tool: z.string().optional(),
    })
    .strict()
    .optional(),
  /** The latest `review` learning example with a verdict: stands in when the round record is absent. */
  review: z.object({ seq, ts: z.string(), rule: ReviewRule.optional(), verdict: Verdict, tool: z.string().optional() }).strict().optional(),
  /** The latest phase-1 shadow comparison. */
  shadow: z.object({ seq, ts: z.string(), agreement: z.boolean() }).strict().optional(),
  /** The latest answer of a person to the question this round asked. */
  answer: z.object({ seq, approved: z.boolean() }).strict().optional(),
}).strict();
export type RoundFacts = z.infer<typeof RoundFacts>;

/** What promotion needs of a run as a whole. */
export const RunFacts = z
  .object({
    run_id: z.string(),
    /** Any start of the run (its own, or an agent node's) said dry run: none of its rounds counts. */
    dry_run: z.boolean(),
    /** The spec id of its latest `run.started`. */
    spec: z.object({ seq, spec_id: z.string() }).strict().optional(),
  })
  .strict();
export type RunFacts = z.infer<typeof RunFacts>;

/**
 * The agent node a round counts for (issue 29: promotion is earned per agent node): a workflow
 * run's node, from its invocation (`extract[list=3]` → `extract`); '' for an agent run, which is
 * its workflow's one node.
 */
export const nodeOfScope = (scope: string): string => {
  const cut = scope.indexOf('[');
  return cut === -1 ? scope : scope.slice(0, cut);
};

export const roundKeyId = (k: RoundKey): string => `${k.run_id}\u0000${k.scope}\u0000${k.round}`;

type RoundEvent = RunEventOf<'tools.snapshot' | 'round.completed' | 'learning.example' | 'intervention.answered'>;

/** The events a round's facts are folded from. */
export function isRoundEvent(e: RunEvent): e is RoundEvent {
  return e.type === 'tools.snapshot' || e.type === 'round.completed' || e.type === 'learning.example' || e.type === 'intervention.answered';
}

/** The events a run's facts are folded from. */
export function isStartEvent(e: RunEvent): e is RunEventOf<'run.started' | 'agent.started'> {
  return e.type === 'run.started' || e.type === 'agent.started';
}

export const roundKeyOf = (e: RoundEvent): RoundKey => ({ run_id: e.run_id, scope: e.invocation_id ?? '', round: e.round });

const later = (prior: { seq: number } | undefined, e: { seq: number }) => prior === undefined || e.seq > prior.seq;

export function foldRunFacts(facts: RunFacts | undefined, e: RunEventOf<'run.started' | 'agent.started'>): RunFacts {
  const base: RunFacts = facts ?? { run_id: e.run_id, dry_run: false };
  const dry_run = base.dry_run || e.dry_run;
  const spec = e.type === 'run.started' && later(base.spec, e) ? { seq: e.seq, spec_id: e.spec_id } : base.spec;
  return { ...base, dry_run, ...(spec ? { spec } : {}) };
}

/** Folds one event into its round's facts (the caller passes the facts of `roundKeyOf(e)`). */
export function foldRoundFacts(facts: RoundFacts | undefined, e: RoundEvent): RoundFacts {
  const f: RoundFacts = facts ?? roundKeyOf(e);
  switch (e.type) {
    case 'tools.snapshot': {
      if (!later(f.effects, e)) return f;
      const protected_tools = [...new Set(e.tools.filter((t) => isProtectedEffect(t.effect)).map((t) => t.name))].sort();
      return { ...f, effects: { seq: e.seq, protected_tools } };
    }
    case 'round.completed': {
      if (!isReviewedStudentRound(e) || !later(f.record, e)) return f;
      const { record } = e;
      const rule = record.review?.rule;
      const verdict = record.verdict?.verdict;
      const tool = toolNameOf(record.candidate.parsed?.raw);
      const unusable = record.outcome === 'blocked' && record.reason === 'verdict_unusable';
      return { ...f, record: { seq: e.seq, ts: e.ts, ...(rule ? { rule } : {}), ...(verdict ? { verdict } : {}), unusable, ...(tool !== undefined ? { tool } : {}) } };
    }
    case 'learning.example': {
      if (e.kind === 'review' && e.verdict && later(f.review, e)) {
        const tool = toolNameOf(e.student_candidate);
        return { ...f, review: { seq: e.seq, ts: e.ts, ...(e.rule ? { rule: e.rule } : {}), verdict: e.verdict.verdict, ...(tool !== undefined ? { tool } : {}) } };
      }
      if (e.kind === 'shadow' && later(f.shadow, e)) return { ...f, shadow: { seq: e.seq, ts: e.ts, agreement: e.agreement } };
      return f;
    }
    case 'intervention.answered':
      return later(f.answer, e) ? { ...f, answer: { seq: e.seq, approved: e.answer.action === 'approve' } } : f;
  }
}

/**
 * A reviewed round is a student round whose review was required and that the teacher ruled on (or
 * that was blocked for want of a usable verdict); a round cancelled before any ruling is not.
 */
function isReviewedStudentRound(e: RunEventOf<'round.completed'>): boolean {
  const { record } = e;
  if (record.proposer !== 'student' || record.review?.required !== true) return false;
  return record.verdict !== undefined || (record.outcome === 'blocked' && record.reason === 'verdict_unusable');
}

function toolNameOf(candidate: unknown): string | undefined {
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const c = candidate as { decision_type?: unknown; tool_name?: unknown };
  return c.decision_type === 'tool_call' && typeof c.tool_name === 'string' ? c.tool_name : undefined;
}

/** One round's outcome as promotion counts it (the fields of promotion.ts's ReviewOutcome that the facts decide). */
export interface RoundOutcome {
  kind: 'review' | 'shadow';
  ts: string;
  rule?: ReviewRule;
  agreed: boolean;
  blocked: boolean;
  protected_error: boolean;
}

/**
 * The round's outcomes: its review (from the round record, else from its review example) and its
 * shadow comparison. None for a dry run. A protected action the teacher escalated and a person
 * then approved is not an error: the person judged it right.
 */
export function roundOutcomes(f: RoundFacts, run: RunFacts | undefined): RoundOutcome[] {
  if (run?.dry_run) return [];
  const out: RoundOutcome[] = [];
  const reviewed = f.record ?? f.review;
  if (reviewed) {
    const verdict = reviewed.verdict;
    const unusable = f.record?.unusable === true;
    const approved = verdict === 'escalate' && f.answer?.approved === true;
    out.push({
      kind: 'review',
      ts: reviewed.ts,
      ...(reviewed.rule ? { rule: reviewed.rule } : {}),
      agreed: verdict === 'accept',
      blocked: verdict === 'block' || unusable,
      protected_error: !approved && isProtectedError(reviewed.rule, verdict, reviewed.tool, f.effects?.protected_tools),
    });
  }
  // The student never acts in phase 1: a shadow measures agreement only, never a block or an error.
  if (f.shadow) out.push({ kind: 'shadow', ts: f.shadow.ts, agreed: f.shadow.agreement, blocked: false, protected_error: false });
  return out;
}

/**
 * The teacher ruled against a protected action the student proposed. `protected_effect` says so
 * directly; in phase 2 every round is recorded as `review_all`, so there the round's tool
 * snapshot decides (a valid tool call whose effect is protected), or phase 2 could never see one.
 */
function isProtectedError(rule: ReviewRule | undefined, verdict: Verdict | undefined, tool: string | undefined, protectedTools: readonly string[] | undefined): boolean {
  if (verdict === undefined || verdict === 'accept') return false;
  if (rule === 'protected_effect') return true;
  // `validation_failed` candidates are invalid: they could never have executed.
  if (rule === undefined || rule === 'validation_failed' || !protectedTools || tool === undefined) return false;
  // A name the snapshot does not know could not have passed validation; unknown effects are protected.
  return protectedTools.includes(tool);
}
