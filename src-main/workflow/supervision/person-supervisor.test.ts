import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { escalation, NOW } from '@shared/supervisor/testing/fixtures';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { SupervisorSettings, type SupervisorSettingsInput, type Verdict } from '@shared/supervisor/contracts';
import { WorkflowGraph, type WorkflowGraphInput } from '@shared/workflow/document';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { SecretRegistry } from '../../credentials/secret-registry';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { checkOffered, runWorkflow, type LiveAnswer, type WorkflowRun } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';
import { answerPerson, escalateToPerson, personSupervisionOf, personSupervisor } from './person-supervisor';
import { RunSupervision } from './supervise-failure';
import { portValidator } from './workflow-supervision';
import { expireJudgments } from '../pattern/judgment-expiry';

/**
 * A person supervises a workflow run (issue 11): real scheduler, real MCP filesystem server, no
 * test double at all — the person's answers are given as the app and `steward answer` give them.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const edge = (from: string, to: string) => {
  const [fn = '', fp = ''] = from.split('.');
  const [tn = '', tp = ''] = to.split('.');
  return { from: { node: fn, port: fp }, to: { node: tn, port: tp } };
};

const person = (extra: Partial<SupervisorSettingsInput> = {}) => SupervisorSettings.parse({ enabled: true, who: { kind: 'person' }, ...extra });

function graphWith(id: string, body: Partial<WorkflowGraphInput>, supervisor = person()): WorkflowGraph {
  return WorkflowGraph.parse({ format: 'steward/v1', kind: 'workflow', id, name: id, supervisor, ...body });
}

/** items → iterate → read each file (a real MCP tool) → shout it (a template downstream) → collect. */
const readAndShout = graphWith('read-and-shout', {
  servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
    { id: 'each', kind: 'iterate' },
    { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
    { id: 'shout', kind: 'template', inputs: [{ name: 'text', type: 'text' }], template: '{{text}}!' },
    { id: 'all', kind: 'collect' },
    { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
  ],
  edges: [edge('in.items', 'each.list'), edge('each.item', 'read.path'), edge('read.text', 'shout.text'), edge('shout.output', 'all.item'), edge('all.list', 'out.list')],
});

/** items → iterate → an assert that wants "ok" (pure: retry is allowed) → collect. */
const mustSayOk = graphWith('must-say-ok', {
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
    { id: 'each', kind: 'iterate' },
    { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
    { id: 'all', kind: 'collect' },
    { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
  ],
  edges: [edge('in.items', 'each.list'), edge('each.item', 'work.value'), edge('work.value', 'all.item'), edge('all.list', 'out.list')],
});

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);
const verdict = (v: Verdict): HumanAnswer => ({ action: 'verdict', verdict: v });

/** Runs until it parks, then answers from the checkpoint each time it parks again (as `steward answer` does after a restart). */
async function runParked(graph: WorkflowGraph, items: unknown[] | { files: string[] }) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const events: RunEvent[] = [];
  const base = { graph, specDir: ws.dir, workspace: ws.workspace, inputs: { items: Array.isArray(items) ? items : items.files.map((f) => join(ws.workspace, f)) }, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e) };
  const supervision = personSupervisionOf(graph.supervisor);
  const first = await runWorkflow({ ...base, ...(supervision ? { supervision } : {}) });
  const answer = async (parked: WorkflowRun, given: HumanAnswer, invocation?: string): Promise<WorkflowRun> => {
    // Through JSON, as the checkpoint store keeps it: nothing of the wait lives only in memory.
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(parked.checkpoint)));
    return runWorkflow({ ...base, resume: { checkpoint, answer: given, ...(invocation ? { invocation } : {}) } });
  };
  return { first, events, answer, ws };
}

function assertAllValid(events: RunEvent[]) {
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
}

describe('a workflow run a person supervises', () => {
  it('a tool node that fails waits for the person with the redacted escalation; their skip prunes downstream and the run completes', async () => {
    const { first, events, answer } = await runParked(readAndShout, { files: ['ideas.md', 'missing.md'] });

    expect(first.status).toBe('waiting');
    expect(first.interventions).toHaveLength(1);
    const [{ invocation_id, intervention } = { invocation_id: '', intervention: undefined }] = first.interventions ?? [];
    expect(invocation_id).toBe('read[each=1]');
    expect(intervention).toMatchObject({ kind: 'supervisor_escalation', options: ['verdict'], supervision: { escalation: { node: 'read', allowed_actions: ['retry', 'skip', 'fail'] }, attempt: 1, refused: [] } });
    expect(intervention?.supervision?.escalation.detail).toMatch(/ENOENT|no such file|not found/i);
    // The other item went on while this one waited.
    expect(first.invocations.find((i) => i.id === 'shout[each=0]')?.status).toBe('done');
    expect(ofType(events, 'supervisor.escalated')).toHaveLength(1);
    expect(ofType(events, 'supervisor.verdict')).toHaveLength(0);

    const end = await answer(first, verdict({ action: 'skip', reason: 'that file was never written' }));
    expect(end.status).toBe('completed');
    expect(end.outputs.list).toEqual([expect.stringMatching(/!$/)]);
    expect(end.invocations.find((i) => i.id === 'read[each=1]')).toMatchObject({ status: 'skipped', failure: { code: 'supervisor_skipped' } });
    expect(end.invocations.find((i) => i.id === 'shout[each=1]')?.status).toBe('skipped');
    const [decided] = ofType(events, 'supervisor.verdict');
    expect(decided).toMatchObject({ invocation_id: 'read[each=1]', next: 'skip', verdict: { decided_by: 'agent', verdict: { action: 'skip', reason: 'that file was never written' }, turns: 1 } });
    expect(ofType(events, 'intervention.answered')).toMatchObject([{ settled_by: 'person', answer: { action: 'verdict' } }]);
    assertAllValid(events);
  }, 60_000);

  it('a verdict outside the allowed set (or not a verdict) is refused before anything changes; the same wait then takes an allowed one', async () => {
    const { first, answer } = await runParked(readAndShout, { files: ['missing.md'] });
    expect(first.status).toBe('waiting');
    // No candidate output: substitute is not offered, and not taken (a read is retry-safe, so retry is).
    const intervention = first.interventions?.[0]?.intervention;
    if (!intervention) throw new Error('expected a waiting escalation');
    // What the host checks on every answer, live or from the checkpoint, before anything changes.
    expect(() => checkOffered(intervention, verdict({ action: 'substitute', value: { text: 'made up' }, reason: 'something to go on with' }))).toThrow(/"substitute" is not allowed for this failure of read \(allowed: retry .*skip/);
    expect(() => checkOffered(intervention, { action: 'approve' })).toThrow(/not one of the answers/);
    const end = await answer(first, verdict({ action: 'fail', reason: 'the file must exist' }));
    // An item's failure leaves it out of the list (the collect closes); the node's own failure stays, with the person's reason.
    expect(end.invocations.find((i) => i.id === 'read[each=0]')).toMatchObject({ status: 'failed', failure: { code: 'tool_error', message: expect.stringContaining('the file must exist') } });
  }, 60_000);

  it('a retry runs the pure node again (attempt 2), which escalates again; the person fails it', async () => {
    const { first, events, answer } = await runParked(mustSayOk, ['poison']);
    expect(first.interventions?.[0]?.intervention.supervision?.escalation.allowed_actions).toEqual(['retry', 'skip', 'fail']);
    const again = await answer(first, verdict({ action: 'retry', reason: 'flaky' }));
    expect(again.status).toBe('waiting');
    expect(again.interventions?.[0]?.intervention.supervision).toMatchObject({ attempt: 2, escalation: { attempt: 2, invocation_key: 'work[each=0]' } });
    expect(ofType(events, 'node.invocation').filter((e) => e.invocation_id === 'work[each=0]' && e.status === 'running')).toHaveLength(2);
    const end = await answer(again, verdict({ action: 'fail', reason: 'not flaky after all' }));
    expect(end.invocations.find((i) => i.id === 'work[each=0]')).toMatchObject({ status: 'failed', failure: { code: 'assert_failed' } });
    expect(ofType(events, 'supervisor.verdict').map((v) => [v.verdict.decided_by, v.next])).toEqual([
      ['agent', 'run_again'],
      ['agent', 'failed'],
    ]);
  }, 60_000);

  it("the person's skip sticks: another item waiting with the same failure is decided by it without asking, and the trace closes that wait as settled by the sticky skip", async () => {
    const { first, events, answer } = await runParked(mustSayOk, ['ok 1', 'poison', 'poison']);
    expect(first.status).toBe('waiting');
    const waitingIds = (first.interventions ?? []).map((i) => i.invocation_id).sort();
    expect(waitingIds).toEqual(['work[each=1]', 'work[each=2]']);
    const end = await answer(first, verdict({ action: 'skip', reason: 'poisoned' }), 'work[each=1]');
    expect(end.status).toBe('completed');
    expect(end.outputs).toEqual({ list: ['ok 1'] });
    expect(ofType(events, 'supervisor.verdict').map((v) => v.verdict.decided_by)).toEqual(['agent', 'sticky']);
    // Both questions are closed in the trace (the app's waiting list reads it), each saying what settled it.
    const asked = new Map(ofType(events, 'intervention.requested').map((e) => [e.intervention.id, e.invocation_id]));
    const closed = ofType(events, 'intervention.answered').map((e) => [asked.get(e.intervention_id), e.settled_by, e.answer]);
    expect(closed).toEqual([
      ['work[each=1]', 'person', verdict({ action: 'skip', reason: 'poisoned' })],
      ['work[each=2]', 'sticky', verdict({ action: 'skip', reason: 'the supervisor already chose skip for this failure of work' })],
    ]);
    // Closed before its verdict, as a person's answer is.
    const at = (e: RunEvent | undefined) => events.indexOf(e as RunEvent);
    expect(at(ofType(events, 'intervention.answered')[1])).toBeLessThan(at(ofType(events, 'supervisor.verdict')[1]));
    assertAllValid(events);
  }, 60_000);

  it('answered while the run is still going on, the verdict applies in the live run', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    // A second branch keeps the run going: a slow agent beside the failing assert.
    const graph = graphWith('live', {
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'value', type: 'text' }] },
        { id: 'check', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
        { id: 'slow', kind: 'agent', instructions: 'Think.', task: 'Think about {{value}}.', inputs: [{ name: 'value', type: 'text' }], servers: [], script: { student: [{ json: { decision_type: 'complete', output: 'thought' }, delay_ms: 1500 }] } },
        { id: 'out', kind: 'output', fields: [{ name: 'checked', type: 'text', required: false }, { name: 'thought', type: 'text' }] },
      ],
      edges: [edge('in.value', 'check.value'), edge('in.value', 'slow.value'), edge('check.value', 'out.checked'), edge('slow.output', 'out.thought')],
    });
    let live: LiveAnswer | undefined;
    const answered: boolean[] = [];
    const events: RunEvent[] = [];
    const result = await runWorkflow({
      graph,
      specDir: ws.dir,
      workspace: ws.workspace,
      inputs: { value: 'poison' },
      ledger: createMemoryLedger(),
      supervision: personSupervisionOf(graph.supervisor),
      liveAnswers: (a) => (live = a),
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'intervention.requested') {
          const id = e.intervention.id;
          setTimeout(() => {
            expect(() => live?.(id, verdict({ action: 'end_stream', reason: 'no' }))).toThrow(/not allowed/);
            answered.push(live?.(id, verdict({ action: 'skip', reason: 'fine without it' })) ?? false);
          }, 50);
        }
      },
    });
    expect(answered).toEqual([true]);
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ thought: 'thought' });
    expect(ofType(events, 'supervisor.verdict')).toMatchObject([{ next: 'skip', verdict: { decided_by: 'agent' } }]);
  }, 60_000);

  it('a decision time that ran out while the run was parked applies the default (fail) instead of the late answer, and the trace closes the wait as expired', async () => {
    const { first, events, answer } = await runParked(WorkflowGraph.parse({ ...readAndShout, supervisor: person({ who: { kind: 'person', decision_timeout_ms: 60_000 } }) }), { files: ['missing.md'] });
    const wait = first.interventions?.[0]?.intervention.supervision;
    expect(wait?.expires_at).toBeDefined();
    const checkpoint = first.checkpoint as WorkflowCheckpoint;
    const waiting = Object.values(checkpoint.waiting)[0];
    if (waiting?.intervention.supervision) waiting.intervention.supervision.expires_at = new Date(Date.now() - 1000).toISOString();
    const end = await answer(first, verdict({ action: 'skip', reason: 'too late' }));
    expect(end.invocations.find((i) => i.id === 'read[each=0]')?.status).toBe('failed');
    expect(ofType(events, 'supervisor.verdict')).toMatchObject([{ next: 'failed', verdict: { decided_by: 'default', verdict: { action: 'fail', reason: expect.stringContaining('did not decide within 60 s') } } }]);
    // The late answer is not recorded as the person's: the wait ended by its expiry, its default after it.
    expect(ofType(events, 'intervention.answered')).toMatchObject([{ invocation_id: 'read[each=0]', settled_by: 'expiry', answer: { action: 'expired' } }]);
    expect(events.findIndex((e) => e.type === 'intervention.answered')).toBeLessThan(events.findIndex((e) => e.type === 'supervisor.verdict'));
    assertAllValid(events);
  }, 60_000);
});

describe("a person's substitute", () => {
  it('is validated by the kernel: refused values come back with the problem (repair turns, kept for a restart), a valid one becomes the output, and past the repair bound it is a kernel fail', async () => {
    const node = { id: 'say', kind: 'template' as const, format: 'text' as const, template: '{{x}}', inputs: [] };
    const supervision = new RunSupervision({ settings: person(), supervisor: personSupervisor(), validate: portValidator(new Map([['say', node]])), secrets: new SecretRegistry() });
    const failed = {
      invocation: { id: 'say', node: 'say', lineage: [], inputs: {} },
      failure: { code: 'template_error', message: 'bad' },
      attempt: 1,
      retry_safe: false,
      spent_usd: 0,
      created_assets: [],
      candidate_output: { output: 42 },
      validator_covers_output: true,
      streaming: false,
      emitted: false,
    };
    const asked = await escalateToPerson(supervision, personSupervisor(), failed, 0);
    if (asked.kind !== 'ask') throw new Error('expected the person to be asked');
    expect(asked.wait.escalation.allowed_actions).toEqual(['skip', 'substitute', 'fail']);

    const bad = await answerPerson(supervision, asked.wait, { action: 'substitute', value: { output: 7 }, reason: 'a number' }, 0);
    if (bad.kind !== 'ask') throw new Error('expected a repair turn');
    expect(bad.wait.refused).toHaveLength(1);
    expect(bad.wait.feedback).toContain('output: expected text');

    const good = await answerPerson(supervision, bad.wait, { action: 'substitute', value: { output: 'hello' }, reason: 'fixed' }, 0);
    expect(good).toMatchObject({ kind: 'decided', result: { next: { kind: 'done', outputs: { output: 'hello' } }, verdict: { decided_by: 'agent', turns: 2 } } });
    expect(supervision.ledger.decisions).toBe(1);

    let wait = bad.wait;
    for (let i = 0; i < 2; i += 1) {
      const step = await answerPerson(supervision, wait, { action: 'substitute', value: { nope: true }, reason: 'again' }, 0);
      if (step.kind !== 'ask') throw new Error('expected another repair turn');
      wait = step.wait;
    }
    expect(wait.refused).toHaveLength(3);
    const last = await answerPerson(supervision, wait, { action: 'substitute', value: { nope: true }, reason: 'once more' }, 0);
    expect(last).toMatchObject({ kind: 'decided', result: { next: { kind: 'failed' }, verdict: { decided_by: 'kernel', verdict: { action: 'fail' } } } });
  });

  it('outside the allowed set reaches the kernel anyway as a kernel fail (the answer check is the courtesy, not the guard)', async () => {
    const supervision = new RunSupervision({ settings: person(), supervisor: personSupervisor(), validate: async () => ({ ok: true }), secrets: new SecretRegistry() });
    const failed = { invocation: { id: 'r', node: 'r', lineage: [], inputs: {} }, failure: { code: 'tool_error', message: 'x' }, attempt: 1, retry_safe: false, spent_usd: 0, created_assets: [], validator_covers_output: false, streaming: false, emitted: false };
    const asked = await escalateToPerson(supervision, personSupervisor(), failed, 0);
    if (asked.kind !== 'ask') throw new Error('expected the person to be asked');
    const step = await answerPerson(supervision, asked.wait, { action: 'retry', reason: 'sneaky' }, 0);
    expect(step).toMatchObject({ kind: 'decided', result: { verdict: { decided_by: 'kernel', verdict: { action: 'fail' } } } });
  });

  it('escalations waiting for the person count against max_decisions: past the bound the kernel fails the next one without asking', async () => {
    const supervision = new RunSupervision({ settings: person({ max_decisions: 2 }), supervisor: personSupervisor(), validate: async () => ({ ok: true }), secrets: new SecretRegistry() });
    const failed = { invocation: { id: 'r', node: 'r', lineage: [], inputs: {} }, failure: { code: 'tool_error', message: 'x' }, attempt: 1, retry_safe: false, spent_usd: 0, created_assets: [], validator_covers_output: false, streaming: false, emitted: false };
    expect((await escalateToPerson(supervision, personSupervisor(), failed, 1)).kind).toBe('ask');
    expect(await escalateToPerson(supervision, personSupervisor(), failed, 2)).toMatchObject({ kind: 'decided', result: { verdict: { decided_by: 'bounds' } } });
  });
});

describe("the host's sweep of a person's decision time", () => {
  it('answers an escalation past its decision time (the run then applies the default fail), and leaves one still in time', () => {
    const wait = (expires_at: string) => ({ escalation: escalation({ node: 'read' }), failure: { code: 'tool_error', message: 'x' }, attempt: 1, refused: [], expires_at });
    const asked = (id: string, expires_at: string): Intervention => ({ id, run_id: 'run-sweep-0001', round: 0, kind: 'supervisor_escalation', reason: 'read failed', reason_codes: [], options: ['verdict'], requested_at: NOW, supervision: wait(expires_at) });
    const answered: Array<[string, HumanAnswer]> = [];
    const expired = expireJudgments({
      pending: () => [asked('supervise-late', '2026-12-01T10:00:00.000Z'), asked('supervise-in-time', '2026-12-01T12:00:00.000Z')],
      answer: (_run, id, answer) => (answered.push([id, answer]), true),
      now: () => Date.parse('2026-12-01T11:00:00.000Z'),
    });
    expect(expired).toEqual(['supervise-late']);
    expect(answered).toEqual([['supervise-late', { action: 'verdict', verdict: { action: 'fail', reason: 'the decision time ran out' } }]]);
  });
});
