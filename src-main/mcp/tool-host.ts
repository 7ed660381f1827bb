import type { InputContinuation } from './input-pause';
import type { ToolCallDecision } from '@shared/contracts/decision';
import type { ToolExecution } from '@shared/contracts/round';
import type { OfferedTool, ToolSnapshot } from '@shared/contracts/tool-snapshot';

export interface ExecuteRequest {
  decision: ToolCallDecision;
  tool: OfferedTool;
  idempotency_key: string;
  signal?: AbortSignal;
  /** This call's progress as its server reports it, thinned out (progress-throttle.ts); the last report comes before execute returns. */
  onProgress?: (progress: ToolProgress) => void;
  /** W3C trace context of this call's client span in the run's OTLP trace (otlp/trace-ids.ts); sent in the request's `_meta`. */
  traceparent?: string;
  /** A 2026-07-28 server's question for a person pauses the call (InputRequiredPause) where the run waits durably (issue 30). */
  pauseForInput?: boolean;
  /** The same call continuing after its pause: the answers and the server's `requestState`. */
  continueWith?: InputContinuation;
}

/** One progress report of a call in flight (MCP `notifications/progress`). */
export interface ToolProgress {
  server: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

/** The MCP servers of one run, as the boundary sees them. */
export interface ToolHost {
  /** Lists every server's tools now and freezes them (schemas hashed) for this round. */
  snapshot(round: number): Promise<ToolSnapshot>;
  /** Executes one authorized call. Throws when the call itself fails (server gone, timeout). */
  execute(request: ExecuteRequest): Promise<ToolExecution>;
  close(): Promise<void>;
}
