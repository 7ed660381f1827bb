import type { RunEventOf } from '@shared/contracts/events';
import type { ToolProgress } from './tool-host';

export type ToolProgressPayload = Omit<RunEventOf<'tool.progress'>, 'id' | 'run_id' | 'seq' | 'ts'>;

/**
 * A call's progress report as the run's `tool.progress` event: the server's message masked with
 * the run's secrets (a server may echo an argument back), and numbers the contract accepts.
 */
export function toolProgressEvent(round: number, idempotency_key: string, report: ToolProgress, mask: (text: string) => string): ToolProgressPayload {
  const progress = Number.isFinite(report.progress) ? Math.max(0, report.progress) : 0;
  // A total of zero or less says nothing about how far the call is: the bar is indeterminate then.
  const total = report.total !== undefined && Number.isFinite(report.total) && report.total > 0 ? report.total : undefined;
  const message = report.message === undefined || report.message === '' ? undefined : mask(report.message).slice(0, 200);
  return {
    type: 'tool.progress',
    round,
    server: report.server,
    tool: report.tool,
    idempotency_key,
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  };
}

/** `[mcp db] query: 3 of 8 (37%) — scanning table 3`: a progress report in words (CLI lines, notices). */
export function progressText({ server, tool, progress, total, message }: ToolProgress): string {
  const share = total !== undefined && total > 0 ? ` of ${total} (${Math.min(100, Math.floor((progress / total) * 100))}%)` : '';
  return `[mcp ${server}] ${tool}: ${progress}${share}${message ? ` — ${message}` : ''}`;
}
