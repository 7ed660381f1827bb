import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RunEvent } from '@shared/contracts/events';
import { StewardDb } from './db';
import { ingestEvents } from './ingest-events';
import { deleteRuns } from './delete-runs';
import { rebuildPrompts, wholeExamples } from './example-prompts';
import { examplePrompt } from '../screens/learning/example-prompt';
import { importChunks, parseTraceJsonl, runsJsonl } from '../screens/runs/runs-jsonl';
import { referencedRun, type AgentPlan, type ReferencedRun } from '../testing/learning-fixtures';

const names: string[] = [];
afterEach(async () => {
  for (const name of names.splice(0)) await new StewardDb(name).delete();
});

async function freshDb() {
  const name = `steward-example-prompts-${Math.random().toString(36).slice(2)}`;
  names.push(name);
  const db = new StewardDb(name);
  await db.open();
  return db;
}

const Agent = fc.record({
  rounds: fc.integer({ min: 1, max: 6 }),
  // phase 2 reviews; phase 1 a demonstration then the student's shadow; phase 0 or a takeover, demonstrations only
  kinds: fc.constantFrom<AgentPlan['kinds']>(['review'], ['demonstration', 'shadow'], ['demonstration']),
  systemChangeAt: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
});

/** An agent run, or a workflow run whose agent nodes share its run id and round numbers; live, or imported from a trace file (an old one copies every prompt whole). */
const Run = fc.record({
  agents: fc.oneof(
    Agent.map((a) => [a]),
    fc.array(Agent, { minLength: 2, maxLength: 3 }).map((as) => as.map((a, i) => ({ ...a, invocation: `node-${i}` }))),
  ),
  imported: fc.boolean(),
  copied: fc.boolean(),
  deleted: fc.boolean(),
  reimported: fc.boolean(),
});

/** The runs' events as the journal holds them: interleaved as `picks` says, each run's in its own order. */
function interleave(runs: readonly RunEvent[][], picks: readonly number[]): RunEvent[] {
  const queues = runs.map((r) => [...r]);
  const out: RunEvent[] = [];
  let p = 0;
  for (;;) {
    const open = queues.filter((q) => q.length > 0);
    if (open.length === 0) return out;
    out.push(open[(picks[p++ % Math.max(1, picks.length)] ?? 0) % open.length]!.shift()!);
  }
}

async function importTrace(db: StewardDb, text: string): Promise<void> {
  const parsed = parseTraceJsonl(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  const chunks = importChunks(parsed.events, { maxEvents: 7 });
  if (!chunks.ok) throw new Error(chunks.problem);
  for (const chunk of chunks.chunks) await ingestEvents(db, chunk);
}

describe('a learning example stored by reference', () => {
  it('is rebuilt to the prompt the student was given, for any runs interleaved, batched, imported, deleted or imported again', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Run, { minLength: 1, maxLength: 4 }), fc.array(fc.nat()), fc.integer({ min: 1, max: 30 }), async (plans, picks, batch) => {
        const db = await freshDb();
        const runs: Array<ReferencedRun & (typeof plans)[number]> = plans.map((plan, i) => ({ ...plan, ...referencedRun(`run-prop-${String(i).padStart(4, '0')}`, plan.agents, { copied: plan.copied }) }));
        const live = interleave(runs.filter((r) => !r.imported).map((r) => r.log.events), picks);
        for (let i = 0; i < live.length; i += batch) await ingestEvents(db, live.slice(i, i + batch), { fresh: i % 2 === 0 });
        for (const r of runs.filter((run) => run.imported)) await importTrace(db, r.log.events.map((e) => `${JSON.stringify(e)}\n`).join(''));

        const gone = runs.filter((r) => r.deleted);
        const traces = new Map(await Promise.all(gone.map(async (r) => [r.log.runId, await runsJsonl(db, [r.log.runId])] as const)));
        await deleteRuns(db, gone.map((r) => r.log.runId));
        expect(await db.learning_examples.where('run_id').anyOf(gone.map((r) => r.log.runId)).count()).toBe(0);
        for (const r of gone.filter((run) => run.reimported)) await importTrace(db, traces.get(r.log.runId) ?? '');

        const kept = runs.filter((r) => !r.deleted || r.reimported);
        const expected = new Map(kept.flatMap((r) => [...r.prompts]));
        const stored = await db.learning_examples.toArray();
        expect(stored.map((row) => row.id).sort()).toEqual([...expected.keys()].sort());
        for (const example of await wholeExamples(db, stored)) expect(example.context).toEqual(expected.get(example.id));
        for (const row of stored) expect(await examplePrompt(db, row)).toEqual({ ok: true, context: expected.get(row.id) });
        db.close();
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('of an agent whose earlier example is not stored here cannot be rebuilt, and says which example it repeats', async () => {
    const db = await freshDb();
    const { log } = referencedRun('run-missing-0001', [{ rounds: 3, kinds: ['review'] }]);
    const [first, ...rest] = log.events.filter((e) => e.type === 'learning.example');
    await ingestEvents(db, log.events.filter((e) => e !== first));
    const prompts = await rebuildPrompts(db, ['run-missing-0001']);
    expect(rest.map((e) => prompts.get(e.id)?.ok)).toEqual([false, false]);
    const [second] = rest;
    const why = second && prompts.get(second.id);
    expect(why && !why.ok && why.message).toContain('review example, which is not here');
    expect((await wholeExamples(db, await db.learning_examples.toArray())).map((e) => e.context)).toEqual([[], []]);
    db.close();
  });
});
