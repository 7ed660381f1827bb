import type { PushFrame, ResponseFrame } from '@shared/contracts/host-api';
import type { CredentialStore } from '../credentials/credential-store';
import type { SealKeys } from '../credentials/seal-keys';
import type { ConfirmAction } from '../registry/confirm-port';

export type { ConfirmAction, ConfirmRequest } from '../registry/confirm-port';

/** One connected page (a WebSocket, or the Electron window). Transport-specific push. */
export interface HostSession {
  readonly id: string;
  /** Events, runs deleted from the journal, or what MCP servers ask the person. */
  push(frame: PushFrame): void;
}

/**
 * The host as every shell sees it: built once by the composition root; shells only adapt transport.
 * `handle` validates the frame and its params on arrival and never throws: every failure becomes
 * an error response.
 */
export interface Host {
  handle(frame: unknown, session: HostSession): Promise<ResponseFrame>;
  /** The session's transport went away: stop pushing to it (it resumes from its own cursor). */
  detach(session: HostSession): void;
  close(): Promise<void>;
}

export interface HostOptions {
  /** User-data folder: outbox journal, idempotency ledger, demo sandbox. */
  dataDir: string;
  shell: 'browser' | 'electron';
  /** Ollama base URL; default http://127.0.0.1:11434 (or OLLAMA_HOST). */
  ollamaHost?: string;
  log?: (line: string) => void;
  /** The credential store; the OS keychain when absent. */
  credentials?: CredentialStore;
  /** The keys that seal a waiting run's sensitive values (issue 27); the OS keychain's when absent. */
  sealKeys?: SealKeys;
  /**
   * How a person approves an explicit action that widens access (a command server, a folder, a
   * host, a downgraded effect, a credential). Electron: a native dialog. Absent: a one-time code
   * printed through `log` (the browser shell's terminal) that the person types into the page.
   */
  confirm?: ConfirmAction;
  /** Opens a link in the system browser (an MCP sign-in page); open-browser.ts when absent. */
  openUrl?: (url: string) => void;
  /** How long an MCP server's ask waits for the person before it is cancelled; 10 minutes when absent (tests shorten it). */
  askTimeoutMs?: number;
  /** Whether `steward` commands on this data folder are handed to this host (issue 22); default true. */
  cliChannel?: boolean;
  /**
   * A fresh one-time link to this host's page, for `steward open` (the browser shell; undefined
   * until its server listens). Absent: this host has no page a browser can open (Electron).
   */
  launchLink?: () => string | undefined;
}
