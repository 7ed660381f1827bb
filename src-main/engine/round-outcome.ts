import { describeIssues } from '@shared/boundary/validation';
import type { FinalRunStatus } from '@shared/contracts/events';
import type { InterventionKind } from '@shared/contracts/intervention';
import type { RoundRecord } from '@shared/contracts/round';
import type { SupervisionSpec } from '@shared/contracts/spec';
import { describeTakenRoute, routeChooser, type AgentRoute, type TakenRoute } from '@shared/contracts/routes';

/** What a round's outcome means for the run: go on (maybe with feedback), hand over, or stop. */
export type RoundVerdict =
  | { next: 'continue'; failed: boolean; feedback?: string; delivered?: string }
  | { next: 'takeover' }
  /** A person must answer before the run goes on (escalation, a tool confirmation, the student's question, a block to ask about). */
  | { next: 'wait'; kind: InterventionKind }
  | { next: 'stop'; status: FinalRunStatus; output?: string; message?: string; route?: TakenRoute };

export function interpretRound(
  record: RoundRecord,
  supervision: Pick<SupervisionSpec, 'on_block' | 'safe_message' | 'on_escalate'>,
  /** SCS: why the monitor refused the finish (the executor is sent back with it). */
  finishRejection?: string,
  /** The agent's declared routes (absent: none, and a reroute is a refusal to go on). */
  routes?: readonly AgentRoute[],
): RoundVerdict {
  switch (record.outcome) {
    case 'executed':
      return { next: 'continue', failed: record.execution?.is_error === true };
    case 'delivered': {
      const decision = record.selected?.decision;
      switch (decision?.decision_type) {
        case 'complete':
          return { next: 'stop', status: 'completed', output: decision.output };
        // The student asked the person: the run waits for the answer (it comes back as the next round's feedback).
        case 'ask_user':
          return { next: 'wait', kind: 'ask_user' };
        case 'request_confirmation':
          return { next: 'wait', kind: 'request_confirmation' };
        case 'reroute': {
          // Validation let only an offered route through: this one is the agent's to take.
          if (routes?.some((r) => r.name === decision.target) === true && record.selected) {
            const route: TakenRoute = { name: decision.target, chosen_by: routeChooser(record.proposer, record.selected.source), reason: decision.reason };
            return { next: 'stop', status: 'rerouted', route, message: describeTakenRoute(route) };
          }
          return { next: 'stop', status: 'rerouted', message: `rerouted to ${decision.target}: ${decision.reason} (this agent declares no routes, so nothing takes the task on)` };
        }
        case 'present_result':
          return { next: 'continue', failed: false, delivered: decision.content };
        default:
          return { next: 'continue', failed: false };
      }
    }
    case 'blocked': {
      if (record.reason === 'confirmation_pending') return { next: 'wait', kind: 'confirmation' };
      if (record.reason === 'finish_rejected') {
        return { next: 'continue', failed: false, feedback: `You may not finish yet: ${finishRejection ?? 'the monitor has not seen evidence for the acceptance criteria'}. Continue the phase.` };
      }
      const message = record.message ?? 'the decision was blocked';
      switch (supervision.on_block) {
        case 'fail':
          return { next: 'stop', status: 'blocked', message };
        case 'safe_message':
          return { next: 'stop', status: 'blocked', message, output: supervision.safe_message };
        case 'ask_user':
          return { next: 'wait', kind: 'blocked' };
      }
      break;
    }
    case 'escalated':
      // A server asked for input in the middle of the call (issue 30): its question waits for the person.
      if (record.reason === 'input_required') return { next: 'wait', kind: 'server_input' };
      // A teacher who escalates its own takeover decision has nobody to hand to: the run stops.
      if (supervision.on_escalate === 'teacher_takeover' && record.proposer === 'student') return { next: 'takeover' };
      if (supervision.on_escalate === 'human') return { next: 'wait', kind: 'escalation' };
      return { next: 'stop', status: 'escalated', message: record.message ?? 'the teacher escalated this round' };
    case 'failed':
      if (record.reason === 'cancelled') return { next: 'stop', status: 'cancelled', message: 'the run was cancelled' };
      return { next: 'continue', failed: true, feedback: describeFailure(record) };
  }
  return { next: 'stop', status: 'failed', message: 'unknown round outcome' };
}

function describeFailure(record: RoundRecord): string {
  if (record.validation && !record.validation.ok) {
    return `Your previous decision was rejected: ${describeIssues(record.validation.issues)}. Return exactly one valid decision.`;
  }
  return `The previous round failed: ${record.message ?? record.reason ?? 'unknown error'}.`;
}
