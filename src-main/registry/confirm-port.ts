import type { AuditAction } from '@shared/contracts/audit';

/** What a person is asked to approve: said the same way in a dialog and on a terminal. */
export interface ConfirmRequest {
  action: AuditAction;
  /** One line: "Register the command server "x"". */
  title: string;
  /** What exactly: command and arguments, folder, hosts, effect before → after. Never a secret. */
  detail: string;
}

/**
 * How a shell asks the person at the machine, out of the page's reach (a page holding the access
 * token must not be able to approve by itself):
 * - `dialog` (Electron): a native dialog from the main process; resolves true when they allow.
 * - `terminal_code` (browser): the host prints a one-time code with the request where it runs; the
 *   person types it into the page (`actions.confirm`).
 */
export type ConfirmAction = { kind: 'dialog'; ask(request: ConfirmRequest): Promise<boolean> } | { kind: 'terminal_code'; print(text: string): void };
