import type { ResolvedContext } from '@shared/learning/learning-context';
import type { LearningExampleRow, StewardDb } from '../../db/db';
import { rebuildPrompts } from '../../db/example-prompts';

const NONE = 'No prompt was recorded for this round.';

/** The prompt of an example stored whole (no reference to rebuild it from); undefined when it must be rebuilt. */
export function storedPrompt(example: LearningExampleRow): ResolvedContext | undefined {
  if (example.context_ref !== undefined) return undefined;
  return example.context.length > 0 ? { ok: true, context: example.context } : { ok: false, message: NONE };
}

/**
 * A learning example's whole prompt. Stored by reference to an earlier example's (db.ts, v6), it is rebuilt
 * here from its run's stored examples up to it, in order (src-renderer/db/example-prompts.ts); or the
 * reason it cannot be is given.
 */
export async function examplePrompt(db: StewardDb, example: LearningExampleRow): Promise<ResolvedContext> {
  const stored = storedPrompt(example);
  if (stored) return stored;
  const rebuilt = (await rebuildPrompts(db, [example.run_id], example.seq)).get(example.id);
  if (!rebuilt) return { ok: false, message: 'The prompt is not stored in this browser: the example is no longer here.' };
  if (!rebuilt.ok) return { ok: false, message: `The prompt cannot be rebuilt: ${rebuilt.message}.` };
  return rebuilt.context.length > 0 ? rebuilt : { ok: false, message: NONE };
}
