import { RUN_STATUS_LABELS, type RunEvent } from '@shared/contracts/events';
import { resultJson } from '@shared/contracts/result-json';
import type { AgentRun } from '../../engine/run-agent';
import { formatModelRetry, formatRound } from './format-round';
import { formatScsEvent, formatScsStatus } from './format-scs';
import type { CliIo } from './cli-io';
import { toolProgressOutput } from './tool-progress-output';

/**
 * What `steward run` prints while an agent run goes (each round, retries, SCS steps) and once it
 * ended; `steward replay` prints its run the same way. Nothing while `json` (one object at the end).
 */
export function agentRunPrinter(io: Pick<CliIo, 'stdout'> & Partial<Pick<CliIo, 'stderr'>>, json: boolean, trace?: (event: RunEvent) => void) {
  // A run that ends with its last round's failure (a model that cannot be used) says it once.
  let lastRoundMessage: string | undefined;
  // Whether the run is a dry run (its run.started says so): its calls are said as not run.
  let dryRun = false;
  // A tool call's progress, on stderr (tool-progress-output.ts says how much of it, where).
  const progress = io.stderr ? toolProgressOutput({ write: io.stderr, json }) : undefined;
  const noteStart = (event: RunEvent) => {
    if (event.type === 'run.started') dryRun = event.dry_run;
  };
  const onEvent = (event: RunEvent) => {
    trace?.(event);
    progress?.(event);
    noteStart(event);
    if (json) return;
    // The person's words the next round's proposer got (a rejection and its note, a reply), as the app's round shows them.
    if (event.type === 'round.started' && event.told !== undefined) io.stdout(`  told by you: ${event.told}\n`);
    if (event.type === 'round.completed') {
      io.stdout(`${formatRound(event.record, dryRun)}\n`);
      lastRoundMessage = event.record.message;
    }
    if (event.type === 'model.retry') io.stdout(`${formatModelRetry(event)}\n`);
    const scsLine = formatScsEvent(event);
    if (scsLine) io.stdout(`  ${scsLine}\n`);
  };
  const summary = (result: AgentRun) => {
    const tools = result.executions.length;
    const calls = result.dry_run ? `${tools} tool call(s) not run (dry run)` : `${tools} tool call(s)`;
    io.stdout(`${RUN_STATUS_LABELS[result.status].toLowerCase()} · ${result.rounds.length} round(s) · ${calls}${result.message && result.message !== lastRoundMessage ? ` · ${result.message}` : ''}\n`);
    if (result.scs) io.stdout(`${formatScsStatus(result.scs)}\n`);
    if (result.output) io.stdout(`${result.output}\n`);
  };
  /** A run resumed (steward answer): whether it is dry comes from its start, already in the history. */
  const remember = (events: readonly RunEvent[]) => events.forEach(noteStart);
  return { onEvent, summary, remember, isDryRun: () => dryRun };
}

/**
 * The `--json` result: no setup flag and no checkpoint (it is host-side state, with raw arguments),
 * rounds numbered from 1 as the lines above it and trace files number them.
 */
export function jsonResult<T extends { setup_error?: string; checkpoint?: unknown } & Parameters<typeof resultJson>[0]>(result: T): Omit<T, 'setup_error' | 'checkpoint'> {
  const { setup_error: _setup, checkpoint: _checkpoint, ...rest } = resultJson(result);
  return rest;
}
