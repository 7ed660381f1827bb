import type { ModelUsage } from '@shared/contracts/model';
import { ProviderError, type ModelRequest } from './provider';

/**
 * A reply its server stopped at the request's output bound (OpenAI's finish_reason and Ollama's
 * done_reason "length") is an unfinished answer: half a JSON object, or a verdict followed by
 * padding that never ended. It is refused as a typed failure, in words, with what the call was
 * billed, so no caller parses it and the supervisor's cost still counts it.
 */
export function cutAtBound(label: string, request: Pick<ModelRequest, 'max_output_tokens'>, stopReason: unknown, usage: ModelUsage | undefined): ProviderError | undefined {
  const bound = request.max_output_tokens;
  // Only the bound we asked for: a server's own default limit leaves the reply to the boundary's checks, as before.
  if (bound === undefined || stopReason !== 'length') return undefined;
  return new ProviderError('output_limit', `${label} was stopped at its bound of ${bound} output tokens before it finished answering; the cut answer is not used`, undefined, usage);
}
