import type { HostParams, HostResult } from '@shared/contracts/host-api';
import type { ResolvedContext } from '@shared/learning/learning-context';
import type { LearningExampleRow } from './example-row';

const NONE = 'No prompt was recorded for this round.';

/** The prompt of an example stored whole (no reference to rebuild it from); undefined when it must be rebuilt. */
export function storedPrompt(example: LearningExampleRow): ResolvedContext | undefined {
  if (example.context_ref !== undefined) return undefined;
  return example.context.length > 0 ? { ok: true, context: example.context } : { ok: false, message: NONE };
}

export type AskExample = (params: HostParams<'learning.example'>) => Promise<HostResult<'learning.example'>>;

/**
 * A learning example's whole prompt. Stored by reference to an earlier example's, it is rebuilt by the host
 * from its run's examples up to it, in order (src-main/events/learning-store.ts); or the reason it cannot be is given.
 */
export async function examplePrompt(ask: AskExample, example: LearningExampleRow): Promise<ResolvedContext> {
  const stored = storedPrompt(example);
  if (stored) return stored;
  let found: HostResult<'learning.example'>['example'];
  try {
    found = (await ask({ id: example.id })).example;
  } catch (err) {
    return { ok: false, message: `The prompt could not be read from the host’s history: ${err instanceof Error ? err.message : String(err)}.` };
  }
  return hostedPrompt(found);
}

/** The prompt in the host's answer to `learning.example`: whole, or why it cannot be rebuilt. */
export function hostedPrompt(found: HostResult<'learning.example'>['example']): ResolvedContext {
  if (found.context === undefined) return { ok: false, message: `The prompt cannot be rebuilt: ${found.prompt_problem ?? 'its run holds no example before it'}.` };
  return found.context.length > 0 ? { ok: true, context: found.context } : { ok: false, message: NONE };
}
