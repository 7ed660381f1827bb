import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunEvent } from '@shared/contracts/events';
import { blockedRound, eventLog, finishRun, invalidCandidateRound, readExecutedRound, startRun, writeReplacedRound, type EventLog } from '../../testing/event-fixtures';
import { summaryRegressionRun } from '../../testing/scs-fixtures';
import { triageRun } from '../../testing/workflow-fixtures';
import triageJson from '../../testing/recorded/folder-triage.events.json';
import { threeRoundRun } from './trace-fixtures';
import { buildTraceTree, type TraceNode, type TraceSpan, type TraceTree } from './trace-tree';
import { NO_FILTER, allSpanIds, ancestorsOf, treeMove, visibleRows } from './trace-rows';

const recordedTriage = RunEvent.array().parse(triageJson);

function leaves(nodes: readonly TraceNode[]): TraceNode[] {
  return nodes.flatMap((n) => (n.kind === 'event' ? [n] : leaves(n.children)));
}
function spans(nodes: readonly TraceNode[]): TraceSpan[] {
  return nodes.flatMap((n) => (n.kind === 'span' ? [n, ...spans(n.children)] : []));
}
/** The labels from the top to the node holding the event of `type` (the first one). */
function pathTo(tree: TraceTree, predicate: (n: TraceNode) => boolean): string[] {
  const walk = (nodes: readonly TraceNode[], path: string[]): string[] | undefined => {
    for (const n of nodes) {
      if (predicate(n)) return path;
      if (n.kind === 'span') {
        const found = walk(n.children, [...path, n.label]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(tree.children, []) ?? ['(not found)'];
}
const isType = (type: string) => (n: TraceNode) => n.kind === 'event' && n.event.type === type;

const ROUNDS = [readExecutedRound, writeReplacedRound, blockedRound, invalidCandidateRound] as const;

/** A run of random rounds, or the SCS run, or a workflow run (fixture or recorded); timestamps jittered, order shuffled. */
const anyTrace = fc
  .record({
    kind: fc.constantFrom('agent', 'scs', 'workflow', 'recorded'),
    rounds: fc.array(fc.integer({ min: 0, max: ROUNDS.length - 1 }), { minLength: 0, maxLength: 8 }),
    jitter: fc.array(fc.integer({ min: -5_000, max: 5_000 }), { minLength: 1, maxLength: 30 }),
    latency: fc.array(fc.option(fc.integer({ min: 0, max: 20_000 })), { minLength: 1, maxLength: 10 }),
    seed: fc.integer(),
  })
  .map(({ kind, rounds, jitter, latency, seed }) => {
    let events: RunEvent[];
    if (kind === 'scs') events = summaryRegressionRun().events;
    else if (kind === 'recorded') events = recordedTriage;
    else {
      const log: EventLog = eventLog('prop-run-01');
      if (kind === 'workflow') triageRun(log);
      else {
        startRun(log);
        rounds.forEach((r, i) => ROUNDS[r]!(log, i));
        finishRun(log, 'completed', rounds.length);
      }
      events = log.events;
    }
    const stamped = events.map((e, i) => {
      const shifted = new Date(Date.parse(e.ts) + jitter[i % jitter.length]!).toISOString();
      const ms = latency[i % latency.length];
      const timed = e.type === 'candidate.proposed' && ms !== null && ms !== undefined ? { ...e, reply: { ...e.reply, latency_ms: ms } } : e;
      return { ...timed, ts: shifted };
    });
    // Any arrival order: the tree is built in sequence order whatever it is given.
    return fc.sample(fc.shuffledSubarray(stamped, { minLength: stamped.length, maxLength: stamped.length }), { numRuns: 1, seed })[0]!;
  });

describe('the trace tree', () => {
  it('holds every event exactly once, and every span holds its children’s time (property)', () => {
    fc.assert(
      fc.property(anyTrace, (events) => {
        const tree = buildTraceTree(events);
        const ids = leaves(tree.children).map((n) => n.id);
        expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
        for (const span of spans(tree.children)) {
          expect(span.children.length).toBeGreaterThan(0);
          expect(span.events).toBe(leaves(span.children).length);
          for (const child of span.children) {
            expect(child.start).toBeGreaterThanOrEqual(span.start);
            expect(child.end).toBeLessThanOrEqual(span.end);
            expect(child.start).toBeLessThanOrEqual(child.end);
          }
        }
        for (const top of tree.children) {
          expect(top.start).toBeGreaterThanOrEqual(tree.start);
          expect(top.end).toBeLessThanOrEqual(tree.end);
        }
        // Fully open and unfiltered, the rows are the tree: each node once.
        const rows = visibleRows(tree, new Set(), NO_FILTER);
        expect(rows.length).toBe(events.length + spans(tree.children).length);
        // Collapsed everywhere, only the top level is left.
        expect(visibleRows(tree, new Set(allSpanIds(tree)), NO_FILTER).length).toBe(tree.children.length);
      }),
      { numRuns: 60 },
    );
  });

  it('nests an agent run’s events by round, and a round’s by step; run-level events stay at the top', () => {
    const log = threeRoundRun('nest-run-01');
    const tree = buildTraceTree(log.events);
    expect(tree.children.map((n) => (n.kind === 'span' ? n.label : n.event.type))).toEqual(['run.started', 'Round 1', 'Round 2', 'Round 3', 'run.finished']);
    // Two events of one step share a span; a step of one event is that event's row.
    expect(pathTo(tree, isType('candidate.validated'))).toEqual(['Round 1', 'candidate']);
    expect(pathTo(tree, isType('review.decided'))).toEqual(['Round 1']);
    expect(pathTo(tree, (n) => n.kind === 'event' && n.event.type === 'verdict.received' && n.event.round === 2)).toEqual(['Round 3', 'verdict']);
    expect(pathTo(tree, isType('learning.example'))).toEqual(['Round 2']);
    const round3 = tree.children[3] as TraceSpan;
    expect(round3.detail).toBe('blocked');
    expect(round3.events).toBe(log.events.filter((e) => 'round' in e && e.round === 2).length);
    expect(tree.layers).toEqual(['run', 'round', 'candidate', 'review', 'verdict', 'decision', 'authorization', 'execution']);
  });

  it('puts an SCS run’s rounds under the phase that was under way when they started, the plan gate with them', () => {
    const tree = buildTraceTree(summaryRegressionRun().events);
    expect(pathTo(tree, isType('scs.enabled'))).toEqual([]);
    expect(pathTo(tree, isType('scs.student.plan_approved'))).toEqual(['Phase 1']);
    // Round 1's tool snapshot came before the phase started; the round (and its snapshot) is still the phase's.
    expect(pathTo(tree, (n) => n.kind === 'event' && n.event.type === 'tools.snapshot' && n.event.round === 0)).toEqual(['Phase 1', 'Round 1']);
    expect(pathTo(tree, (n) => n.kind === 'event' && n.event.type === 'round.completed' && n.event.round === 3)).toEqual(['Phase 1', 'Round 4']);
    const phase = tree.children.find((n): n is TraceSpan => n.kind === 'span' && n.label === 'Phase 1');
    expect(phase?.detail).toBe('Write summary.md from the meeting notes');
    // The plan was approved before round 1 started: the phase lists it first.
    const order = phase?.children.map((n) => (n.kind === 'span' ? n.label : n.event.type)) ?? [];
    expect(order.indexOf('scs.student.plan_approved')).toBeLessThan(order.indexOf('Round 1'));
  });

  it('nests a workflow’s item invocations under their iterate and item, each agent node’s rounds under it', () => {
    const recorded = buildTraceTree(recordedTriage);
    expect(pathTo(recorded, (n) => n.kind === 'event' && n.event.type === 'round.started' && n.event.invocation_id === 'classify[each-file=1]')).toEqual([
      'each-file',
      'each-file item 2',
      'classify[each-file=1]',
      'Round 1',
    ]);
    expect(pathTo(recorded, isType('workflow.started'))).toEqual([]);
    const log = eventLog('wf-nest-01');
    triageRun(log);
    const tree = buildTraceTree(log.events);
    expect(pathTo(tree, (n) => n.kind === 'event' && n.event.type === 'agent.started' && n.event.invocation_id === 'classify[files=1]')).toEqual(['files', 'files item 2', 'classify[files=1]']);
    const list = tree.children.find((n): n is TraceSpan => n.kind === 'span' && n.label === 'list');
    expect(list?.detail).toBe('done');
  });

  it('times a model call from when it was asked: its span starts latency_ms before the reply was recorded', () => {
    const log = eventLog('timed-run-01');
    startRun(log);
    readExecutedRound(log, 0);
    const events = log.events.map((e) => (e.type === 'candidate.proposed' ? { ...e, reply: { ...e.reply, latency_ms: 5_000, usage: { input_tokens: 900, output_tokens: 40 } } } : e));
    const tree = buildTraceTree(events);
    const proposed = leaves(tree.children).find((n) => n.kind === 'event' && n.event.type === 'candidate.proposed')!;
    expect(proposed.end - proposed.start).toBe(5_000);
    const round = tree.children.find((n) => n.kind === 'span')!;
    expect(round.start).toBe(proposed.start);
    expect(tree.start).toBe(proposed.start);
    const executed = leaves(tree.children).find((n) => n.kind === 'event' && n.event.type === 'tool.executed')!;
    expect(executed.end - executed.start).toBe(4);
  });

  it('a model retry goes in the round it happened in', () => {
    const log = eventLog('retry-run-01');
    startRun(log);
    log.add({ type: 'tools.snapshot', round: 0, hash: 'snap-0-000000', tools: [] });
    log.add({ type: 'round.started', round: 0, proposer: 'student' });
    log.add({ type: 'model.retry', role: 'student', model: 'ollama:qwen3', attempt: 1, delay_ms: 500, reason: 'HTTP 503' });
    const tree = buildTraceTree(log.events);
    expect(pathTo(tree, isType('model.retry'))).toEqual(['Round 1']);
  });
});

describe('the trace rows', () => {
  const log = eventLog('rows-run-01');
  startRun(log);
  readExecutedRound(log, 0);
  writeReplacedRound(log, 1);
  finishRun(log, 'completed', 2);
  const tree = buildTraceTree(log.events);

  it('a filter by layer shows only that layer’s events, inside the spans that hold them', () => {
    const rows = visibleRows(tree, new Set(), { types: new Set(), layers: new Set(['verdict']) });
    const events = rows.filter((r) => r.node.kind === 'event');
    expect(events.map((r) => r.node.kind === 'event' && r.node.event.type)).toEqual(['verdict.received']);
    expect(rows.map((r) => (r.node.kind === 'span' ? r.node.label : 'event'))).toEqual(['Round 2', 'event']);
  });

  it('a filter by type shows those events; a cited event shows whatever the filter', () => {
    const byType = visibleRows(tree, new Set(), { types: new Set(['tool.executed']), layers: new Set() });
    expect(byType.filter((r) => r.node.kind === 'event')).toHaveLength(2);
    const cited = log.events.find((e) => e.type === 'candidate.validated' && e.round === 1)!;
    const rows = visibleRows(tree, new Set(), { types: new Set(['tool.executed']), layers: new Set() }, cited.id);
    const executed = byType.filter((r) => r.node.kind === 'event').map((r) => r.node.id);
    expect(rows.filter((r) => r.node.kind === 'event').map((r) => r.node.id)).toEqual([executed[0], cited.id, executed[1]]);
    expect(ancestorsOf(tree, cited.id).map((id) => rows.find((r) => r.node.id === id)?.expanded)).toEqual([true, true]);
  });

  it('the arrow keys and Enter walk the tree as the ARIA tree pattern says', () => {
    const rows = visibleRows(tree, new Set(), NO_FILTER);
    const round = rows.find((r) => r.node.kind === 'span')!;
    expect(treeMove(rows, undefined, 'ArrowDown')).toEqual({ focus: rows[0]!.node.id });
    expect(treeMove(rows, round.node.id, 'ArrowLeft')).toEqual({ collapse: round.node.id });
    expect(treeMove(rows, round.node.id, 'ArrowRight')).toEqual({ focus: rows[rows.indexOf(round) + 1]!.node.id });
    const collapsed = visibleRows(tree, new Set([round.node.id]), NO_FILTER);
    expect(treeMove(collapsed, round.node.id, 'ArrowRight')).toEqual({ expand: round.node.id });
    expect(treeMove(collapsed, round.node.id, 'Enter')).toEqual({ expand: round.node.id });
    const child = rows[rows.indexOf(round) + 2]!;
    expect(treeMove(rows, child.node.id, 'ArrowLeft')).toEqual({ focus: round.node.id });
    expect(treeMove(rows, child.node.id, 'Enter')).toEqual({ toggleEvent: child.node.id });
    expect(treeMove(rows, child.node.id, 'End')).toEqual({ focus: rows.at(-1)!.node.id });
    expect(treeMove(rows, rows[0]!.node.id, 'ArrowUp')).toEqual({ focus: rows[0]!.node.id });
  });
});
