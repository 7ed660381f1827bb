import type { RunEvent, RunEventOf } from '@shared/contracts/events';

/** A tool call still in flight and its latest progress report. */
export type ToolInFlight = RunEventOf<'tool.progress'>;

/**
 * The tool calls in flight, each with its latest report: a call is over once its own `tool.executed`
 * (same idempotency key) is in, or once whatever it ran in ended (its round, its agent, its node, the run)
 * — a call that failed outright has no result of its own.
 */
export function toolsInFlight(events: readonly RunEvent[]): ToolInFlight[] {
  const open = new Map<string, ToolInFlight>();
  for (const event of events) {
    switch (event.type) {
      case 'tool.progress':
        open.set(event.idempotency_key, event);
        break;
      case 'tool.executed':
        open.delete(event.execution.idempotency_key);
        break;
      case 'round.completed':
      case 'agent.finished':
        closeScope(open, event.invocation_id);
        break;
      case 'node.invocation':
        if (event.status !== 'running') closeScope(open, event.invocation_id);
        break;
      case 'run.finished':
        open.clear();
        break;
      default:
        break;
    }
  }
  return [...open.values()];
}

function closeScope(open: Map<string, ToolInFlight>, invocation: string | undefined): void {
  for (const [key, progress] of open) if (progress.invocation_id === invocation) open.delete(key);
}

/** How far, in whole percent, when the server said out of how much; else undefined (the bar is indeterminate). */
export function percentDone(progress: ToolInFlight): number | undefined {
  if (progress.total === undefined) return undefined;
  return Math.min(100, Math.max(0, Math.floor((progress.progress / progress.total) * 100)));
}
