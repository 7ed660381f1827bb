import type { LearningExample } from '@shared/contracts/learning-export';
import type { ChatMessage } from '@shared/contracts/model';
import { PromptBook, type ResolvedContext } from '@shared/learning/learning-context';
import type { LearningExampleRow, StewardDb } from './db';

/**
 * Learning examples are stored with their prompts by reference (db.ts, v6); these rebuild the whole
 * prompts, as the CLI's export does from a trace (src-shared/learning/learning-context.ts), when an
 * example is opened or exported, from its run's stored examples read in the order they happened.
 */

/**
 * Per example id of these runs (up to `upToSeq` in each, when given), its whole prompt or why it cannot
 * be rebuilt (the example it repeats is not stored here). A run's rows are small: each holds what is new.
 */
export async function rebuildPrompts(db: Pick<StewardDb, 'learning_examples'>, runIds: readonly string[], upToSeq = Infinity): Promise<Map<string, ResolvedContext>> {
  const rows = await db.learning_examples.where('run_id').anyOf([...new Set(runIds)]).toArray();
  const inOrder = rows.filter((r) => r.seq <= upToSeq).sort((a, b) => (a.run_id === b.run_id ? a.seq - b.seq : a.run_id < b.run_id ? -1 : 1));
  const prompts = new Map<string, ResolvedContext>();
  let book = new PromptBook();
  let run: string | undefined;
  for (const row of inOrder) {
    // A prompt refers only to its own run's examples: one run's prompts at a time in memory.
    if (row.run_id !== run) [book, run] = [new PromptBook(), row.run_id];
    prompts.set(row.id, book.resolve(row));
  }
  return prompts;
}

/** A stored example with its whole prompt, as the export reads it (the fields a trace's example has, no more). */
export function withWholePrompt(row: LearningExampleRow, context: ChatMessage[]): LearningExample {
  const { seq: _seq, invocation_id: _invocation, context_ref: _ref, context_head: _head, ...example } = row;
  return { ...example, context };
}

/**
 * These examples with their whole prompts, in the order given. One whose prompt cannot be rebuilt gets
 * none, never a partial one (the export skips it as "no prompt context recorded").
 */
export async function wholeExamples(db: Pick<StewardDb, 'learning_examples'>, rows: readonly LearningExampleRow[]): Promise<LearningExample[]> {
  const prompts = await rebuildPrompts(db, rows.map((r) => r.run_id));
  return rows.map((row) => {
    const prompt = prompts.get(row.id);
    return withWholePrompt(row, prompt?.ok ? prompt.context : []);
  });
}
