import type { ModelUsage } from '@shared/contracts/model';

/**
 * What one model call cost, as the server reported it. A count that is not a non-negative
 * integer is dropped rather than failing the call: the answer is what matters, usage is a note.
 */
export function usageOf(input: unknown, output: unknown): ModelUsage | undefined {
  const usage: ModelUsage = {};
  if (isCount(input)) usage.input_tokens = input;
  if (isCount(output)) usage.output_tokens = output;
  return usage.input_tokens === undefined && usage.output_tokens === undefined ? undefined : usage;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * A monotonic stopwatch: wall-clock jumps (NTP, a sleep) never make a call look negative or huge.
 * Rounded down, so an answer stamped after the call never seems to have started before it (OTLP spans).
 */
export function startStopwatch(): () => number {
  const start = performance.now();
  return () => Math.max(0, Math.floor(performance.now() - start));
}
