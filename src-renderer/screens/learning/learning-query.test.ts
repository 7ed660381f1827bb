import { describe, expect, it } from 'vitest';
import { eventId, RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { HostedExample, HostParams, HostResult } from '@shared/contracts/host-api';
import { examplesForExport, examplesQuery, queryExamples, type AskExamples } from './learning-query';

/** The Learning screen asks the host's history (issue 26): the filter as the host's query, pages followed, the export whole and oldest first. */

const event = (i: number): RunEventOf<'learning.example'> =>
  RunEvent.parse({
    type: 'learning.example',
    id: eventId('run-query-0001', i),
    run_id: 'run-query-0001',
    seq: i,
    ts: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    round: i,
    kind: 'review',
    context: i === 0 ? [{ role: 'user', content: 'Tidy' }] : [{ role: 'tool', content: `result ${i}` }],
    ...(i > 0 ? { context_ref: { round: i - 1, kind: 'review', start: 0, end: i } } : {}),
    reason_codes: [],
    agreement: true,
    models: { student: 'replay', teacher: 'replay' },
  }) as RunEventOf<'learning.example'>;

/** A host holding `n` examples, newest first by default, in pages of its `limit`, counting what it was asked. */
function scriptedHost(n: number) {
  const asked: HostParams<'learning.examples'>[] = [];
  const all: HostedExample[] = Array.from({ length: n }, (_, i) => ({ event: event(i), spec_id: 'notes-cleanup' }));
  const ask: AskExamples = async (params) => {
    asked.push(params);
    const ordered = params.order === 'oldest' ? all : [...all].reverse();
    const from = params.after ? ordered.findIndex((x) => x.event.id === params.after!.id) + 1 : 0;
    const page = ordered.slice(from, from + params.limit).map((x) => (params.whole ? { ...x, context: [{ role: 'user' as const, content: `whole ${x.event.seq}` }] } : x));
    const last = page.at(-1);
    const result: HostResult<'learning.examples'> = { examples: page, total: n, ...(from + params.limit < n && last ? { next: { ts: last.event.ts, id: last.event.id } } : {}) };
    return result;
  };
  return { ask, asked };
}

describe('the Learning list asks the host', () => {
  it('sends only the filters chosen, as the host’s query takes them', () => {
    expect(examplesQuery({ workflow: 'all', kind: 'all', verdict: 'all', agreed: 'all' })).toEqual({});
    expect(examplesQuery({ workflow: 'notes-cleanup', kind: 'shadow', verdict: 'none', agreed: 'no' })).toEqual({ workflow: 'notes-cleanup', kind: 'shadow', verdict: 'none', agreed: false });
  });

  it('a list of `limit` rows follows the host’s pages until it has them, newest first, and says how many the history holds', async () => {
    const { ask, asked } = scriptedHost(1_234);
    const found = await queryExamples(ask, { workflow: 'all', kind: 'all', verdict: 'all', agreed: 'all' }, 1_100);
    expect(found.total).toBe(1_234);
    expect(found.rows.map((r) => r.seq)).toEqual(Array.from({ length: 1_100 }, (_, i) => 1_233 - i));
    expect(asked.map((p) => p.limit)).toEqual([500, 500, 100]);
    // Rows keep the prompt as recorded (by reference): the host rebuilds it when one is opened.
    expect(found.rows[0]).toMatchObject({ spec_id: 'notes-cleanup', context_ref: { round: 1_232 } });
  });

  it('the export takes every match, oldest first, each with the whole prompt the host rebuilt', async () => {
    const { ask, asked } = scriptedHost(250);
    const examples = await examplesForExport(ask, { workflow: 'notes-cleanup', kind: 'all', verdict: 'all', agreed: 'all' });
    expect(examples).toHaveLength(250);
    expect(examples.map((e) => e.round)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(examples[7]!.context).toEqual([{ role: 'user', content: 'whole 7' }]);
    expect(asked.every((p) => p.whole === true && p.order === 'oldest' && p.workflow === 'notes-cleanup')).toBe(true);
  });
});
