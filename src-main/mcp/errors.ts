import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { withDetails } from '@shared/contracts/code-words';
import { postgresWords } from './third-party/postgres-words';

/**
 * The MCP host's failures, one class per thing that went wrong, each with a message a user can act
 * on. The run engine tells them apart by class: a start or config error ends the run before round 0,
 * a call error is a failed round.
 */

/** A server spec could not be turned into a process (unknown package, unknown `${variable}`). */
export class McpLaunchError extends Error {
  override readonly name = 'McpLaunchError';
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
  }
}

/** A server did not start: bad command, crashed before answering, or never answered. */
export class McpStartError extends Error {
  override readonly name = 'McpStartError';
  constructor(
    readonly server: string,
    readonly reason: string,
    readonly lastStderr?: string,
  ) {
    super(`MCP server "${server}" did not start: ${reason}${lastStderr ? ` (${lastStderr})` : ''}`);
  }
}

/** The servers' tools cannot be offered as configured (allowlisted tool missing, two servers share a name). */
export class McpToolConfigError extends Error {
  override readonly name = 'McpToolConfigError';
}

/** A request to a running server failed: it exited, timed out, or the call was aborted. */
export class McpCallError extends Error {
  override readonly name: string = 'McpCallError';
  constructor(
    readonly server: string,
    message: string,
    /** True when the server process is gone: nothing more will run on it this run. */
    readonly serverExited = false,
  ) {
    super(message);
  }
}

/**
 * A server's message passed MAX_MCP_MESSAGE_BYTES (answer-bound.ts): Steward stopped reading it
 * there, so the call's outcome is unknown (it may have run). Over Streamable HTTP the server stays
 * usable; a stdio server, or an HTTP+SSE one whose only stream was cut, is gone (`serverExited`).
 */
export class McpAnswerTooLargeError extends McpCallError {
  override readonly name = 'McpAnswerTooLargeError';
  constructor(
    server: string,
    message: string,
    readonly limit: number,
    serverExited = false,
  ) {
    super(server, message, serverExited);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A server's JSON-RPC error answer as a person reads it (a run's message, the model's next prompt):
 * the server's own words without the SDK's "MCP error -32603: " prefix (said in words for the
 * servers Steward knows, e.g. PostgreSQL's password problems), the code kept in the details.
 */
export function protocolRefusalText(error: Pick<McpError, 'code' | 'message'>, packageName?: string): string {
  const prefix = `MCP error ${error.code}: `;
  const said = (error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message).trim();
  const known = postgresWords(packageName, said);
  if (known !== undefined) return withDetails(known, `MCP error ${error.code}: ${said}`);
  return withDetails(said !== '' ? said : 'the server refused without saying why', `MCP error ${error.code}`);
}
