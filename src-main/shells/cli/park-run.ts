import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { RunCheckpoint } from '../../engine/checkpoint';
import type { AgentRun } from '../../engine/run-agent';
import { acquireDataFolderLock, DataFolderInUseError, type DataFolderLock } from '../../util/data-folder-lock';
import { answerCommands } from './answer-words';
import { askAtTerminal, type ReadLine } from './ask-at-terminal';
import { provenanceLines } from './format-provenance';

/** The folder for this process, or why not: the app's host (or another CLI) holds it. */
export function lockDataFolder(dataDir: string, whileTheAppRuns = 'answer in the app (Waiting for you), or quit it first'): { ok: true; lock: DataFolderLock } | { ok: false; message: string } {
  try {
    return { ok: true, lock: acquireDataFolderLock(dataDir, { shell: 'cli' }) };
  } catch (err) {
    if (!(err instanceof DataFolderInUseError)) throw err;
    const app = err.holder?.shell === 'electron' || err.holder?.shell === 'browser';
    return { ok: false, message: app ? `the Steward app holds the data folder ${dataDir}: ${whileTheAppRuns}` : err.message };
  }
}

/** What to print when a run is left waiting: its id and the exact commands that answer it. */
export function waitingHint(runId: string, intervention: Intervention, dataDir: string | undefined, named = false): string {
  // Where the call's values came from (issue 31), before the answers: an approval is made knowing it.
  return [`the run ${runId} waits for you: ${intervention.reason}`, ...provenanceLines(intervention.provenance), 'answer it with one of:', ...answerCommands(runId, intervention, dataDir, named).map((c) => `  ${c}`), '(or in the app: Waiting for you)'].join('\n');
}

export interface PersonAtTerminal {
  stderr: (text: string) => void;
  /** Present only when a person can type at the terminal. */
  line?: ReadLine;
}

/**
 * A run that waits for a person, with a person at the terminal: asked there and resumed in this
 * process, as often as it waits. Returns the last result (still waiting when the person left), with
 * the rounds and tool calls of every part.
 */
export async function answerAtTerminal(first: AgentRun, io: PersonAtTerminal, resume: (checkpoint: RunCheckpoint, answer: HumanAnswer) => Promise<AgentRun>): Promise<AgentRun> {
  let result = first;
  while (result.status === 'waiting' && result.checkpoint && result.intervention && io.line) {
    // The masked copy is shown; the checkpoint keeps the raw decision that runs on approve.
    const answer = await askAtTerminal(result.intervention, { stderr: io.stderr, line: io.line });
    if (!answer) return result;
    const next = await resume(result.checkpoint, answer);
    result = { ...next, rounds: [...result.rounds, ...next.rounds], executions: [...result.executions, ...next.executions] };
  }
  return result;
}
