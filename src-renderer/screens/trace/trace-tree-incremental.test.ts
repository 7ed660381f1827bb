import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunEvent } from '@shared/contracts/events';
import { eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound, blockedRound, type EventLog } from '../../testing/event-fixtures';
import { summaryRegressionRun } from '../../testing/scs-fixtures';
import { triageRun } from '../../testing/workflow-fixtures';
import triageJson from '../../testing/recorded/folder-triage.events.json';
import debateJson from '../../testing/recorded/pattern-debate.events.json';
import { buildTraceTree, TraceTreeBuilder, type TraceNode, type TraceTree } from './trace-tree';
import { nextTree } from './use-trace-tree';

// Issue 9 leftover: a live run's trace tree is kept as batches arrive, not rebuilt from scratch on every one.
const recordedTriage = RunEvent.array().parse(triageJson);
const recordedDebate = RunEvent.array().parse(debateJson);

/** Everything a person sees of a tree, in order (spans' ids, labels, details, times, counts; events; usage). */
function shape(tree: TraceTree): unknown {
  const node = (n: TraceNode): unknown =>
    n.kind === 'event' ? ['event', n.id, n.layer, n.start, n.end] : ['span', n.id, n.label, n.detail, n.start, n.end, n.events, n.children.map(node)];
  return { children: tree.children.map(node), start: tree.start, end: tree.end, types: tree.types, layers: tree.layers, usage: [...tree.usage].sort(([a], [b]) => a.localeCompare(b)) };
}

function agentRun(rounds: number): RunEvent[] {
  const log: EventLog = eventLog('run-incremental-01');
  startRun(log);
  const kinds = [readExecutedRound, writeReplacedRound, blockedRound];
  for (let i = 0; i < rounds; i++) kinds[i % kinds.length]!(log, i);
  finishRun(log, 'completed', rounds);
  return log.events;
}

const traces: Record<string, () => RunEvent[]> = {
  agent: () => agentRun(7),
  scs: () => summaryRegressionRun().events,
  workflow: () => {
    const log = eventLog('run-incremental-wf');
    triageRun(log);
    return log.events;
  },
  recorded: () => recordedTriage,
  pattern: () => recordedDebate,
};

describe('the trace tree kept as batches arrive', () => {
  it('after every batch it is the tree built from scratch over the same events, however the run is cut into batches (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(traces)), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }), (kind, sizes) => {
        const events = [...traces[kind]!()].sort((a, b) => a.seq - b.seq);
        let kept: ReturnType<typeof nextTree> | undefined;
        let upTo = 0;
        for (let i = 0; upTo < events.length; i++) {
          upTo = Math.min(events.length, upTo + sizes[i % sizes.length]!);
          // Each live query reads new objects: the hook knows events by id.
          const prefix = events.slice(0, upTo).map((e) => ({ ...e }));
          kept = nextTree(kept, prefix);
          expect(shape(kept.builder.tree())).toEqual(shape(buildTraceTree(prefix)));
        }
      }),
      { numRuns: 80 },
    );
  });

  it('a batch costs the same work behind 2n rounds as behind n: only its own events are placed (counting, not timing)', () => {
    const costOfLastRound = (rounds: number) => {
      const events = agentRun(rounds + 1);
      const lastRound = events.findIndex((e) => 'round' in e && e.round === rounds);
      let kept = nextTree(undefined, events.slice(0, lastRound));
      const builder = kept.builder;
      const before = builder.work;
      kept = nextTree(kept, events.slice(0, events.length));
      expect(kept.builder).toBe(builder); // continued, not rebuilt
      return { batch: events.length - lastRound, work: builder.work - before, rebuild: TraceTreeBuilder.of(events).work };
    };
    // n = 99: the round added is of the same kind at both sizes (the kinds take turns by three).
    const small = costOfLastRound(99);
    const large = costOfLastRound(198);
    expect(large.batch).toBe(small.batch);
    expect(large.work).toBe(small.work);
    expect(small.work).toBeLessThanOrEqual(small.batch * 3);
    // Building from scratch instead grows with the run: about twice the work at twice the rounds.
    expect(large.rebuild / small.rebuild).toBeGreaterThan(1.8);
  });

  it('events that do not follow the ones placed (a gap filled, a deletion) build the tree again, and it is still right', () => {
    const events = agentRun(5);
    const kept = nextTree(undefined, events.filter((_, i) => i !== 10));
    const filled = nextTree(kept, events);
    expect(filled.builder).not.toBe(kept.builder);
    expect(shape(filled.builder.tree())).toEqual(shape(buildTraceTree(events)));
    const shorter = nextTree(filled, events.slice(0, 20));
    expect(shorter.builder).not.toBe(filled.builder);
    expect(shape(shorter.builder.tree())).toEqual(shape(buildTraceTree(events.slice(0, 20))));
  });
});

describe('a pattern node in the trace tree', () => {
  it('nests each iteration, and in it each member’s run with its own rounds (members all count rounds from 1)', () => {
    const tree = buildTraceTree(recordedDebate);
    const node = tree.children.find((n) => n.kind === 'span' && n.label === 'decision');
    expect(node?.kind).toBe('span');
    const iterations = node?.kind === 'span' ? node.children.filter((n) => n.kind === 'span' && n.layer === 'pattern') : [];
    expect(iterations.map((n) => (n.kind === 'span' ? n.label : ''))).toEqual(['Iteration 1', 'Iteration 2']);
    const first = iterations[0];
    const members = first?.kind === 'span' ? first.children.filter((n) => n.kind === 'span') : [];
    expect(members.map((n) => (n.kind === 'span' ? `${n.label}: ${n.children.filter((c) => c.kind === 'span').map((c) => (c.kind === 'span' ? c.label : '')).join(', ')}` : ''))).toEqual([
      'proponent: Round 1',
      'opponent: Round 1',
    ]);
    // The iteration's own record and the judgment on it sit in the iteration, after its members.
    const own = first?.kind === 'span' ? first.children.filter((n) => n.kind === 'event').map((n) => (n.kind === 'event' ? n.event.type : '')) : [];
    expect(own).toEqual(expect.arrayContaining(['pattern.iteration', 'pattern.judgment']));
    expect(tree.layers).toContain('pattern');
  });
});
