import type { HostParams, HostResult } from '@shared/contracts/host-api';
import type { LearningExample, LearningKind } from '@shared/contracts/learning-export';
import type { Verdict } from '@shared/contracts/verdict';
import { exampleRow, wholeExample, type LearningExampleRow } from './example-row';

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

/** Examples fetched per page: the list asks for the next page as its end scrolls into view. */
export const EXAMPLE_PAGE = 100;
/** Examples per request: a list page, or an export's (whole prompts weigh more). */
const LIST_CHUNK = 500;
const EXPORT_CHUNK = 100;

/** The host's learning.examples (issue 26: the page keeps no examples; the host's history answers). */
export type AskExamples = (params: HostParams<'learning.examples'>) => Promise<HostResult<'learning.examples'>>;

/** The filter as the host's query takes it. */
export function examplesQuery(f: LearningFilter): Pick<HostParams<'learning.examples'>, 'workflow' | 'kind' | 'verdict' | 'agreed'> {
  return {
    ...(f.workflow !== 'all' ? { workflow: f.workflow } : {}),
    ...(f.kind !== 'all' ? { kind: f.kind } : {}),
    ...(f.verdict !== 'all' ? { verdict: f.verdict } : {}),
    ...(f.agreed !== 'all' ? { agreed: f.agreed === 'yes' } : {}),
  };
}

export interface ExamplesFound {
  rows: LearningExampleRow[];
  /** Examples in the history, whatever the filter. */
  total: number;
}

/** The first `limit` examples matching `f`, newest first (ties by id), in pages of the host's history. */
export async function queryExamples(ask: AskExamples, f: LearningFilter, limit: number): Promise<ExamplesFound> {
  const rows: LearningExampleRow[] = [];
  let total = 0;
  let after: HostResult<'learning.examples'>['next'];
  do {
    const page = await ask({ ...examplesQuery(f), limit: Math.min(LIST_CHUNK, limit - rows.length), ...(after ? { after } : {}) });
    total = page.total;
    for (const hosted of page.examples) {
      const row = exampleRow(hosted);
      if (row) rows.push(row);
    }
    after = page.next;
  } while (after && rows.length < limit);
  return { rows, total };
}

/** What the export writes from: every example matching `f`, oldest first (as the rounds happened), each with its whole prompt; `progress` after each page, with how many so far. */
export async function examplesForExport(ask: AskExamples, f: LearningFilter, progress?: (read: number) => void): Promise<LearningExample[]> {
  const examples: LearningExample[] = [];
  let after: HostResult<'learning.examples'>['next'];
  do {
    const page = await ask({ ...examplesQuery(f), order: 'oldest', whole: true, limit: EXPORT_CHUNK, ...(after ? { after } : {}) });
    for (const hosted of page.examples) {
      const example = wholeExample(hosted);
      if (example) examples.push(example);
    }
    progress?.(examples.length);
    after = page.next;
  } while (after);
  return examples;
}
