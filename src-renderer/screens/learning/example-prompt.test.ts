import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '@shared/contracts/model';
import { encodeContext } from '@shared/learning/learning-context';
import { StewardDb } from '../../db/db';
import { ingestEvents } from '../../db/ingest-events';
import { eventLog, startRun } from '../../testing/event-fixtures';
import { examplePrompt } from './example-prompt';

const names: string[] = [];
afterEach(async () => {
  for (const name of names.splice(0)) await new StewardDb(name).delete();
});

/** Two review examples of one run, the second's prompt stored as a reference to the first's (as the engine writes it). */
function twoRounds(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  const first: ChatMessage[] = [
    { role: 'system', content: 'You keep notes.' },
    { role: 'user', content: 'Task: tidy the notes' },
  ];
  const second: ChatMessage[] = [...first, { role: 'assistant', content: '{"decision_type":"tool_call"}' }, { role: 'tool', content: 'notes 0' }];
  const example = (round: number, context: ChatMessage[], previous?: { round: number; kind: 'review'; context: ChatMessage[] }) =>
    log.add({
      type: 'learning.example',
      kind: 'review',
      round,
      ...encodeContext(previous, context),
      rule: 'sampled',
      student_candidate: { decision_type: 'complete', output: 'done' },
      verdict: { verdict: 'accept', reason_codes: [], explanation: 'fine' },
      reason_codes: [],
      agreement: true,
      models: { student: 'replay', teacher: 'replay' },
    });
  const a = example(0, first);
  const b = example(1, second, { round: 0, kind: 'review', context: first });
  return { log, a, b, second };
}

async function freshDb() {
  const name = `steward-example-prompt-${Math.random().toString(36).slice(2)}`;
  names.push(name);
  const db = new StewardDb(name);
  await db.open();
  return db;
}

describe('an opened learning example’s prompt', () => {
  it('is rebuilt from the run’s stored examples, whichever arrived first (the row holds only what is new)', async () => {
    const db = await freshDb();
    const { log, a, b, second } = twoRounds('run-prompt-0001');
    expect(b.type === 'learning.example' && b.context_ref).toBeTruthy();
    await ingestEvents(db, log.events.filter((e) => e !== a));
    await ingestEvents(db, [a]);
    const row = (await db.learning_examples.get(b.id))!;
    expect(row.context).toEqual(second.slice(2));
    expect(await examplePrompt(db, row)).toEqual({ ok: true, context: second });
    expect(await examplePrompt(db, (await db.learning_examples.get(a.id))!)).toEqual({ ok: true, context: second.slice(0, 2) });
    db.close();
  });

  it('says why when it cannot be rebuilt: the example it repeats is not stored here', async () => {
    const db = await freshDb();
    const { log, a, b } = twoRounds('run-prompt-0002');
    await ingestEvents(db, log.events.filter((e) => e !== a));
    const result = await examplePrompt(db, (await db.learning_examples.get(b.id))!);
    expect(result).toMatchObject({ ok: false });
    expect(result.ok ? '' : result.message).toContain('review example, which is not here');
    db.close();
  });
});
