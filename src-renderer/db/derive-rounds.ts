import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { Decision } from '@shared/contracts/decision';
import type { ModelReply } from '@shared/contracts/model';
import type { Proposer, RoundOutcome, RoundRecord, SelectedDecision, ToolExecution, VerdictAttempt } from '@shared/contracts/round';
import type { LearningKind } from '@shared/contracts/learning-export';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { EffectClass } from '@shared/contracts/tool-effect';
import type { ParsedCandidate } from '@shared/boundary/parse-candidate';
import type { ValidationResult } from '@shared/contracts/validation-result';
import type { Authorization } from '@shared/boundary/authorization';
import type { ReviewDecision } from '@shared/policy/review-policy';
import { roundNumber } from '@shared/contracts/round-number';

/** Why the proposer's candidate did not go through as proposed (`finish_refused`: SCS's finish gate). */
export type Rejection = 'invalid' | 'replaced' | 'blocked' | 'escalated' | 'finish_refused';

/** Where an in-flight round is, so the view can say what it is waiting for. */
export type RoundStage = 'proposing' | 'validating' | 'reviewing' | 'authorizing' | 'committing' | 'dispatching' | 'done';

export type SnapshotTool = RunEventOf<'tools.snapshot'>['tools'][number];

/** An earlier candidate of the round that failed validation; the student was asked to repair it. */
export interface RepairAttempt {
  reply?: ModelReply;
  parsed?: ParsedCandidate;
  validation?: ValidationResult;
}

export interface RoundView {
  /** The round's index in the trace (from 0): the key events carry. */
  round: number;
  /** The round's number as every screen shows it (from 1, src-shared/contracts/round-number.ts). */
  number: number;
  proposer: Proposer;
  /** What a person told this round's proposer about the round before (their rejection and note, their reply): it was in its prompt. */
  told?: string;
  /** round.completed has arrived: the record is authoritative. */
  complete: boolean;
  stage: RoundStage;
  snapshot?: { hash: string; tools: SnapshotTool[] };
  candidate?: { reply?: ModelReply; parsed?: ParsedCandidate; error?: string };
  /** Earlier, invalid candidates of this round (repairs), oldest first; none of them could be selected. */
  repairs: RepairAttempt[];
  /** Effect class of the tool the candidate names, from this round's snapshot. */
  candidateEffect?: EffectClass;
  validation?: ValidationResult;
  review?: ReviewDecision;
  verdicts: VerdictAttempt[];
  selected?: SelectedDecision;
  authorization?: Authorization;
  historyIndex?: number;
  execution?: ToolExecution;
  delivered?: Decision;
  outcome?: RoundOutcome;
  reason?: string;
  message?: string;
  /**
   * The proposer's candidate was replaced, blocked, escalated or failed validation — and no person
   * is still deciding on it or approved it.
   */
  rejected: boolean;
  rejection?: Rejection;
  /** A person was asked about this round and has not answered yet: the candidate is pending. */
  pending: boolean;
  /** The last learning example of the round (phase 1 records a demonstration and a shadow). */
  learning?: { kind: LearningKind; agreement: boolean; reason_codes: string[] };
  learningKinds: LearningKind[];
  /** A person was asked to decide this round, and what they answered. */
  intervention?: { request: Intervention; answer?: HumanAnswer };
}

/**
 * Per-round view models from a run's events. A round.completed record wins when present;
 * until then the incremental events build the round step by step, so rounds appear live.
 * `invocation`: the rounds of that workflow node's nested agent; without it, the run's own.
 */
export function deriveRounds(events: readonly RunEvent[], invocation?: string): RoundView[] {
  const rounds = new Map<number, RoundView>();
  const snapshots = new Map<number, { hash: string; tools: SnapshotTool[] }>();
  // A workflow's nested agents each count rounds from 0: each one's rounds are its own.
  const ordered = events.filter((e) => e.invocation_id === invocation).sort((a, b) => a.seq - b.seq);

  const at = (round: number, proposer?: Proposer): RoundView => {
    let view = rounds.get(round);
    if (!view) {
      view = { round, number: roundNumber(round), proposer: proposer ?? 'student', complete: false, stage: 'proposing', verdicts: [], rejected: false, pending: false, repairs: [], learningKinds: [] };
      rounds.set(round, view);
    }
    return view;
  };

  for (const e of ordered) {
    switch (e.type) {
      case 'tools.snapshot':
        snapshots.set(e.round, { hash: e.hash, tools: e.tools });
        break;
      case 'round.started': {
        const view = at(e.round, e.proposer);
        view.proposer = e.proposer;
        if (e.told !== undefined) view.told = e.told;
        break;
      }
      case 'candidate.proposed': {
        const view = at(e.round);
        // A later attempt means the one before failed validation: it becomes a repair.
        if ((e.attempt ?? 0) > 0 && view.candidate && !view.complete && view.repairs.length < (e.attempt ?? 0)) {
          view.repairs = [...view.repairs, { reply: view.candidate.reply, parsed: view.candidate.parsed, validation: view.validation }];
          view.validation = undefined;
        }
        Object.assign(view, { candidate: { reply: e.reply, parsed: e.parsed }, stage: 'validating' });
        break;
      }
      case 'candidate.validated':
        at(e.round).validation = e.validation;
        break;
      case 'intervention.requested':
        at(e.round).intervention = { request: e.intervention, answer: at(e.round).intervention?.answer };
        break;
      case 'intervention.answered': {
        const view = at(e.round);
        if (view.intervention && view.intervention.request.id === e.intervention_id) view.intervention = { ...view.intervention, answer: e.answer };
        break;
      }
      case 'handover':
        break;
      case 'review.decided':
        Object.assign(at(e.round), { review: e.review, stage: e.review.required ? 'reviewing' : 'authorizing' });
        break;
      case 'verdict.received':
        addAttempt(at(e.round), e.attempt);
        break;
      case 'decision.selected':
        Object.assign(at(e.round), { selected: { source: e.source, decision: e.decision }, stage: 'authorizing' });
        break;
      case 'decision.authorized':
        Object.assign(at(e.round), { authorization: e.authorization, stage: e.authorization.ok ? 'committing' : 'authorizing' });
        break;
      case 'decision.committed':
        Object.assign(at(e.round), { historyIndex: e.history_index, stage: 'dispatching' });
        break;
      case 'tool.executed':
        at(e.round).execution = e.execution;
        break;
      case 'response.delivered':
        at(e.round).delivered = e.decision;
        break;
      case 'round.completed':
        applyRecord(at(e.round, e.record.proposer), e.record);
        break;
      case 'learning.example': {
        const view = at(e.round);
        view.learning = { kind: e.kind, agreement: e.agreement, reason_codes: e.reason_codes };
        if (!view.learningKinds.includes(e.kind)) view.learningKinds = [...view.learningKinds, e.kind];
        break;
      }
      case 'run.started':
      case 'run.finished':
        break;
    }
  }

  return [...rounds.values()]
    .sort((a, b) => a.round - b.round)
    .map((view) => {
      const snapshot = snapshots.get(view.round);
      const withSnapshot: RoundView = { ...view, snapshot, candidateEffect: effectOf(view.candidate?.parsed, snapshot) };
      const rejection = rejectionOf(withSnapshot);
      // Until the person answers, nobody has rejected the candidate; once they approve it, it ran.
      const pending = view.intervention !== undefined && view.intervention.answer === undefined;
      const approved = view.intervention?.answer?.action === 'approve';
      return { ...withSnapshot, rejected: rejection !== undefined && !pending && !approved, rejection, pending };
    });
}

function addAttempt(view: RoundView, attempt: VerdictAttempt): void {
  // A replayed event must not list the same attempt twice.
  if (view.verdicts.some((a) => a.attempt === attempt.attempt)) return;
  view.verdicts = [...view.verdicts, attempt].sort((a, b) => a.attempt - b.attempt);
}

function applyRecord(view: RoundView, record: RoundRecord): void {
  Object.assign(view, {
    proposer: record.proposer,
    complete: true,
    stage: 'done',
    candidate: record.candidate.reply || record.candidate.parsed || record.candidate.error ? record.candidate : undefined,
    repairs: record.repairs,
    validation: record.validation,
    review: record.review,
    verdicts: record.verdicts,
    selected: record.selected,
    authorization: record.authorization,
    historyIndex: record.history_index,
    execution: record.execution,
    outcome: record.outcome,
    reason: record.reason,
    message: record.message,
  } satisfies Partial<RoundView>);
  if (record.outcome === 'delivered' && record.selected) view.delivered = record.selected.decision;
}

function rejectionOf(view: RoundView): Rejection | undefined {
  if (!view.candidate?.parsed) return undefined;
  if (view.validation && !view.validation.ok) return 'invalid';
  // A person approved the escalated candidate: it is what ran, not a rejection.
  if (view.selected?.source === 'human') return undefined;
  if (view.selected && view.selected.source !== view.proposer) return 'replaced';
  const final = [...view.verdicts].reverse().find((a) => a.usable && a.verdict);
  if (final?.verdict?.verdict === 'block') return 'blocked';
  if (final?.verdict?.verdict === 'escalate') return 'escalated';
  if (view.authorization && !view.authorization.ok) return view.authorization.reason === 'finish_rejected' ? 'finish_refused' : 'blocked';
  if (view.outcome === 'blocked') return 'blocked';
  if (view.outcome === 'escalated') return 'escalated';
  return undefined;
}

function effectOf(parsed: ParsedCandidate | undefined, snapshot: { tools: SnapshotTool[] } | undefined): EffectClass | undefined {
  const raw = parsed?.raw;
  if (!snapshot || typeof raw !== 'object' || raw === null) return undefined;
  const toolName = (raw as { tool_name?: unknown }).tool_name;
  if (typeof toolName !== 'string') return undefined;
  return snapshot.tools.find((t) => t.name === toolName)?.effect;
}
