import type { CredentialStore } from '../../credentials/credential-store';
import type { ConfirmTool } from '../../engine/boundary-actors';
import type { ReadLine } from './ask-at-terminal';
import type { HostedFolder } from './hosted-folder';

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

export const EXIT = { ok: 0, runNotCompleted: 1, badInput: 2, waiting: 3 } as const;

/**
 * Tools that need the user's confirmation: --yes approves, --no-confirm declines, a terminal asks;
 * with nobody to ask here (a pipe, CI, --json) the run waits for a person in the data folder, as an
 * escalation does (issue 22): exit 3 with the steward answer line, and the app shows it. A replay
 * (which never waits) passes `unavailable`: the call is blocked.
 */
export function confirmPolicy(yes: boolean, no: boolean, io: CliIo, json: boolean, nobodyHere: 'pending' | 'unavailable' = 'pending'): ConfirmTool {
  if (yes) return async () => 'granted';
  if (no) return async () => 'denied';
  const ask = io.ask;
  if (!ask || json) return async () => nobodyHere;
  return async ({ server, tool, arguments: args }) =>
    (await ask(`Allow ${server}/${tool} ${JSON.stringify(args).slice(0, 200)}?`)) ? 'granted' : 'denied';
}

