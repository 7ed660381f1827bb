import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RunEvent } from '@shared/contracts/events';
import { deriveSupervision } from './derive-supervision';
import { SKIP_REASON, supervisedTrace } from './testing/supervised-trace';

const supervisorEvents = (events: RunEvent[]) => events.filter((e) => e.type.startsWith('supervisor.'));

describe('deriveSupervision', () => {
  it('an unsupervised run (no supervisor events) shows nothing: no entries, no badges, not supervised', () => {
    const events = supervisedTrace().filter((e) => !e.type.startsWith('supervisor.'));
    expect(deriveSupervision(events)).toEqual({ entries: [], byNode: {}, skips: [], decisions: 0, cost_usd: 0, supervised: false });
  });

  it('a skip verdict pairs with its escalation: one feed entry, a skip badge on the node with who decided, the skip itemized with its lineage and reason', () => {
    const view = deriveSupervision(supervisedTrace({ cost: 0.0125 }));
    expect(view.entries).toHaveLength(1);
    expect(view.entries[0]).toMatchObject({ node: 'work', invocation_id: 'work[each=1]', lineage: [{ iterate: 'each', index: 1 }], next: 'skip', verdict: { decided_by: 'agent', verdict: { action: 'skip' } } });
    expect(view.byNode.work).toEqual({ deciding: 0, waiting_for_person: 0, verdicts: { skip: { count: 1, decided_by: ['agent'] } } });
    expect(view.skips).toEqual([{ node: 'work', lineage: [{ iterate: 'each', index: 1 }], reason: SKIP_REASON, decided_by: 'agent' }]);
    expect(view).toMatchObject({ decisions: 1, cost_usd: 0.0125, supervised: true });
  });

  it('an escalation with no verdict yet is the node deciding, and the run is not yet supervised', () => {
    const view = deriveSupervision(supervisedTrace({ verdict: null }));
    expect(view.byNode.work).toEqual({ deciding: 1, waiting_for_person: 0, verdicts: {} });
    expect(view.entries[0]?.verdict).toBeUndefined();
    expect(view).toMatchObject({ supervised: false, decisions: 0 });
  });

  it('a verdict decided by a bound costs no decision (no supervisor turn) and keeps its decided_by on the badge', () => {
    const events = supervisedTrace({ verdict: { action: 'fail', reason: 'the supervisor’s decisions are used up' }, decidedBy: 'bounds' }).map((e) =>
      e.type === 'supervisor.verdict' ? { ...e, verdict: { ...e.verdict, turns: 0 } } : e,
    );
    const view = deriveSupervision(events);
    expect(view.byNode.work?.verdicts.fail).toEqual({ count: 1, decided_by: ['bounds'] });
    expect(view).toMatchObject({ decisions: 0, skips: [] });
  });

  it('a verdict whose escalation is not in the trace (a cut trace) is still listed under its node', () => {
    const view = deriveSupervision(supervisedTrace().filter((e) => e.type !== 'supervisor.escalated'));
    expect(view.entries).toMatchObject([{ node: 'work', invocation_id: 'work[each=1]', next: 'skip' }]);
    expect(view.entries[0]?.escalation).toBeUndefined();
    expect(view.byNode.work?.verdicts.skip?.count).toBe(1);
  });

  it('the same events in any order and with duplicates give the same view (events arrive live, replays repeat them)', () => {
    const events = supervisedTrace({ cost: 0.5 });
    const expected = deriveSupervision(events);
    fc.assert(
      fc.property(fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }), fc.array(fc.constantFrom(...supervisorEvents(events)), { maxLength: 4 }), (shuffled, dupes) => {
        expect(deriveSupervision([...shuffled, ...dupes])).toEqual(expected);
      }),
    );
  });

  it('over many escalations, decisions and cost are the sums over verdicts with turns, entries stay in the order raised', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ turns: fc.nat({ max: 3 }), cost: fc.double({ min: 0, max: 1, noNaN: true }), skip: fc.boolean() }), { minLength: 1, maxLength: 8 }), (specs) => {
        const base = supervisedTrace();
        const esc = base.find((e) => e.type === 'supervisor.escalated');
        const ver = base.find((e) => e.type === 'supervisor.verdict');
        if (esc?.type !== 'supervisor.escalated' || ver?.type !== 'supervisor.verdict') throw new Error('fixture');
        const events: RunEvent[] = specs.flatMap((s, i) => {
          const id = `work[each=${i}]#1`;
          return [
            { ...esc, id: `r:${2 * i}`, seq: 2 * i, escalation: { ...esc.escalation, id, correlation_lineage: [{ iterate: 'each', index: i }] } },
            { ...ver, id: `r:${2 * i + 1}`, seq: 2 * i + 1, verdict: { ...ver.verdict, escalation_id: id, turns: s.turns, cost_usd: s.cost, verdict: s.skip ? { action: 'skip', reason: 'x' } : { action: 'fail', reason: 'y' } } },
          ];
        });
        const view = deriveSupervision([...events].reverse());
        expect(view.decisions).toBe(specs.filter((s) => s.turns > 0).length);
        expect(view.cost_usd).toBeCloseTo(specs.reduce((a, s) => a + s.cost, 0), 9);
        expect(view.entries.map((e) => e.lineage[0]?.index)).toEqual(specs.map((_, i) => i));
        expect(view.skips.map((s) => s.lineage[0]?.index)).toEqual(specs.flatMap((s, i) => (s.skip ? [i] : [])));
      }),
    );
  });
});
