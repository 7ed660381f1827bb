import type { ServerInputAsk } from '@shared/contracts/server-input';

/** The same call continuing after a pause: the answers under the server's keys, and its `requestState` echoed untouched. */
export interface InputContinuation {
  inputResponses: Record<string, unknown>;
  requestState?: string;
}

/**
 * A 2026-07-28 server answered a tool call with `input_required` and one of its embedded requests
 * needs a person (issue 30): where the run can wait durably, the call pauses here instead of being
 * answered in the process. The call's idempotency key stays claimed (the retry is the same call
 * continuing); the run keeps `asks`, the answers the host gave at once (`responses`) and the
 * server's `requestState` in its checkpoint, and continues the call when the person answers.
 * `inputRequired` marks it for the boundary machine, which ends the round waiting for the person.
 */
export class InputRequiredPause extends Error {
  override readonly name = 'InputRequiredPause';
  readonly inputRequired = true;
  constructor(
    readonly server: string,
    readonly asks: ServerInputAsk[],
    readonly responses: Record<string, unknown>,
    readonly requestState: string | undefined,
  ) {
    super(`MCP server "${server}" asked for input in the middle of the call; it waits for your answer`);
  }
}

export function isInputRequiredPause(error: unknown): error is InputRequiredPause {
  return error instanceof InputRequiredPause;
}
