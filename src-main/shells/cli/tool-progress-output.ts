import type { RunEvent } from '@shared/contracts/events';
import { traceLine } from '@shared/contracts/trace-format';
import { progressText } from '../../mcp/progress-event';

export interface ToolProgressOutputOptions {
  /** Where progress goes: stderr, so stdout stays the run's lines (or one JSON object with --json). */
  write: (text: string) => void;
  json: boolean;
  /** stderr is a terminal: one line that updates in place. Default: asked of the process. */
  tty?: boolean;
}

const CLEAR_LINE = '\r\x1b[2K';

/**
 * What `steward run` shows of a tool call's progress (tool.progress events):
 * - with --json: each event as one JSON line on stderr;
 * - on a terminal: one line on stderr that updates in place, cleared when the call ends;
 * - otherwise (a pipe, a CI log): one line each time a call passes 25 %, 50 %, 75 % or 100 % of a
 *   known total, and nothing for a call that gives no total (its result line says when it is done).
 */
export function toolProgressOutput(options: ToolProgressOutputOptions): (event: RunEvent) => void {
  const tty = options.tty ?? process.stderr.isTTY === true;
  let shown = false;
  const quarters = new Map<string, number>();
  const clear = (): void => {
    if (!shown) return;
    options.write(CLEAR_LINE);
    shown = false;
  };
  return (event) => {
    if (event.type !== 'tool.progress') {
      // Whatever comes next (the call's result, a notice, the next round) starts on a clean line.
      if (tty && callEnded(event)) clear();
      return;
    }
    if (options.json) {
      // As a trace line (format 2): its round is the one the run's lines and trace file name.
      options.write(`${traceLine(event)}\n`);
      return;
    }
    if (tty) {
      options.write(`${CLEAR_LINE}${progressText(event)}`);
      shown = true;
      return;
    }
    if (event.total === undefined) return;
    const quarter = Math.min(4, Math.floor((event.progress / event.total) * 4));
    if (quarter <= (quarters.get(event.idempotency_key) ?? 0)) return;
    quarters.set(event.idempotency_key, quarter);
    options.write(`${progressText(event)}\n`);
  };
}

function callEnded(event: RunEvent): boolean {
  return event.type === 'tool.executed' || event.type === 'round.completed' || event.type === 'node.invocation' || event.type === 'run.notice' || event.type === 'run.finished';
}
