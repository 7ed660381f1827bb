import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '@shared/contracts/events';
import { Outbox } from './outbox';

const RUN = 'run-outbox-test';

function roundStarted(seq: number): RunEvent {
  return { type: 'round.started', id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString(), round: seq, proposer: 'student' };
}

const ids = (events: RunEvent[]) => events.map((event) => event.id);

describe('Outbox', () => {
  let dir: string;
  let journal: string;
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-outbox-'));
    journal = path.join(dir, 'nested', 'outbox.jsonl');
    logs.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an appended event is on disk before any subscriber hears of it', () => {
    const outbox = Outbox.open(journal, { log });
    const seenOnDisk: string[] = [];
    outbox.subscribe(() => seenOnDisk.push(fs.readFileSync(journal, 'utf8')));
    outbox.append([roundStarted(1)]);
    expect(seenOnDisk).toHaveLength(1);
    expect(seenOnDisk[0]).toContain(eventId(RUN, 1));
    outbox.close();
  });

  it('remembers where an unfinished run stands even after its events are acknowledged and compacted away', () => {
    const outbox = Outbox.open(journal, { log, compactThreshold: 1 });
    outbox.append([roundStarted(0), roundStarted(1), roundStarted(2)]);
    outbox.ack(ids(outbox.pending())); // threshold 1: compacts now
    expect(outbox.pending()).toEqual([]);
    expect(outbox.openRuns()).toEqual([{ run_id: RUN, next_seq: 3, rounds: 0 }]);
    outbox.close();

    const reopened = Outbox.open(journal, { log });
    expect(reopened.openRuns()).toEqual([{ run_id: RUN, next_seq: 3, rounds: 0 }]);
    const finished: RunEvent = { type: 'run.finished', id: eventId(RUN, 3), run_id: RUN, seq: 3, ts: new Date(0).toISOString(), status: 'completed', rounds: 1, event_count: 4 };
    reopened.append([finished]);
    expect(reopened.openRuns()).toEqual([]);
    reopened.close();
    expect(Outbox.open(journal, { log }).openRuns()).toEqual([]);
  });

  it('pending lists unacknowledged events in append order', () => {
    const outbox = Outbox.open(journal, { log });
    outbox.append([roundStarted(3), roundStarted(1)]);
    outbox.append([roundStarted(2)]);
    expect(ids(outbox.pending())).toEqual([eventId(RUN, 3), eventId(RUN, 1), eventId(RUN, 2)]);
    outbox.close();
  });

  it('acking counts only newly acknowledged ids and ignores unknown ones', () => {
    const outbox = Outbox.open(journal, { log });
    outbox.append([roundStarted(1), roundStarted(2), roundStarted(3)]);
    expect(outbox.ack([eventId(RUN, 2), 'nobody:000001', eventId(RUN, 2)])).toBe(1);
    expect(outbox.ack([eventId(RUN, 2)])).toBe(0);
    expect(ids(outbox.pending())).toEqual([eventId(RUN, 1), eventId(RUN, 3)]);
    outbox.close();
  });

  it('a repeated event id is appended once', () => {
    const outbox = Outbox.open(journal, { log });
    expect(outbox.append([roundStarted(1), roundStarted(1)])).toBe(1);
    expect(outbox.append([roundStarted(1)])).toBe(0);
    expect(outbox.pending()).toHaveLength(1);
    outbox.close();
  });

  it('an invalid event is refused and nothing of its batch is written', () => {
    const outbox = Outbox.open(journal, { log });
    const broken = { ...roundStarted(2), proposer: 'committee' } as unknown as RunEvent;
    expect(() => outbox.append([roundStarted(1), broken])).toThrow();
    expect(outbox.pending()).toEqual([]);
    outbox.close();
    const reopened = Outbox.open(journal, { log });
    expect(reopened.pending()).toEqual([]);
    reopened.close();
  });

  it('reopening restores exactly the pending events, acked ones stay gone', () => {
    const first = Outbox.open(journal, { log });
    first.append([roundStarted(1), roundStarted(2), roundStarted(3), roundStarted(4)]);
    first.ack([eventId(RUN, 1), eventId(RUN, 3)]);
    first.close();

    const reopened = Outbox.open(journal, { log });
    expect(reopened.pending()).toEqual([roundStarted(2), roundStarted(4)]);
    expect(reopened.loadReport).toEqual({ pending: 2, invalidLines: 0, tornTail: false });
    reopened.close();
  });

  it('opening compacts the journal down to the pending events', () => {
    const first = Outbox.open(journal, { log });
    first.append([roundStarted(1), roundStarted(2)]);
    first.ack([eventId(RUN, 1)]);
    first.close();
    expect(fs.readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(3);

    Outbox.open(journal, { log }).close();
    const lines = fs.readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown);
    // The run's cursor (it has no run.finished yet), then the one pending event.
    expect(lines).toEqual([{ k: 'run', run_id: RUN, next_seq: 3, rounds: 0 }, { k: 'event', event: roundStarted(2) }]);
  });

  it('acked entries past the threshold are compacted away while running', () => {
    const outbox = Outbox.open(journal, { log, compactThreshold: 4 });
    outbox.append([roundStarted(1), roundStarted(2), roundStarted(3)]);
    outbox.ack([eventId(RUN, 1)]); // 2 acked entries (event + ack line): below the threshold
    expect(fs.readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(4);
    outbox.ack([eventId(RUN, 2)]); // 4: compacts
    const lines = fs.readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { k: string; event?: RunEvent });
    expect(lines.filter((l) => l.k === 'event').map((l) => l.event?.id)).toEqual([eventId(RUN, 3)]);
    // Still appendable after the rewrite, and the journal still reloads.
    outbox.append([roundStarted(4)]);
    outbox.close();
    const reopened = Outbox.open(journal, { log });
    expect(ids(reopened.pending())).toEqual([eventId(RUN, 3), eventId(RUN, 4)]);
    reopened.close();
    expect(fs.readdirSync(path.dirname(journal)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a torn last line from a crash mid-append is skipped and later appends stay readable', () => {
    const first = Outbox.open(journal, { log });
    first.append([roundStarted(1)]);
    first.close();
    const torn = JSON.stringify({ k: 'event', event: roundStarted(2) }).slice(0, 40);
    fs.appendFileSync(journal, torn);

    const reopened = Outbox.open(journal, { log });
    expect(reopened.loadReport).toEqual({ pending: 1, invalidLines: 0, tornTail: true });
    reopened.append([roundStarted(3)]);
    reopened.close();
    const third = Outbox.open(journal, { log });
    expect(ids(third.pending())).toEqual([eventId(RUN, 1), eventId(RUN, 3)]);
    third.close();
  });

  it('invalid journal lines are skipped, counted and kept aside, never a crash', () => {
    const good = JSON.stringify({ k: 'event', event: roundStarted(1) });
    const wrongSchema = JSON.stringify({ k: 'event', event: { ...roundStarted(2), type: 'round.exploded' } });
    fs.mkdirSync(path.dirname(journal), { recursive: true });
    fs.writeFileSync(journal, ['{not json', good, wrongSchema, '[]', ''].join('\n'));

    const outbox = Outbox.open(journal, { log });
    expect(outbox.loadReport).toEqual({ pending: 1, invalidLines: 3, tornTail: false });
    expect(ids(outbox.pending())).toEqual([eventId(RUN, 1)]);
    expect(fs.readFileSync(`${journal}.invalid`, 'utf8').trim().split('\n')).toHaveLength(3);
    expect(logs.some((line) => line.includes('3 invalid'))).toBe(true);
    outbox.close();
  });

  it('an unsubscribed listener hears nothing, and a throwing listener does not starve the others', () => {
    const outbox = Outbox.open(journal, { log });
    const heard: string[][] = [];
    const unsubscribe = outbox.subscribe((events) => heard.push(ids(events)));
    outbox.subscribe(() => {
      throw new Error('listener broke');
    });
    const late: string[][] = [];
    outbox.subscribe((events) => late.push(ids(events)));
    outbox.append([roundStarted(1)]);
    unsubscribe();
    outbox.append([roundStarted(2)]);
    expect(heard).toEqual([[eventId(RUN, 1)]]);
    expect(late).toEqual([[eventId(RUN, 1)], [eventId(RUN, 2)]]);
    expect(logs.filter((line) => line.includes('listener broke'))).toHaveLength(2);
    outbox.close();
  });

  it('a closed outbox refuses appends and acks with a clear error', () => {
    const outbox = Outbox.open(journal, { log });
    outbox.close();
    expect(() => outbox.append([roundStarted(1)])).toThrow(/closed/);
    expect(() => outbox.ack(['x'])).toThrow(/closed/);
  });
});
