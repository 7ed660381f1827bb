import { hash } from 'node:crypto';

/**
 * The W3C trace context ids of a run, derived from its id (issue 30): the OTLP export
 * (trace-to-spans.ts) names its spans with these, and the host sends the same ids to an MCP server
 * as `traceparent` in a tool call's `_meta`, so the server's spans join the run's trace under the
 * call's client span. One place for both: the export and the header can never disagree.
 */

let lastTrace: { runId: string; id: string } | undefined;

/** The run's trace id: 16 bytes of lowercase hex. */
export function runTraceId(runId: string): string {
  // A run asks for its own id every tool call: the last one is kept (issue 26).
  if (lastTrace?.runId !== runId) lastTrace = { runId, id: hexId(`trace:${runId}`, 16) };
  return lastTrace.id;
}

/** The id of the span the export names `key` in the run's trace: 8 bytes of lowercase hex. */
export function runSpanId(runId: string, key: string): string {
  return hexId(`span:${runId}:${key}`, 8);
}

/** The key of a tool call's MCP client span (`tools/call TOOL`): known before the call, from its idempotency key. */
export function toolCallSpanKey(idempotencyKey: string): string {
  return `mcp:${idempotencyKey}`;
}

/** `traceparent` for a tool call of a run: its client span in the run's trace, sampled. */
export function toolCallTraceparent(runId: string, idempotencyKey: string): string {
  return `00-${runTraceId(runId)}-${runSpanId(runId, toolCallSpanKey(idempotencyKey))}-01`;
}

/** `bytes` bytes of a hash, as lowercase hex; never all zeros (an invalid W3C/OTLP id). */
function hexId(seed: string, bytes: number): string {
  const hex = hash('sha256', seed, 'hex').slice(0, bytes * 2);
  return /^0+$/.test(hex) ? `${'0'.repeat(bytes * 2 - 1)}1` : hex;
}
