import type { RunEventPayload } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { Invocation, NodeFailure } from '@shared/workflow/invocation';
import type { RunCheckpoint } from '../engine/checkpoint';
import type { PatternPark } from './pattern/pattern-park';

/** What one node invocation ended as: the scheduler hears `done`/`failed`; `waiting` parks it for a person. */
export type NodeOutcome =
  | { status: 'done'; outputs: Record<string, unknown> }
  /** `candidate`: the malformed output it left (an answer its output schema refused): a supervisor may repair it. */
  | { status: 'failed'; failure: NodeFailure; candidate?: Record<string, unknown> }
  /** Parked for a person: an agent's (with its checkpoint to resume) or a tool call to confirm. */
  | { status: 'waiting'; checkpoint?: RunCheckpoint; intervention: Intervention; /** A pattern node's loop, parked at a person's judgment. */ pattern?: PatternPark };

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

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What a streaming node delivered as a whole: every result it sent, and their texts one per line. */
export function streamOutputs(sent: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  return { result: sent.map((s) => s.result ?? null), text: sent.map((s) => (typeof s.text === 'string' ? s.text : '')).join('\n') };
}
