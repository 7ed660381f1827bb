import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { supervisedBy } from '../../../test-support/supervised-by';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE, SHIPPED_EFFECTS } from '@shared/policy/shipped-effects';
import { LOCAL, settings, VERDICTS } from '@shared/supervisor/testing/fixtures';
import { HANG, ScriptedSupervisorDouble } from '@shared/supervisor/testing/scripted-supervisor';
import { WorkflowGraph, type WorkflowGraphInput } from '@shared/workflow/document';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger, type IdempotencyLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';
import type { WorkflowSupervisionOptions } from './workflow-supervision';

/** Supervised workflow runs end to end (issue 11): real scheduler, real MCP filesystem server; the scripted supervisor double stands at the model boundary. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const edge = (from: string, to: string) => {
  const [fn = '', fp = ''] = from.split('.');
  const [tn = '', tp = ''] = to.split('.');
  return { from: { node: fn, port: fp }, to: { node: tn, port: tp } };
};

const graphWith = (id: string, body: Partial<WorkflowGraphInput>): WorkflowGraph => WorkflowGraph.parse({ format: 'steward/v1', kind: 'workflow', id, name: id, ...body });

/** items → iterate → a node per item → collect → output (a failed item is left out of the list, as a skipped one is). */
function fanOut(id: string, work: WorkflowGraphInput['nodes'][number], port: string, extra: Partial<WorkflowGraphInput> = {}): WorkflowGraph {
  return graphWith(id, {
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
      { id: 'each', kind: 'iterate', concurrency: 2 },
      work,
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    edges: [edge('in.items', 'each.list'), edge('each.item', `work.${port}`), edge(`work.${port === 'value' ? 'value' : 'text'}`, 'all.item'), edge('all.list', 'out.list')],
    ...extra,
  });
}

/** `items`: the list to iterate; file names are read in the run's workspace. */
async function run(graph: WorkflowGraph, items: unknown[] | { files: string[] }, supervision?: WorkflowSupervisionOptions) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { items: Array.isArray(items) ? items : items.files.map((f) => join(ws.workspace, f)) }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...(supervision ? { supervision } : {}) });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  return { result, events };
}

const collected = (events: RunEvent[]) => ofType(events, 'node.invocation').find((e) => e.node === 'all' && e.status === 'done')?.outputs;

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);

const readEach = fanOut('read-each', { id: 'work', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } }, 'path', {
  servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
});

const writeEach = fanOut('write-each', { id: 'work', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}', content: 'x' } }, 'path', {
  servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
});

/** An agent node that reads a note, then runs out of rounds without finishing: it fails the same way every attempt. */
function readingAgent(toolEffects: Record<string, { effect: 'read' }> = {}): WorkflowGraph {
  return graphWith('reading-agent', {
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    tool_effects: toolEffects,
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'path', type: 'text' }] },
      {
        id: 'agent',
        kind: 'agent',
        instructions: 'Read the note.',
        task: 'Read {{path}}.',
        inputs: [{ name: 'path', type: 'text' }],
        limits: { max_rounds: 1 },
        script: { student: [{ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '{{path}}' } } }] },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [edge('in.path', 'agent.path'), edge('agent.output', 'out.said')],
  });
}

/** Runs the reading agent on the workspace's ideas.md; `reads`: the agent run (and attempt) of each read claimed in the ledger. */
async function runReadingAgent(graph: WorkflowGraph, supervision: WorkflowSupervisionOptions) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const inner = createMemoryLedger();
  const reads: string[] = [];
  const ledger: IdempotencyLedger = {
    state: (key) => inner.state(key),
    begin: (key, meta) => (inner.begin(key, meta), meta.tool === 'read_text_file' && reads.push(meta.run_id.replace(/^[^:]*:/, '')), undefined),
    finish: (key, outcome) => inner.finish(key, outcome),
  };
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { path: join(ws.workspace, 'ideas.md') }, ledger, onEvent: (e) => events.push(e), supervision });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  return { result, events, reads };
}

const mustSayOk = fanOut('must-say-ok', { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] }, 'value');

describe('a supervised workflow run', () => {
  it('a tool node failing for one item of an iterate is skipped by the supervisor: the collect closes with the other items and the run completes, the skip in the trace', async () => {
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.skip }]);
    const { result, events } = await run(readEach, { files: ['ideas.md', 'missing.md', 'meeting-notes.md'] }, supervision);

    expect(result.status).toBe('completed');
    expect(double.calls).toHaveLength(1);
    expect(double.calls[0]?.input.escalation).toMatchObject({ node: 'work', correlation_lineage: [{ iterate: 'each', index: 1 }], allowed_actions: ['retry', 'skip', 'fail'] });
    expect((collected(events)?.list as string[]).map((t) => t.length > 0)).toEqual([true, true]);
    expect(result.invocations.find((i) => i.id === 'work[each=1]')).toMatchObject({ status: 'skipped', failure: { code: 'supervisor_skipped' } });
    expect(collected(events)).toMatchObject({ left_out: 1 });

    const [escalated] = ofType(events, 'supervisor.escalated');
    const [verdict] = ofType(events, 'supervisor.verdict');
    expect(escalated).toMatchObject({ invocation_id: 'work[each=1]', escalation: { node: 'work' } });
    expect(verdict).toMatchObject({ invocation_id: 'work[each=1]', node: 'work', next: 'skip', verdict: { decided_by: 'agent', verdict: { action: 'skip' } } });
    // In order: the escalation, its verdict, then the node settles skipped.
    const at = (e: RunEvent | undefined) => events.indexOf(e as RunEvent);
    const settled = events.find((e) => e.type === 'node.invocation' && e.invocation_id === 'work[each=1]' && e.status === 'skipped');
    expect(at(escalated)).toBeLessThan(at(verdict));
    expect(at(verdict)).toBeLessThan(at(settled));
  }, 60_000);

  it('a model supervisor\'s escalation is in the trace while it decides: supervisor.escalated is emitted before its verdict exists, so the app can show "deciding…"', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const events: RunEvent[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const traceWhenAsked: string[][] = [];
    // A model supervisor double that blocks until the test releases it, once the escalation is in the trace.
    const supervision: WorkflowSupervisionOptions = {
      settings: settings(),
      supervisor: {
        identity: LOCAL,
        decide: async () => {
          const seen = events.filter((e) => e.type.startsWith('supervisor.')).map((e) => e.type);
          traceWhenAsked.push(seen);
          // Not in the trace yet (the escalation would only come with the verdict): answer at once rather than hang.
          if (seen.includes('supervisor.escalated')) await released;
          return { verdict: VERDICTS.skip, cost_usd: 0 };
        },
      },
    };
    const verdictsWhenEscalated: number[] = [];
    const result = await runWorkflow({
      graph: mustSayOk,
      specDir: ws.dir,
      workspace: ws.workspace,
      inputs: { items: ['ok', 'poison'] },
      ledger: createMemoryLedger(),
      onEvent: (e) => {
        events.push(e);
        if (e.type !== 'supervisor.escalated') return;
        verdictsWhenEscalated.push(ofType(events, 'supervisor.verdict').length);
        release();
      },
      supervision,
    });

    expect(result.status).toBe('completed');
    expect(ofType(events, 'workflow.started')[0]?.supervisor).toEqual(LOCAL);
    expect(traceWhenAsked).toEqual([['supervisor.escalated']]);
    expect(verdictsWhenEscalated).toEqual([0]);
    expect(ofType(events, 'supervisor.verdict')).toMatchObject([{ invocation_id: 'work[each=1]', next: 'skip', verdict: { decided_by: 'agent' } }]);
    expect(ofType(events, 'supervisor.escalated')).toHaveLength(1);
  });

  it('a poisoned item repeated 5 times costs one decision: the supervisor skip sticks to the same failure of the same node', async () => {
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.skip }]);
    const { result, events } = await run(mustSayOk, ['ok 1', 'poison', 'poison', 'ok 2', 'poison', 'poison', 'poison', 'ok 3'], supervision);

    expect(result.status).toBe('completed');
    expect(collected(events)).toEqual({ list: ['ok 1', 'ok 2', 'ok 3'], left_out: 5 });
    expect(double.calls).toHaveLength(1);
    const verdicts = ofType(events, 'supervisor.verdict');
    expect(verdicts.map((v) => v.verdict.decided_by)).toEqual(['agent', 'sticky', 'sticky', 'sticky', 'sticky']);
    expect(verdicts.every((v) => v.next === 'skip')).toBe(true);
  });

  it('a verdict outside the allowed set becomes fail, decided by the kernel: the node ends failed with its own failure', async () => {
    // A write tool node is not retry-safe: retry is not offered.
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.retry }]);
    const { result, events } = await run(writeEach, ['/outside-the-workspace/x.md'], supervision);

    expect(double.calls).toHaveLength(1);
    expect(double.calls[0]?.input.escalation.allowed_actions).not.toContain('retry');
    const [verdict] = ofType(events, 'supervisor.verdict');
    expect(verdict).toMatchObject({ next: 'failed', verdict: { decided_by: 'kernel', verdict: { action: 'fail' } } });
    // No one confirms the write here, so it fails unconfirmed; the supervisor cannot retry it.
    expect(result.invocations.find((i) => i.id === 'work[each=0]')).toMatchObject({ status: 'failed', failure: { code: 'not_confirmed' } });
  }, 60_000);

  it('a retry of a pure node runs the same invocation again with the same inputs', async () => {
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.retry }, { verdict: VERDICTS.fail }]);
    const { result, events } = await run(mustSayOk, ['poison'], supervision);
    // The retry fails the same way; with max_retries 1 used up, retry is no longer offered.
    expect(double.calls.map((c) => c.input.escalation.allowed_actions.includes('retry'))).toEqual([true, false]);
    expect(double.calls.map((c) => c.input.escalation.attempt)).toEqual([1, 2]);
    expect(double.calls[1]?.input.escalation.invocation_key).toBe('work[each=0]');
    expect(ofType(events, 'supervisor.verdict').map((v) => [v.verdict.decided_by, v.next])).toEqual([
      ['agent', 'run_again'],
      ['agent', 'failed'],
    ]);
    expect(result.invocations.find((i) => i.id === 'work[each=0]')).toMatchObject({ status: 'failed', failure: { code: 'assert_failed' } });
  });

  it('a read tool node that failed (its file not there yet) is retry-safe: the supervisor\'s retry runs it again and it succeeds', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const late = join(ws.workspace, 'late.md');
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]);
    const supervision: WorkflowSupervisionOptions = {
      settings: settings(),
      // The transient cause goes away while the supervisor decides: the file appears.
      supervisor: { identity: LOCAL, decide: (input, signal) => (writeFileSync(late, 'arrived late'), double.decide(input, signal)) },
    };
    const events: RunEvent[] = [];
    const result = await runWorkflow({ graph: readEach, specDir: ws.dir, workspace: ws.workspace, inputs: { items: [late] }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), supervision });

    expect(double.calls).toHaveLength(1);
    expect(double.calls[0]?.input.escalation).toMatchObject({ node: 'work', retry_safe: true, allowed_actions: expect.arrayContaining(['retry']) as unknown });
    expect(ofType(events, 'supervisor.verdict').map((v) => [v.verdict.decided_by, v.next])).toEqual([['agent', 'run_again']]);
    expect(result.status).toBe('completed');
    expect(result.invocations.find((i) => i.id === 'work[each=0]')).toMatchObject({ status: 'done' });
    expect(collected(events)).toMatchObject({ list: ['arrived late'] });
  }, 60_000);

  it('an agent node with any write-effect tool in reach is never retried: the retry a supervisor asks for is a kernel fail, and the agent runs once', async () => {
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.retry }]);
    const { events, reads } = await runReadingAgent(readingAgent(), supervision);

    expect(double.calls).toHaveLength(1);
    expect(double.calls[0]?.input.escalation).toMatchObject({ node: 'agent', retry_safe: false });
    expect(double.calls[0]?.input.escalation.allowed_actions).not.toContain('retry');
    expect(ofType(events, 'supervisor.verdict')).toMatchObject([{ next: 'failed', verdict: { decided_by: 'kernel', verdict: { action: 'fail' } } }]);
    expect(ofType(events, 'agent.started')).toHaveLength(1);
    expect(reads).toEqual(['agent']);
  }, 90_000);

  it("an agent node offered only reads is retry-safe: the supervisor's retry is a new run of the agent whose read gets its own idempotency key", async () => {
    // The workflow declares every filesystem tool a read: the agent has nothing but reads within reach.
    const allReads = Object.fromEntries(Object.keys(SHIPPED_EFFECTS[FILESYSTEM_PACKAGE]?.tools ?? {}).map((t) => [`fs/${t}`, { effect: 'read' as const }]));
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.retry }, { verdict: VERDICTS.fail }]);
    const { events, reads } = await runReadingAgent(readingAgent(allReads), supervision);

    expect(double.calls.map((c) => [c.input.escalation.attempt, c.input.escalation.retry_safe, c.input.escalation.allowed_actions.includes('retry')])).toEqual([
      [1, true, true],
      // Attempt 2 failed the same way; max_retries (1) is used up.
      [2, true, false],
    ]);
    expect(ofType(events, 'agent.started')).toHaveLength(2);
    // The retry read the file again under a new key: a key never executes twice (I5), and the read was not refused as a duplicate.
    expect(reads).toEqual(['agent', 'agent#2']);
    expect(ofType(events, 'tool.executed').filter((e) => e.invocation_id === 'agent').map((e) => e.execution.ok)).toEqual([true, true]);
  }, 90_000);

  it('an unsupervised run (no option, or supervision not enabled) asks no one and emits no supervisor event: the item fails as before', async () => {
    const off = await run(mustSayOk, ['ok', 'poison']);
    const { double, supervision } = supervisedBy([]);
    const disabled = await run(mustSayOk, ['ok', 'poison'], { ...supervision, settings: { ...supervision.settings, enabled: false } });
    for (const { result, events } of [off, disabled]) {
      expect(result.invocations.find((i) => i.id === 'work[each=1]')).toMatchObject({ status: 'failed', failure: { code: 'assert_failed' } });
      expect(events.some((e) => e.type.startsWith('supervisor.'))).toBe(false);
      expect(ofType(events, 'workflow.started')[0]).not.toHaveProperty('supervisor');
    }
    expect(double.calls).toHaveLength(0);
    const shape = (events: RunEvent[]) => events.map((e) => `${e.type}:${e.type === 'node.invocation' ? `${e.invocation_id}:${e.status}` : ''}`);
    expect(shape(disabled.events)).toEqual(shape(off.events));
  });

  it('a supervised run parked for a person keeps its supervision ledger (sticky verdicts, decisions) in the checkpoint', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const graph = graphWith('check-and-save', {
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }, { name: 'text', type: 'text' }] },
        { id: 'each', kind: 'iterate' },
        { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
        { id: 'all', kind: 'collect' },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: join(ws.workspace, 'saved.md'), content: '{{text}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }, { name: 'said', type: 'text' }] },
      ],
      edges: [edge('in.items', 'each.list'), edge('each.item', 'work.value'), edge('work.value', 'all.item'), edge('all.list', 'out.list'), edge('in.text', 'save.text'), edge('save.text', 'out.said')],
    });
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.skip }]);
    const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { items: ['ok', 'poison', 'poison'], text: 'hello' }, ledger: createMemoryLedger(), confirm: async () => 'pending', onEvent: () => undefined, supervision });
    expect(result.status).toBe('waiting');
    expect(double.calls).toHaveLength(1);
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(result.checkpoint)));
    // The second poisoned item was decided by the sticky skip: one decision, one remembered verdict.
    expect(checkpoint.supervisor_ledger?.decisions).toBe(1);
    expect(Object.values(checkpoint.supervisor_ledger?.sticky ?? {})).toEqual(['skip']);
  }, 60_000);

  it('a run that asks for supervision it cannot get still runs, unsupervised, and says so in its trace', async () => {
    const { supervision } = supervisedBy([]);
    const { result, events } = await run(mustSayOk, ['ok', 'poison'], { ...supervision, supervisor: { unavailable: 'no supervisor model is set up' } });
    expect(result.status).toBe('completed_with_failures');
    expect(result.invocations.find((i) => i.id === 'work[each=1]')).toMatchObject({ status: 'failed', failure: { code: 'assert_failed' } });
    expect(ofType(events, 'run.notice').map((e) => e.message)).toEqual(['this run is not supervised: no supervisor model is set up']);
    expect(events.some((e) => e.type.startsWith('supervisor.'))).toBe(false);
  });

  it('cancelling the run while the supervisor decides aborts the decision and the run ends cancelled', async () => {
    const { double, supervision } = supervisedBy([HANG]);
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const stop = new AbortController();
    const result = await runWorkflow({
      graph: mustSayOk,
      specDir: ws.dir,
      workspace: ws.workspace,
      inputs: { items: ['poison'] },
      ledger: createMemoryLedger(),
      signal: stop.signal,
      // The assert fails at once and the hanging supervisor is asked: cancel a moment later.
      onEvent: (e) => {
        if (e.type === 'node.invocation' && e.status === 'running' && e.node === 'work') setTimeout(() => stop.abort(), 50);
      },
      supervision,
    });
    expect(result.status).toBe('cancelled');
    expect(double.calls).toHaveLength(1);
    expect(double.calls[0]?.aborted).toBe(true);
  });
});
