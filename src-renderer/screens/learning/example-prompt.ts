import { PromptBook, type ResolvedContext } from '@shared/learning/learning-context';
import { runEvents, type LearningExampleRow, type StewardDb } from '../../db/db';

/**
 * A learning example's whole prompt. Ingest stores it rebuilt; when it could not be then (the example it
 * refers to had not arrived), it is rebuilt here from the run's stored `learning.example` events, read in
 * order (src-shared/learning/learning-context.ts), or the reason it cannot be is given.
 */
export async function examplePrompt(db: StewardDb, example: LearningExampleRow): Promise<ResolvedContext> {
  if (example.context.length > 0) return { ok: true, context: example.context };
  const book = new PromptBook();
  for (const e of await runEvents(db, example.run_id)) {
    if (e.type !== 'learning.example') continue;
    const resolved = book.resolve(e);
    if (e.id !== example.id) continue;
    if (!resolved.ok) return { ok: false, message: `The prompt cannot be rebuilt: ${resolved.message}.` };
    return resolved.context.length > 0 ? resolved : { ok: false, message: 'No prompt was recorded for this round.' };
  }
  return { ok: false, message: 'The prompt is not stored in this browser: the run’s events are not here.' };
}
