import type { LearningKind } from '@shared/contracts/learning-export';
import type { Verdict } from '@shared/contracts/verdict';
import type { LearningExampleRow, StewardDb } from '../../db/db';

export type Choice<T extends string> = T | 'all';

/** What the Learning screen's list (and its export) is narrowed to. */
export interface LearningFilter {
  /** A workflow id (the run's spec id). */
  workflow: Choice<string>;
  kind: Choice<LearningKind>;
  verdict: Choice<Verdict | 'none'>;
  agreed: Choice<'yes' | 'no'>;
}

export const ALL_EXAMPLES: LearningFilter = { workflow: 'all', kind: 'all', verdict: 'all', agreed: 'all' };

/** The whole filter, tested on one example. */
export function exampleMatches(f: LearningFilter): (e: LearningExampleRow) => boolean {
  return (e) =>
    (f.workflow === 'all' || e.spec_id === f.workflow) &&
    (f.kind === 'all' || e.kind === f.kind) &&
    (f.verdict === 'all' || (f.verdict === 'none' ? e.verdict === undefined : e.verdict?.verdict === f.verdict)) &&
    (f.agreed === 'all' || e.agreement === (f.agreed === 'yes'));
}

const newestFirst = (a: LearningExampleRow, b: LearningExampleRow) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The examples matching `f`, newest first. A workflow or kind narrows the read through its index (spec_id, kind), so
 * only those examples are read; the rest of the filter is tested per row. Read whole (getAll), then sorted: a cursor
 * with a per-row filter is far slower in fake-indexeddb (see docs/benchmarks.md), and the export needs every match.
 */
export async function readExamples(db: StewardDb, f: LearningFilter): Promise<LearningExampleRow[]> {
  const rows =
    f.workflow !== 'all'
      ? await db.learning_examples.where('spec_id').equals(f.workflow).toArray()
      : f.kind !== 'all'
        ? await db.learning_examples.where('kind').equals(f.kind).toArray()
        : await db.learning_examples.toArray();
  return rows.filter(exampleMatches(f)).sort(newestFirst);
}
