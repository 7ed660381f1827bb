import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { describeNodeDifference, invocationCount, nodeDifferencePlace, workflowDifferences } from '@shared/replay/compare-workflow-runs';

/** The folder-triage run the host recorded (src-main/workflow/recorded-runs.test.ts keeps it current). */
const recorded = RunEvent.array().parse(JSON.parse(readFileSync(new URL('../../src-renderer/testing/recorded/folder-triage.events.json', import.meta.url), 'utf8')));

describe('comparing two workflow runs per node invocation', () => {
  it('a run compared with itself has no differences; the count is of every invocation either run has', () => {
    expect(workflowDifferences(recorded, recorded)).toEqual([]);
    expect(invocationCount(recorded, recorded)).toBe(new Set(recorded.flatMap((e) => (e.type === 'node.invocation' ? [e.invocation_id] : []))).size);
  });

  it('an invocation only one run ran ends "not run" in the other, named by node and item (from 1)', () => {
    const without = recorded.filter((e) => e.invocation_id !== 'record[each-file=3]');
    const differences = workflowDifferences(recorded, without);
    expect(differences).toHaveLength(1);
    const [d] = differences;
    if (!d) throw new Error('one difference');
    expect(d).toMatchObject({ kind: 'output', invocation: 'record[each-file=3]', node: 'record', item: 3 });
    expect(d).not.toHaveProperty('replayed');
    expect(nodeDifferencePlace(d)).toBe('record · item 4');
    expect(describeNodeDifference(d)).toMatch(/^ended \{"output":\{"category":"notes","file":".*"\}\} → not run$/);
  });

  it('a verdict that differs in a reviewed tool node is that node’s round, numbered from 1', () => {
    const blocked = recorded.map((e) =>
      e.type === 'verdict.received' && e.invocation_id === 'write' && e.attempt.verdict ? { ...e, attempt: { ...e.attempt, verdict: { ...e.attempt.verdict, verdict: 'block' as const } } } : e,
    );
    const [d] = workflowDifferences(recorded, blocked);
    if (!d) throw new Error('one difference');
    expect(nodeDifferencePlace(d)).toBe('write · round 1');
    expect(describeNodeDifference(d)).toBe('verdict accept → block');
  });
});
