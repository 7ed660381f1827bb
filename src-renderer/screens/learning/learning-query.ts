import Dexie from 'dexie';
import type { LearningExample, LearningKind } from '@shared/contracts/learning-export';
import type { Verdict } from '@shared/contracts/verdict';
import type { LearningExampleRow, StewardDb } from '../../db/db';
import { dryRunIds } from '../../db/learning-examples';
import { wholeExamples } from '../../db/example-prompts';

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
 * The examples matching `f`, newest first (never a dry run's: an older version stored some). A workflow or kind narrows the read through its index (spec_id, kind), so
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
  const matching = rows.filter(exampleMatches(f));
  const dry = await dryRunIds(db, matching);
  return matching.filter((r) => !dry.has(r.run_id)).sort(newestFirst);
}

/** What the export writes from: every example matching `f`, oldest first (as the rounds happened), each with its whole prompt rebuilt. */
export async function examplesForExport(db: StewardDb, f: LearningFilter): Promise<LearningExample[]> {
  return wholeExamples(db, (await readExamples(db, f)).reverse());
}

/** Examples fetched per page: the list asks for the next page as its end scrolls into view. */
export const EXAMPLE_PAGE = 100;
const MAX_CHUNK = 1000;

/**
 * The first `limit` examples matching `f`, newest first (ties by id, as readExamples): read backwards through
 * `[spec_id+ts+id]` for a workflow, `[kind+ts+id]` for a kind, else `[ts+id]` (database v5), a chunk at a time,
 * each continuing below the last key read (the id makes every key unique), until the page is full. The rest of the
 * filter is tested per row, so any filter gives the first `limit` of its whole list.
 */
export async function queryExamples(db: StewardDb, f: LearningFilter, limit: number): Promise<LearningExampleRow[]> {
  if (limit <= 0) return [];
  const [index, prefix]: [string, string[]] =
    f.workflow !== 'all' ? ['[spec_id+ts+id]', [f.workflow]] : f.kind !== 'all' ? ['[kind+ts+id]', [f.kind]] : ['[ts+id]', []];
  const test = exampleMatches(f);
  const page: LearningExampleRow[] = [];
  let hi: unknown[] = [...prefix, Dexie.maxKey];
  let hiOpen = false;
  for (let chunk = Math.min(limit, MAX_CHUNK); ; chunk = Math.min(chunk * 2, MAX_CHUNK)) {
    const rows: LearningExampleRow[] = await db.learning_examples
      .where(index)
      .between(prefix.length > 0 ? [...prefix, Dexie.minKey] : Dexie.minKey, hi, true, !hiOpen)
      .reverse()
      .limit(chunk)
      .toArray();
    const dry = await dryRunIds(db, rows);
    for (const r of rows) if (test(r) && !dry.has(r.run_id) && page.push(r) >= limit) return page;
    const last = rows.at(-1);
    if (!last || rows.length < chunk) return page;
    [hi, hiOpen] = [[...prefix, last.ts, last.id], true];
  }
}
