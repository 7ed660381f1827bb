import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { LearningKind } from '@shared/contracts/learning-export';
import type { ChatMessage } from '@shared/contracts/model';
import type { Verdict } from '@shared/contracts/verdict';
import { PromptBook, type ResolvedContext } from '@shared/learning/learning-context';
import type { Statement } from 'better-sqlite3';
import type { HistoryDb } from './history-db';
import type { Fold } from './history-fold';

/**
 * The Learning list from the host's history (issue 26: the page no longer mirrors every example):
 * one row per `learning.example` event of a run that is not a dry run, with the run's workflow, folded
 * lazily (history-fold.ts). A run's workflow and dry-run flag come from its row in `runs`, which its
 * events' appends keep current; a start folded after its examples (an import may bring them in any
 * order) moves them to its workflow, or takes them away for a dry run. Pages are read newest (or
 * oldest) first through an index by time, of all examples, of a workflow's or of a kind's.
 */

export interface LearningQuery {
  workflow?: string | undefined;
  kind?: LearningKind | undefined;
  /** A verdict, or 'none' for examples without one (a demonstration, a shadow comparison). */
  verdict?: Verdict | 'none' | undefined;
  agreed?: boolean | undefined;
  oldest?: boolean | undefined;
  limit: number;
  /** The last example of the page before. */
  after?: LearningCursor | undefined;
  /** Each with its whole prompt (or why it cannot be rebuilt), as an export needs. */
  whole?: boolean | undefined;
}

/** About how much a page with whole prompts carries at most (a long run's prompts are long): it ends early, with `next`. */
export const WHOLE_PAGE_BYTES = 4 * 1024 * 1024;

export interface LearningCursor {
  ts: string;
  id: string;
}

export interface ListedExample {
  event: RunEventOf<'learning.example'>;
  /** The run's workflow, when known. */
  spec_id?: string;
  /** With `whole`: the whole prompt, or why it cannot be rebuilt. */
  context?: ChatMessage[];
  prompt_problem?: string;
}

export interface LearningPage {
  examples: ListedExample[];
  next?: LearningCursor;
  /** Examples in the history (not only those matching). */
  total: number;
}

interface Row {
  id: string;
  ts: string;
  spec_id: string;
  body: string;
}

const isExample = (e: RunEvent): e is RunEventOf<'learning.example'> => e.type === 'learning.example';
const NO_SOURCE: ResolvedContext = { ok: false, message: 'its run holds no example before it to rebuild it from' };

/** An example as answered with its whole prompt: `context`, or why it cannot be rebuilt (`prompt_problem`). */
export function withPrompt(example: ListedExample, prompt: ResolvedContext): ListedExample {
  return { ...example, ...(prompt.ok ? { context: prompt.context } : { prompt_problem: prompt.message }) };
}

export class LearningStore implements Fold {
  readonly types = ['run.started', 'agent.started', 'workflow.started', 'learning.example'] as const;
  private readonly sql;
  /** A page's statement per filter shape (a list asks again every second while it is open). */
  private readonly pageStatements = new Map<string, Statement<Record<string, string | number>, Row>>();

  /** `catchUp`: folds what was appended since the last fold (history-fold.ts), before every read. */
  constructor(
    private readonly db: HistoryDb,
    private readonly catchUp: () => Promise<void>,
  ) {
    this.sql = {
      run: db.prepare<[string], { spec_id: string | null; dry: number | null }>("SELECT spec_id, json_extract(summary, '$.dry_run') AS dry FROM runs WHERE run_id = ?"),
      put: db.prepare<{ id: string; run_id: string; seq: number; spec_id: string; kind: string; ts: string; verdict: string; agreed: number }>(
        `INSERT INTO learning_examples (id, run_id, seq, spec_id, kind, ts, verdict, agreed) VALUES (@id, @run_id, @seq, @spec_id, @kind, @ts, @verdict, @agreed)
         ON CONFLICT (id) DO UPDATE SET spec_id = excluded.spec_id, kind = excluded.kind, ts = excluded.ts, verdict = excluded.verdict, agreed = excluded.agreed`,
      ),
      moveRun: db.prepare<[string, string, string]>('UPDATE learning_examples SET spec_id = ? WHERE run_id = ? AND spec_id <> ?'),
      dropRun: db.prepare<[string]>('DELETE FROM learning_examples WHERE run_id = ?'),
      count: db.prepare<[], number>('SELECT count(*) FROM learning_examples').pluck(),
      one: db.prepare<[string], Row & { run_id: string; seq: number }>('SELECT l.id, l.ts, l.spec_id, l.run_id, l.seq, e.body FROM learning_examples AS l JOIN events AS e ON e.id = l.id WHERE l.id = ?'),
      runExamples: db.prepare<[string, number], { body: string }>(
        "SELECT e.body FROM learning_examples AS l INDEXED BY learning_run JOIN events AS e ON e.id = l.id WHERE l.run_id = ? AND l.seq <= ? ORDER BY l.seq",
      ),
    };
  }

  /** A chunk of events, in position order (history-fold.ts). */
  fold(events: readonly RunEvent[]): void {
    const runs = new Map<string, { spec: string; dry: boolean }>();
    const runOf = (runId: string) => {
      let run = runs.get(runId);
      if (!run) {
        const row = this.sql.run.get(runId);
        run = { spec: row?.spec_id ?? '', dry: row?.dry === 1 };
        runs.set(runId, run);
      }
      return run;
    };
    // A start: the run's examples folded before it take its workflow, or go (a dry run teaches nothing).
    for (const runId of new Set(events.filter((e) => !isExample(e)).map((e) => e.run_id))) {
      const run = runOf(runId);
      if (run.dry) this.sql.dropRun.run(runId);
      else this.sql.moveRun.run(run.spec, runId, run.spec);
    }
    for (const e of events) {
      if (!isExample(e)) continue;
      const run = runOf(e.run_id);
      if (run.dry) continue;
      this.sql.put.run({ id: e.id, run_id: e.run_id, seq: e.seq, spec_id: run.spec, kind: e.kind, ts: e.ts, verdict: e.verdict?.verdict ?? '', agreed: e.agreement ? 1 : 0 });
    }
  }

  forget(runIds: readonly string[]): void {
    for (const runId of runIds) this.sql.dropRun.run(runId);
  }

  /** A page of examples matching the query, newest first (or oldest), after `after`; with `whole`, at most about `maxBytes` of them. */
  async page(query: LearningQuery, maxBytes = WHOLE_PAGE_BYTES): Promise<LearningPage> {
    await this.catchUp();
    const where: string[] = [];
    const params: Record<string, string | number> = { limit: query.limit + 1 };
    // The index whose leading column the query fixes: a workflow's, a kind's, or all examples by time.
    let index = 'learning_time';
    if (query.workflow !== undefined) {
      index = 'learning_spec';
      where.push('l.spec_id = @workflow');
      params.workflow = query.workflow;
    }
    if (query.kind !== undefined) {
      if (index === 'learning_time') index = 'learning_kind';
      where.push('l.kind = @kind');
      params.kind = query.kind;
    }
    if (query.verdict !== undefined) {
      where.push('l.verdict = @verdict');
      params.verdict = query.verdict === 'none' ? '' : query.verdict;
    }
    if (query.agreed !== undefined) {
      where.push('l.agreed = @agreed');
      params.agreed = query.agreed ? 1 : 0;
    }
    if (query.after) {
      where.push(query.oldest ? '(l.ts, l.id) > (@ts, @id)' : '(l.ts, l.id) < (@ts, @id)');
      params.ts = query.after.ts;
      params.id = query.after.id;
    }
    const direction = query.oldest ? 'ASC' : 'DESC';
    const sql = `SELECT l.id, l.ts, l.spec_id, e.body FROM learning_examples AS l INDEXED BY ${index} JOIN events AS e ON e.id = l.id
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY l.ts ${direction}, l.id ${direction} LIMIT @limit`;
    let statement = this.pageStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare<Record<string, string | number>, Row>(sql);
      this.pageStatements.set(sql, statement);
    }
    const rows = statement.all(params);
    let more = rows.length > query.limit;
    let examples = (more ? rows.slice(0, query.limit) : rows).map(listed);
    if (query.whole) {
      const prompts = this.wholePrompts(examples);
      let bytes = 0;
      const kept: ListedExample[] = [];
      for (const example of examples) {
        const item = withPrompt(example, prompts.get(example.event.id) ?? NO_SOURCE);
        bytes += JSON.stringify(item).length;
        // At least one, however long: a page always moves the export on.
        if (kept.length > 0 && bytes > maxBytes) {
          more = true;
          break;
        }
        kept.push(item);
      }
      examples = kept;
    }
    const last = examples.at(-1)?.event;
    return {
      examples,
      ...(more && last ? { next: { ts: last.ts, id: last.id } } : {}),
      total: this.sql.count.get() ?? 0,
    };
  }

  /** One example with its whole prompt (rebuilt from its run's examples up to it), or undefined. */
  async example(id: string): Promise<(ListedExample & { prompt: ResolvedContext }) | undefined> {
    await this.catchUp();
    const row = this.sql.one.get(id);
    if (!row) return undefined;
    const found = listed(row);
    return { ...found, prompt: this.prompts(row.run_id, row.seq).get(id) ?? NO_SOURCE };
  }

  /** These examples' whole prompts, by id: each run's examples read once, in order, up to its last one here. */
  private wholePrompts(examples: readonly ListedExample[]): Map<string, ResolvedContext> {
    const upTo = new Map<string, number>();
    for (const { event } of examples) upTo.set(event.run_id, Math.max(upTo.get(event.run_id) ?? -1, event.seq));
    const prompts = new Map<string, ResolvedContext>();
    for (const [runId, seq] of upTo) for (const [id, prompt] of this.prompts(runId, seq)) prompts.set(id, prompt);
    return prompts;
  }

  private prompts(runId: string, upToSeq: number): Map<string, ResolvedContext> {
    const book = new PromptBook();
    const prompts = new Map<string, ResolvedContext>();
    for (const { body } of this.sql.runExamples.iterate(runId, upToSeq)) {
      const e = JSON.parse(body) as RunEventOf<'learning.example'>;
      prompts.set(e.id, book.resolve(e));
    }
    return prompts;
  }
}

function listed(row: Row): ListedExample {
  return { event: JSON.parse(row.body) as RunEventOf<'learning.example'>, ...(row.spec_id !== '' ? { spec_id: row.spec_id } : {}) };
}
