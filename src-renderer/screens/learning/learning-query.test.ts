import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEARNING_KINDS } from '@shared/contracts/learning-export';
import { VERDICTS } from '@shared/contracts/verdict';
import { StewardDb, type LearningExampleRow } from '../../db/db';
import { exampleMatches, queryExamples, readExamples, type LearningFilter } from './learning-query';
import { rowsReadDb } from '../../testing/rows-read';

const specs = ['notes-cleanup', 'folder-triage', undefined] as const;
/** Examples of three workflows (one unknown), every kind, verdict or none, agreed or not, some at the same instant. */
function examples(count: number): LearningExampleRow[] {
  return Array.from({ length: count }, (_, i) => {
    const spec_id = specs[i % 3];
    const verdict = i % 5 === 0 ? undefined : VERDICTS[i % VERDICTS.length]!;
    return {
      id: `run-${Math.floor(i / 7)}:${i}`,
      run_id: `run-${Math.floor(i / 7)}`,
      seq: i,
      ...(spec_id !== undefined ? { spec_id } : {}),
      ts: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 60_000).toISOString(),
      round: i % 7,
      kind: LEARNING_KINDS[i % LEARNING_KINDS.length]!,
      context: [{ role: 'user', content: `round ${i}` }],
      ...(verdict !== undefined ? { verdict: { verdict, reason_codes: [], explanation: 'x' } } : {}),
      reason_codes: [],
      agreement: i % 4 !== 0,
      models: { student: 'replay', teacher: 'replay' },
    } as LearningExampleRow;
  });
}

let db: StewardDb;
const all = examples(600);
beforeAll(async () => {
  db = new StewardDb(`steward-learning-query-${Math.random().toString(36).slice(2)}`);
  await db.open();
  await db.learning_examples.bulkPut(all);
});
afterAll(async () => {
  await db.delete();
});

const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
const filter = fc.record({
  workflow: fc.constantFrom('all', 'notes-cleanup', 'folder-triage', 'no-such-workflow'),
  kind: fc.constantFrom('all' as const, ...LEARNING_KINDS),
  verdict: fc.constantFrom('all' as const, 'none' as const, ...VERDICTS),
  agreed: fc.constantFrom('all' as const, 'yes' as const, 'no' as const),
});

describe('readExamples', () => {
  it('every filter lists exactly the examples the in-memory filter keeps, newest first', async () => {
    const newestFirst = [...all].sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : a.id < b.id ? 1 : -1));
    await fc.assert(
      fc.asyncProperty(filter, async (f: LearningFilter) => {
        expect(ids(await readExamples(db, f))).toEqual(ids(newestFirst.filter(exampleMatches(f))));
      }),
      { numRuns: 80 },
    );
  });

  it('a workflow filter reads only that workflow’s examples', async () => {
    const read: string[] = [];
    const counted = rowsReadDb<LearningExampleRow>(db.name, 'learning_examples', (r) => read.push(r.spec_id ?? '?'));
    await counted.open();
    try {
      const rows = await readExamples(counted, { workflow: 'folder-triage', kind: 'all', verdict: 'all', agreed: 'no' });
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(read)).toEqual(new Set(['folder-triage']));
    } finally {
      counted.close();
    }
  });

  it('a page of any filter is the first `limit` examples of its whole list, newest first (ties broken by id)', async () => {
    await fc.assert(
      fc.asyncProperty(filter, fc.integer({ min: 1, max: 250 }), async (f: LearningFilter, limit) => {
        expect(ids(await queryExamples(db, f, limit))).toEqual(ids(await readExamples(db, f)).slice(0, limit));
      }),
      { numRuns: 80 },
    );
  });

  it('the first page of a workflow’s or a kind’s examples reads about a page of rows, not all of them', async () => {
    for (const f of [
      { workflow: 'folder-triage', kind: 'all', verdict: 'all', agreed: 'all' },
      { workflow: 'all', kind: 'review', verdict: 'all', agreed: 'all' },
      { workflow: 'all', kind: 'all', verdict: 'all', agreed: 'all' },
    ] satisfies LearningFilter[]) {
      let read = 0;
      const counted = rowsReadDb<LearningExampleRow>(db.name, 'learning_examples', () => (read += 1));
      await counted.open();
      try {
        expect(await queryExamples(counted, f, 50)).toHaveLength(50);
        expect(read).toBeLessThanOrEqual(100);
      } finally {
        counted.close();
      }
    }
  });
});

describe('examples an older version stored for a dry run', () => {
  it('are neither listed nor exported; the real runs’ examples still are, pages stay full', async () => {
    const own = new StewardDb(`steward-learning-dry-${Math.random().toString(36).slice(2)}`);
    await own.open();
    try {
      const rows = examples(140);
      await own.learning_examples.bulkPut(rows);
      // run-0 … run-19, seven examples each; every other run was a dry run.
      const dry = new Set(Array.from({ length: 10 }, (_, i) => `run-${i * 2}`));
      await own.runs.bulkPut(
        Array.from({ length: 20 }, (_, i) => ({
          run_id: `run-${i}`,
          workflow_id: 'notes-cleanup',
          spec_name: 'Notes',
          status: 'completed' as const,
          started_at: '2026-01-01T00:00:00.000Z',
          rounds: 7,
          models: { student: 'replay', teacher: 'replay' },
          supervision_enabled: true,
          stored_events: 0,
          dry_run: dry.has(`run-${i}`),
        })),
      );
      const real = rows.filter((r) => !dry.has(r.run_id));
      const everything: LearningFilter = { workflow: 'all', kind: 'all', verdict: 'all', agreed: 'all' };
      expect(new Set(ids(await readExamples(own, everything)))).toEqual(new Set(ids(real)));
      const page = await queryExamples(own, everything, 50);
      expect(page).toHaveLength(50);
      expect(page.some((r) => dry.has(r.run_id))).toBe(false);
      const review: LearningFilter = { ...everything, kind: 'review' };
      expect(ids(await queryExamples(own, review, 1000))).toEqual(ids(await readExamples(own, review)));
      expect((await readExamples(own, review)).some((r) => dry.has(r.run_id))).toBe(false);
    } finally {
      await own.delete();
    }
  });
});
