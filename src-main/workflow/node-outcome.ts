import type { ServerInputWait } from '@shared/contracts/server-input';
import type { RunEventPayload } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { Invocation, NodeFailure } from '@shared/workflow/invocation';
import type { RunCheckpoint } from '../engine/checkpoint';
import type { PatternPark } from './pattern/pattern-park';
import type { WorkflowCheckpoint } from './workflow-checkpoint';

/** What one node invocation ended as: the scheduler hears `done`/`failed`; `waiting` parks it for a person. */
export type NodeOutcome =
  | { status: 'done'; outputs: Record<string, unknown> }
  /** `candidate`: the malformed output it left (an answer its output schema refused): a supervisor may repair it. */
  | { status: 'failed'; failure: NodeFailure; candidate?: Record<string, unknown> }
  /** Parked for a person: an agent's (with its checkpoint to resume) or a tool call to confirm. */
  | { status: 'waiting'; checkpoint?: RunCheckpoint; intervention: Intervention; /** A pattern node's loop, parked at a person's judgment. */ pattern?: PatternPark; /** A workflow node's child run, parked with the question (workflow-node.ts). */ child?: WorkflowCheckpoint; /** A tool node's call paused by its server's question (issue 30): what continues it. */ server_input?: ServerInputWait }
  /** A person answered "Stop the run" at this node: the whole run ends cancelled, with `message` as its outcome. */
  | { status: 'stopped'; message: string };

/** What every executor gets: its invocation, a way to record events on it, and the run's abort signal. */
export interface NodeRun {
  invocation: Invocation;
  /** Emits into the workflow's journal with this invocation's id. */
  emit: (payload: RunEventPayload) => void;
  signal: AbortSignal;
  /** Which run of this invocation: 1, then 2… when a supervisor's `retry` runs it again (issue 11). */
  attempt?: number;
  /** A streaming node's results already sent downstream (before a host stop or a person's answer): it goes on after them. */
  sent?: ReadonlyArray<Record<string, unknown>>;
  /** A streaming node sends one result downstream as it arrives (an iterate fed by it takes it at once). */
  send?: (outputs: Record<string, unknown>) => void;
}

export const failed = (code: string, message: string): Extract<NodeOutcome, { status: 'failed' }> => ({ status: 'failed', failure: { code, message: message.slice(0, 4000) } });

/**
 * The failure code of a call a person declined ("Don't run it"): the node ends without its call, as
 * the person decided. It is not a fault: no supervisor is asked to retry or skip it, and the run's
 * outcome is the message alone ("you declined fs/write_file: …"), not a code.
 */
export const DECLINED = 'declined_by_person';

/** A call the person declined, with their note: what the node and the run's outcome say. */
export const declined = (what: string, note: string | undefined): Extract<NodeOutcome, { status: 'failed' }> => failed(DECLINED, `you declined ${what}${note ? `: ${note}` : ''}`);

/** The person stopped the run at this node (their note, if any, said with it). */
export const stoppedByPerson = (where: string, note: string | undefined): Extract<NodeOutcome, { status: 'stopped' }> => ({ status: 'stopped', message: `you stopped the run at ${where}${note ? `: ${note}` : ''}` });

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What a streaming node delivered as a whole: every result it sent, and their texts one per line. */
export function streamOutputs(sent: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  return { result: sent.map((s) => s.result ?? null), text: sent.map((s) => (typeof s.text === 'string' ? s.text : '')).join('\n') };
}
