import type { RunStatus } from '@shared/contracts/events';
import type { CredentialStore } from '../../credentials/credential-store';
import type { ConfirmTool } from '../../engine/boundary-actors';
import type { ReadLine } from './ask-at-terminal';
import type { HostedFolder } from './hosted-folder';
import { provenanceLines } from './format-provenance';

/** What every command gets from the entry point (its own module, so commands never import their router). */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl+C: the current round ends cleanly and the run records `cancelled`. */
  signal?: AbortSignal;
  /** All of standard input (credential values); the entry point prompts when it is a terminal. */
  stdin?: () => Promise<string>;
  /** Asks the person at the terminal a yes/no question; absent when nobody can answer. */
  ask?: (question: string) => Promise<boolean>;
  /** Reads a line the person types at the terminal (an answer to a waiting run); absent when nobody can answer. */
  line?: ReadLine;
  /** The OS keychain (or a stand-in the caller chooses). */
  credentials?: () => CredentialStore;
  /** The folder the command was typed in (a forwarded command runs elsewhere): relative paths are read against it. */
  cwd?: string;
  /** Set when a running host runs this command for the CLI (forwarded over its channel): its journal, stores and runs. */
  hosted?: HostedFolder;
}

/**
 * `itemsFailed`: the run completed without some of its work (an iterate item failed, issue 28):
 * told apart from both a success (0) and a run that did not complete (1), so a script can tell.
 */
export const EXIT = { ok: 0, runNotCompleted: 1, badInput: 2, waiting: 3, itemsFailed: 4 } as const;

/** The exit code a finished run's status gives (waiting and bad input are the commands' own). */
export function runExitCode(status: RunStatus): number {
  if (status === 'completed') return EXIT.ok;
  return status === 'completed_with_failures' ? EXIT.itemsFailed : EXIT.runNotCompleted;
}

/**
 * Tools that need the user's confirmation: --yes approves, --no-confirm declines; otherwise the run
 * waits for a person, as an escalation does (issue 22): at a terminal the question is asked there
 * with the app's answers (approve, reject with a note for the agent, stop; a workflow step: approve,
 * don't run it, stop), else in the data folder: exit 3 with the steward answer lines, and the app
 * shows it. A replay (which never waits) passes `unavailable`: a terminal asks yes or no, else the
 * call is blocked.
 */
export function confirmPolicy(yes: boolean, no: boolean, io: CliIo, json: boolean, nobodyHere: 'pending' | 'unavailable' = 'pending'): ConfirmTool {
  if (yes) return async () => 'granted';
  if (no) return async () => 'denied';
  if (nobodyHere === 'pending') return async () => 'pending';
  const ask = io.ask;
  if (!ask || json) return async () => nobodyHere;
  return async ({ server, tool, arguments: args, provenance }) => {
    // Where the call's values came from, in words, before the question (issue 31).
    const lines = provenanceLines(provenance);
    if (lines.length > 0) io.stderr(`${lines.join('\n')}\n`);
    return (await ask(`Allow ${server}/${tool} ${JSON.stringify(args).slice(0, 200)}?`)) ? 'granted' : 'denied';
  };
}

