import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventId, RunEvent, type RunEventOf } from '@shared/contracts/events';
import { LEARNING_KINDS, type LearningKind } from '@shared/contracts/learning-export';
import type { ChatMessage } from '@shared/contracts/model';
import { SupervisionSpec } from '@shared/contracts/spec';
import { VERDICTS, type Verdict } from '@shared/contracts/verdict';
import { encodeContext } from '@shared/learning/learning-context';
import { EventJournal } from './event-journal';
import { historyPath } from './history-db';
import type { LearningQuery } from './learning-store';

/** Issue 26: the Learning list from the host's history (learning-store.ts), not from a copy in every page. */

const MODELS = { student: 'replay', teacher: 'replay' };
const dirs: string[] = [];
function freshJournal(): EventJournal {
  const dir = mkdtempSync(join(tmpdir(), 'steward-learning-'));
  dirs.push(dir);
  return EventJournal.open(historyPath(dir), { log: () => undefined });
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const start = (runId: string, spec: string, ts: string, dry = false) =>
  RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts, spec_id: spec, spec_name: spec, task: 't', supervision: SupervisionSpec.parse({}), models: MODELS, dry_run: dry });
const finish = (runId: string, seq: number, ts: string) => RunEvent.parse({ type: 'run.finished', id: eventId(runId, seq), run_id: runId, seq, ts, status: 'completed', rounds: seq, event_count: seq + 1 });
function example(runId: string, seq: number, ts: string, kind: LearningKind, verdict: Verdict | undefined, agreement: boolean, prompt: Partial<RunEventOf<'learning.example'>> = {}): RunEventOf<'learning.example'> {
  return RunEvent.parse({
    type: 'learning.example',
    id: eventId(runId, seq),
    run_id: runId,
    seq,
    ts,
    round: seq - 1,
    kind,
    context: [{ role: 'user', content: `round ${seq}` }],
    ...(verdict ? { verdict: verdictOf(verdict) } : {}),
    reason_codes: [],
    agreement,
    models: MODELS,
    ...prompt,
  }) as RunEventOf<'learning.example'>;
}

/** A verdict as a teacher gives it (a replacement names why and what instead). */
function verdictOf(verdict: Verdict) {
  if (verdict === 'accept') return { verdict, reason_codes: [], explanation: 'Fine.' };
  return { verdict, reason_codes: ['unsafe_effect'], explanation: 'Not this.', ...(verdict === 'replace' ? { replacement: { decision_type: 'complete', output: 'done' } } : {}) };
}

const SPECS = ['notes-cleanup', 'folder-triage', 'third-one'] as const;
/** 40 runs of three workflows, 7 examples each: every kind, a verdict or none, agreed or not, runs sharing instants. */
function history(): { events: RunEvent[]; examples: Array<{ event: RunEventOf<'learning.example'>; spec: string }> } {
  const events: RunEvent[] = [];
  const examples: Array<{ event: RunEventOf<'learning.example'>; spec: string }> = [];
  for (let r = 0; r < 40; r++) {
    const runId = `run-${String(r).padStart(6, '0')}`;
    const spec = SPECS[r % 3]!;
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor((r * 7 + i) / 2) * 60_000).toISOString();
    events.push(start(runId, spec, at(0)));
    for (let i = 1; i <= 7; i++) {
      const n = r * 7 + i;
      const e = example(runId, i, at(i), LEARNING_KINDS[n % LEARNING_KINDS.length]!, n % 5 === 0 ? undefined : VERDICTS[n % VERDICTS.length], n % 4 !== 0);
      events.push(e);
      examples.push({ event: e, spec });
    }
    events.push(finish(runId, 8, at(8)));
  }
  return { events, examples };
}

describe('the Learning list from the host', () => {
  let journal: EventJournal;
  const { events, examples } = history();
  beforeAll(() => {
    journal = freshJournal();
    journal.append(events);
  });
  afterAll(() => journal.close());

  const filter = fc.record({
    workflow: fc.constantFrom(undefined, ...SPECS, 'no-such-workflow'),
    kind: fc.constantFrom(undefined, ...LEARNING_KINDS),
    verdict: fc.constantFrom(undefined, 'none' as const, ...VERDICTS),
    agreed: fc.constantFrom(undefined, true, false),
    oldest: fc.boolean(),
  });
  const matches = (q: Omit<LearningQuery, 'limit'>) => (x: { event: RunEventOf<'learning.example'>; spec: string }) =>
    (q.workflow === undefined || x.spec === q.workflow) &&
    (q.kind === undefined || x.event.kind === q.kind) &&
    (q.verdict === undefined || (q.verdict === 'none' ? x.event.verdict === undefined : x.event.verdict?.verdict === q.verdict)) &&
    (q.agreed === undefined || x.event.agreement === q.agreed);
  const inOrder = (oldest: boolean | undefined) => {
    const sorted = [...examples].sort((a, b) => (a.event.ts === b.event.ts ? (a.event.id < b.event.id ? -1 : 1) : a.event.ts < b.event.ts ? -1 : 1));
    return oldest ? sorted : sorted.reverse();
  };

  it('paged through, any filter lists exactly the examples it keeps, newest (or oldest) first, ties by id, each with its workflow', async () => {
    await fc.assert(
      fc.asyncProperty(filter, fc.integer({ min: 1, max: 60 }), async (q, limit) => {
        const listed: string[] = [];
        let after: LearningQuery['after'];
        let pages = 0;
        do {
          const page = await journal.learning.page({ ...q, limit, after });
          expect(page.total).toBe(examples.length);
          for (const x of page.examples) {
            listed.push(`${x.event.id} ${x.spec_id}`);
            expect(x.event.type).toBe('learning.example');
          }
          after = page.next;
          pages++;
        } while (after && pages < 1_000);
        expect(listed).toEqual(inOrder(q.oldest).filter(matches(q)).map((x) => `${x.event.id} ${x.spec}`));
      }),
      { numRuns: 80 },
    );
  });

  it('a workflow’s or a kind’s page reads through its own index (about a page of rows, however many examples)', () => {
    const plan = (sql: string) => (journal.connection.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((p) => p.detail).join(' · ');
    expect(plan("SELECT id FROM learning_examples INDEXED BY learning_spec WHERE spec_id = 'x' ORDER BY ts DESC, id DESC LIMIT 10")).not.toMatch(/TEMP B-TREE/);
    expect(plan("SELECT id FROM learning_examples INDEXED BY learning_kind WHERE kind = 'review' ORDER BY ts DESC, id DESC LIMIT 10")).not.toMatch(/TEMP B-TREE/);
    expect(plan('SELECT id FROM learning_examples INDEXED BY learning_time ORDER BY ts DESC, id DESC LIMIT 10')).not.toMatch(/TEMP B-TREE/);
  });
});

describe('what the Learning list holds', () => {
  it('never a dry run’s examples, even when its start comes after them; a start that comes late gives its examples their workflow', async () => {
    const journal = freshJournal();
    const t = (m: number) => new Date(Date.UTC(2026, 1, 1, 0, m)).toISOString();
    const dry = [example('run-dry-0001', 1, t(1), 'review', 'accept', true), example('run-dry-0001', 2, t(2), 'review', 'block', false)];
    const late = [example('run-late-001', 1, t(3), 'review', 'accept', true)];
    // Examples first, folded (listed without a workflow); then the starts arrive (an import may bring them in any order).
    journal.append([...dry, ...late]);
    expect((await journal.learning.page({ limit: 10 })).examples.map((x) => [x.event.id, x.spec_id])).toEqual([
      [late[0]!.id, undefined],
      [dry[1]!.id, undefined],
      [dry[0]!.id, undefined],
    ]);
    journal.append([start('run-dry-0001', 'notes-cleanup', t(0), true), start('run-late-001', 'folder-triage', t(0))]);
    const page = await journal.learning.page({ limit: 10 });
    expect(page.examples.map((x) => [x.event.id, x.spec_id])).toEqual([[late[0]!.id, 'folder-triage']]);
    expect(page.total).toBe(1);
    // A dry run's examples that come after its start are never listed either.
    journal.append([example('run-dry-0001', 3, t(4), 'review', 'accept', true)]);
    expect((await journal.learning.page({ limit: 10 })).examples).toHaveLength(1);
    journal.close();
  });

  it('a deleted run’s examples go; another run’s stay', async () => {
    const journal = freshJournal();
    const { events } = history();
    journal.append(events);
    await journal.learning.page({ limit: 1 });
    await journal.remove(['run-000001']);
    const all = await journal.learning.page({ limit: 500 });
    expect(all.total).toBe(39 * 7);
    expect(all.examples.some((x) => x.event.run_id === 'run-000001')).toBe(false);
    expect(all.examples.some((x) => x.event.run_id === 'run-000002')).toBe(true);
    journal.close();
  });

  it('an opened example comes with its whole prompt, rebuilt from its run’s examples by reference; an unknown id is undefined', async () => {
    const journal = freshJournal();
    const t = (m: number) => new Date(Date.UTC(2026, 1, 1, 0, m)).toISOString();
    const prompts: ChatMessage[][] = [];
    const events: RunEvent[] = [start('run-ref-0001', 'notes-cleanup', t(0))];
    let previous: { round: number; kind: 'review'; context: ChatMessage[] } | undefined;
    for (let round = 0; round < 5; round++) {
      const context: ChatMessage[] = [{ role: 'system', content: round < 2 ? 'You keep notes.' : 'You keep notes carefully.' }, { role: 'user', content: 'Tidy' }];
      for (let r = 0; r < round; r++) context.push({ role: 'assistant', content: `step ${r}` }, { role: 'tool', content: `result ${r}` });
      prompts.push(context);
      events.push(example('run-ref-0001', round + 1, t(round + 1), 'review', 'accept', true, { round, ...encodeContext(previous, context) }));
      previous = { round, kind: 'review', context };
    }
    journal.append(events);
    // The engine's encoding: every prompt after the first refers to the one before.
    expect(events.filter((e) => e.type === 'learning.example' && e.context_ref !== undefined)).toHaveLength(4);
    for (let round = 0; round < 5; round++) {
      const found = await journal.learning.example(eventId('run-ref-0001', round + 1));
      expect(found?.prompt).toEqual({ ok: true, context: prompts[round] });
      expect(found?.spec_id).toBe('notes-cleanup');
    }
    // A page with whole prompts (the export's), newest first; past its byte budget it ends early and says where to go on.
    const whole = await journal.learning.page({ limit: 5, whole: true });
    expect(whole.examples.map((x) => x.context)).toEqual([...prompts].reverse());
    const budget = JSON.stringify(whole.examples[0]).length + 10;
    const pages: (ChatMessage[] | undefined)[][] = [];
    let after: LearningQuery['after'];
    do {
      const page = await journal.learning.page({ limit: 5, whole: true, after }, budget);
      pages.push(page.examples.map((x) => x.context));
      after = page.next;
    } while (after);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual([...prompts].reverse());
    expect(await journal.learning.example('run-ref-0001:99')).toBeUndefined();
    journal.close();
  });
});
