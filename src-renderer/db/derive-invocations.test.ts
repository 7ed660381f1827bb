import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { INVOCATION_STATUSES, type InvocationStatus } from '@shared/workflow/invocation';
import { deriveInvocations, invocationLabel, nodeStates, type InvocationView } from './derive-invocations';
import { eventLog } from '../testing/event-fixtures';
import { agentAsks, agentRun, item, nodeStatus, startWorkflow, triageRun } from '../testing/workflow-fixtures';

function triage() {
  const log = eventLog('run-wf-derive-01');
  triageRun(log);
  return log.events;
}

describe('deriveInvocations', () => {
  it('lists one view per invocation, each item under its iterate with its lineage, kind and label', () => {
    const views = deriveInvocations(triage());
    expect(views.map((v) => [v.id, v.depth])).toEqual([
      ['folder', 0],
      ['list', 0],
      ['files', 0],
      ['classify[files=0]', 1],
      ['check[files=0]', 1],
      ['classify[files=1]', 1],
      ['check[files=1]', 1],
      ['gather', 0],
      ['report', 0],
    ]);
    const c1 = views.find((v) => v.id === 'classify[files=1]');
    expect(c1).toMatchObject({ node: 'classify', kind: 'agent', label: 'Classify', lineage: item(1), parent: 'files', status: 'done', inputs: { item: 'b.md' }, outputs: { output: 'secret' }, rounds: 2 });
    expect(invocationLabel(c1 as InvocationView)).toBe('Classify · item 2');
    expect(views.find((v) => v.id === 'files')).toMatchObject({ kind: 'iterate', label: 'files', rounds: 0 });
  });

  it('keeps a failure, and the times the invocation started and ended', () => {
    const events = triage();
    const failed = deriveInvocations(events).find((v) => v.id === 'check[files=1]');
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'assert_failed' }, inputs: { value: 'secret' } });
    const running = events.find((e) => e.type === 'node.invocation' && e.invocation_id === 'check[files=1]' && e.status === 'running');
    const end = events.find((e) => e.type === 'node.invocation' && e.invocation_id === 'check[files=1]' && e.status === 'failed');
    expect(failed?.started_at).toBe(running?.ts);
    expect(failed?.finished_at).toBe(end?.ts);
  });

  it('gives the same views whatever order the events arrive in, and with every event twice', () => {
    const events = triage();
    const expected = deriveInvocations(events);
    fc.assert(
      fc.property(fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }), fc.boolean(), (shuffled, twice) => {
        expect(deriveInvocations(twice ? [...shuffled, ...shuffled.slice().reverse()] : shuffled)).toEqual(expected);
      }),
      { numRuns: 50 },
    );
  });

  it('a replayed earlier status never undoes a later one', () => {
    const log = eventLog('run-wf-derive-02');
    startWorkflow(log);
    nodeStatus(log, 'list', 'running', { inputs: { path: 'notes' } });
    nodeStatus(log, 'list', 'done', { outputs: { result: [] } });
    const [first, ...rest] = log.events.slice(1);
    const views = deriveInvocations([...log.events, ...(first ? [first] : []), ...rest.reverse()]);
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ status: 'done', inputs: { path: 'notes' }, outputs: { result: [] } });
  });

  it('an item whose iterate has not been seen yet is still listed, at the top level', () => {
    const log = eventLog('run-wf-derive-03');
    startWorkflow(log);
    nodeStatus(log, 'classify', 'running', { lineage: item(4), inputs: { item: 'e.md' } });
    const [view] = deriveInvocations(log.events);
    expect(view).toMatchObject({ id: 'classify[files=4]', depth: 0, status: 'running' });
    expect(invocationLabel(view as InvocationView)).toBe('Classify · item 5');
  });

  it('marks an agent node waiting for a person with its open intervention, and counts its rounds live', () => {
    const log = eventLog('run-wf-derive-04');
    startWorkflow(log);
    const id = nodeStatus(log, 'classify', 'running', { lineage: item(0), inputs: { item: 'a.md' } });
    agentRun(log, id, 1, { finish: false });
    const asked = agentAsks(log, id, 1);
    nodeStatus(log, 'classify', 'waiting', { lineage: item(0) });
    const [view] = deriveInvocations(log.events);
    expect(view).toMatchObject({ status: 'waiting', rounds: 1, intervention: { id: asked.id } });
  });

  it('keeps which of its values the host stored trimmed, with their full sizes', () => {
    const log = eventLog('run-wf-derive-05');
    startWorkflow(log);
    nodeStatus(log, 'list', 'running', { inputs: { path: 'notes' } });
    const done = log.add({ type: 'node.invocation', invocation_id: 'list', node: 'list', lineage: [], status: 'done', outputs: { text: 'x…' }, trimmed: [{ path: 'outputs.text', original_bytes: 200_000 }] });
    const [view] = deriveInvocations([...log.events, done]);
    expect(view?.trimmed).toEqual([{ path: 'outputs.text', original_bytes: 200_000 }]);
  });

  it('an invocation still running when the run ended (a host stop) is cut off, and its node no longer shows running', () => {
    const log = eventLog('run-wf-derive-06');
    startWorkflow(log);
    nodeStatus(log, 'list', 'running', { inputs: { path: 'notes' } });
    nodeStatus(log, 'list', 'done', { outputs: { result: [] } });
    nodeStatus(log, 'classify', 'running', { lineage: item(0), inputs: { item: 'a.md' } });
    const live = deriveInvocations(log.events);
    expect(live.find((v) => v.node === 'classify')?.cut_off).toBeUndefined();
    expect(nodeStates(live).classify?.status).toBe('running');
    log.add({ type: 'run.finished', status: 'interrupted', message: 'The Steward host stopped', rounds: 0, event_count: log.events.length + 1 });
    const ended = deriveInvocations(log.events);
    expect(ended.find((v) => v.node === 'classify')).toMatchObject({ status: 'running', cut_off: true });
    expect(ended.find((v) => v.node === 'list')?.cut_off).toBeUndefined();
    expect(nodeStates(ended).classify).toEqual({ status: 'cancelled', counts: { cancelled: 1 }, total: 1 });
  });

  it('lists nothing for an agent run (no node invocations)', () => {
    const log = eventLog('run-agent-only-1');
    expect(deriveInvocations(log.events)).toEqual([]);
  });
});

describe('nodeStates', () => {
  it('counts every invocation of a node and reports the one status that needs attention first', () => {
    const states = nodeStates(deriveInvocations(triage()));
    expect(states.check).toEqual({ status: 'failed', counts: { done: 1, failed: 1 }, total: 2 });
    expect(states.classify).toEqual({ status: 'done', counts: { done: 2 }, total: 2 });
    expect(states.report).toEqual({ status: 'done', counts: { done: 1 }, total: 1 });
  });

  it('aggregates by precedence waiting > running > failed > pending > cancelled > skipped > done', () => {
    const order: InvocationStatus[] = ['waiting', 'running', 'failed', 'pending', 'cancelled', 'skipped', 'done'];
    expect([...order].sort()).toEqual([...INVOCATION_STATUSES].sort());
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...INVOCATION_STATUSES), { minLength: 1, maxLength: 20 }), (statuses) => {
        const views = statuses.map((status, index) => ({ ...view('n', index), status }));
        const state = nodeStates(views).n;
        const expected = order.find((s) => statuses.includes(s));
        expect(state?.status).toBe(expected);
        expect(state?.total).toBe(statuses.length);
        expect(Object.values(state?.counts ?? {}).reduce((a, b) => a + b, 0)).toBe(statuses.length);
      }),
    );
  });
});

function view(node: string, index: number): InvocationView {
  return { id: `${node}[it=${index}]`, node, label: node, lineage: [{ iterate: 'it', index }], depth: 1, status: 'pending', rounds: 0, first_seq: index, status_seq: index };
}
