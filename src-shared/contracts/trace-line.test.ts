import { describe, expect, it } from 'vitest';
import { traceLineEvent } from './trace-line';

/** What a person reads when a line of an imported trace is not an event: words, never the schema's text. */
const problemOf = (line: string) => {
  const read = traceLineEvent(line);
  if (read.ok) throw new Error('the line was read');
  return read.problem;
};

/** The schema's own vocabulary, and the event types it would list. */
const SCHEMA_TEXT = /discriminator|Invalid input|expected|received|'run\.started' \||tools\.snapshot/;

describe('a trace line that is not an event', () => {
  it('is said in words, not as a list of every event type, when it has no type or one this version does not know', () => {
    expect(problemOf('{"foo":1}')).toBe('not a Steward event (it has no event type)');
    expect(problemOf('{"type":"bogus.kind"}')).toBe('an event of a kind this version of Steward does not know ("bogus.kind"; a newer version may have written it)');
    expect(problemOf('[1, 2]')).toBe('not a Steward event (each line holds one event, a JSON object)');
    expect(problemOf('"just text"')).toBe('not a Steward event (each line holds one event, a JSON object)');
    for (const line of ['{"foo":1}', '{"type":"bogus.kind"}', '[1, 2]', '{"type":7}']) expect(problemOf(line)).not.toMatch(SCHEMA_TEXT);
  });

  it('names the field at fault of a known event, and says whether it is missing', () => {
    expect(problemOf('{"type":"run.started","run_id":"x"}')).toBe('a "run.started" event this version cannot read (its field "id" is missing; another version of Steward may have written it)');
    const wrong = problemOf(JSON.stringify({ type: 'run.finished', id: 'r1:000001', run_id: 'r1', seq: 'one', ts: '2026-12-01T00:00:00.000Z' }));
    expect(wrong).toMatch(/^a "run\.finished" event this version cannot read \(its field "\w+" (is missing|does not hold what this version expects)/);
    expect(wrong).not.toMatch(SCHEMA_TEXT);
  });

  it('is still "not JSON" when it does not parse', () => {
    expect(problemOf('{"type":')).toBe('not JSON');
  });
});
