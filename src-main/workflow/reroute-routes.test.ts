import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import type { ModelScriptInput } from '@shared/contracts/script';
import { WorkflowGraph } from '@shared/workflow/document';
import { validateGraph } from '@shared/workflow/validate-graph';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow } from './run-workflow';

// Issue 29, reroute routes (seed 000): an agent node declares routes (named output ports); a
// reroute names one; only that port sends and what hangs on the others is pruned as a skip prunes.
// The one test double is the model: the script provider answers as the node's `script` says.

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'steward-routes-'));
  dirs.push(dir);
  return dir;
};

const reroute = (target: string, reason: string) => ({ json: { decision_type: 'reroute', target, reason } });

/** request → triage (routes billing, support) → each route's own two-step chain → one output whose fields are optional. */
function helpdesk(script: ModelScriptInput, routes: boolean | 'none' = true, supervision: Record<string, unknown> = {}): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'helpdesk',
    name: 'Helpdesk',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'request', type: 'text' }] },
      {
        id: 'triage',
        kind: 'agent',
        instructions: 'Send each request to the team that handles it.',
        task: 'Route this request: {{request}}',
        inputs: [{ name: 'request', type: 'text' }],
        limits: { max_rounds: 2 },
        supervision,
        ...(routes === true ? { routes: [{ name: 'billing', description: 'invoices, refunds, payments' }, { name: 'support', description: 'log-in and product problems' }] } : {}),
        script,
      },
      { id: 'bill_note', kind: 'template', inputs: [{ name: 'why', type: 'text' }], template: 'Billing: {{why}}' },
      { id: 'bill_more', kind: 'template', inputs: [{ name: 'note', type: 'text' }], template: '{{note}} (queued)' },
      { id: 'help_note', kind: 'template', inputs: [{ name: 'why', type: 'text' }], template: 'Support: {{why}}' },
      { id: 'help_more', kind: 'template', inputs: [{ name: 'note', type: 'text' }], template: '{{note}} (queued)' },
      {
        id: 'out',
        kind: 'output',
        fields: [
          { name: 'billing', type: 'text', required: false },
          { name: 'support', type: 'text', required: false },
          { name: 'answer', type: 'text', required: false },
        ],
      },
    ],
    edges: [
      { from: { node: 'in', port: 'request' }, to: { node: 'triage', port: 'request' } },
      ...(routes === true
        ? [
            { from: { node: 'triage', port: 'billing' }, to: { node: 'bill_note', port: 'why' } },
            { from: { node: 'triage', port: 'support' }, to: { node: 'help_note', port: 'why' } },
          ]
        : [
            { from: { node: 'triage', port: 'output' }, to: { node: 'bill_note', port: 'why' } },
            { from: { node: 'triage', port: 'output' }, to: { node: 'help_note', port: 'why' } },
          ]),
      { from: { node: 'bill_note', port: 'output' }, to: { node: 'bill_more', port: 'note' } },
      { from: { node: 'help_note', port: 'output' }, to: { node: 'help_more', port: 'note' } },
      { from: { node: 'bill_more', port: 'output' }, to: { node: 'out', port: 'billing' } },
      { from: { node: 'help_more', port: 'output' }, to: { node: 'out', port: 'support' } },
      { from: { node: 'triage', port: 'output' }, to: { node: 'out', port: 'answer' } },
    ],
  });
}

async function run(graph: WorkflowGraph) {
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: tempDir(), inputs: { request: 'I cannot log in since this morning' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  const status = (id: string) => result.invocations.find((i) => i.id === id)?.status;
  const failure = (id: string) => result.invocations.find((i) => i.id === id)?.failure;
  return { result, events, status, failure };
}

describe('reroute routes in a workflow run', () => {
  it('the graph accepts edges from route ports (each route is an output port of the node)', () => {
    expect(validateGraph(helpdesk({ student: [] }))).toEqual([]);
  });

  it('the student reroutes to support: only support\'s chain runs, billing\'s is pruned as a skip prunes, and the run completes', async () => {
    const { result, events, status, failure } = await run(helpdesk({ student: [reroute('support', 'a log-in problem')] }));
    expect(result.status).toBe('completed');
    expect(status('triage')).toBe('done');
    expect(result.invocations.find((i) => i.id === 'triage')?.outputs).toEqual({ support: 'a log-in problem' });
    // B's downstream ran…
    expect(status('help_note')).toBe('done');
    expect(status('help_more')).toBe('done');
    // …A's was pruned: its first node says which route was taken, the next is skipped as after any skip.
    expect(status('bill_note')).toBe('skipped');
    expect(failure('bill_note')).toEqual({ code: 'route_not_taken', message: 'triage took route support, not billing' });
    expect(status('bill_more')).toBe('skipped');
    expect(failure('bill_more')?.code).toBe('input_missing');
    expect(result.outputs).toEqual({ support: 'Support: a log-in problem (queued)' });
    // The trace says which route, who chose it, and that the routes were offered in the round.
    const finished = events.find((e) => e.type === 'agent.finished' && e.invocation_id === 'triage');
    expect(finished).toMatchObject({ status: 'rerouted', route: { name: 'support', chosen_by: 'student', reason: 'a log-in problem' }, message: 'took route support (chosen by the student): a log-in problem' });
    const snapshot = events.find((e) => e.type === 'tools.snapshot' && e.invocation_id === 'triage');
    expect(snapshot?.type === 'tools.snapshot' && snapshot.routes).toEqual(['billing', 'support']);
    // No tool ran and nothing else was proposed: one round.
    expect(events.filter((e) => e.type === 'round.started' && e.invocation_id === 'triage')).toHaveLength(1);
  });

  it('a route name the node does not offer fails validation; the teacher repairs it, and only the repaired route fires', async () => {
    const { result, events, status, failure } = await run(
      helpdesk(
        {
          student: [reroute('sales', 'they want to buy more seats')],
          teacher: [{ json: { verdict: 'replace', reason_codes: ['other'], explanation: 'There is no sales route: seats are billed.', replacement: { decision_type: 'reroute', target: 'billing', reason: 'more seats is a billing change' } } }],
        },
        true,
        { max_repair_rounds: 0 },
      ),
    );
    const validated = events.find((e) => e.type === 'candidate.validated' && e.invocation_id === 'triage');
    expect(validated?.type === 'candidate.validated' && validated.validation.issues).toEqual([
      { code: 'route_not_offered', message: 'route "sales" was not offered this round (offered: billing, support)' },
    ]);
    const review = events.find((e) => e.type === 'review.decided' && e.invocation_id === 'triage');
    expect(review?.type === 'review.decided' && review.review.rule).toBe('validation_failed');
    expect(result.status).toBe('completed');
    expect(status('bill_more')).toBe('done');
    expect(status('help_note')).toBe('skipped');
    expect(failure('help_note')?.message).toBe('triage took route billing, not support');
    expect(result.outputs).toEqual({ billing: 'Billing: more seats is a billing change (queued)' });
    const finished = events.find((e) => e.type === 'agent.finished' && e.invocation_id === 'triage');
    expect(finished).toMatchObject({ route: { name: 'billing', chosen_by: 'teacher_repair' } });
    // The student's unoffered route never became a decision anyone acted on (I1).
    expect(events.filter((e) => e.type === 'decision.committed').map((e) => (e.type === 'decision.committed' ? e.decision : undefined))).toEqual([
      { decision_type: 'reroute', target: 'billing', reason: 'more seats is a billing change' },
    ]);
  });

  it('an agent with routes that answers sends only `output`: every route\'s chain is pruned', async () => {
    const { result, status, failure } = await run(helpdesk({ student: [{ json: { decision_type: 'complete', output: 'Try resetting your password.' } }], teacher: [] }));
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ answer: 'Try resetting your password.' });
    expect(status('bill_note')).toBe('skipped');
    expect(status('help_note')).toBe('skipped');
    expect(failure('help_note')).toEqual({ code: 'route_not_taken', message: 'triage answered and took no route (not support)' });
  });

  it('a node with no routes declared keeps reroute as a refusal: the node fails in words (old workflows unchanged)', async () => {
    const { result, status, failure } = await run(helpdesk({ student: [reroute('support', 'a log-in problem')] }, 'none'));
    expect(status('triage')).toBe('failed');
    expect(failure('triage')?.code).toBe('agent_rerouted');
    expect(failure('triage')?.message).toBe('rerouted to support: a log-in problem (this agent declares no routes, so nothing takes the task on)');
    // Never a plain success: what needed the agent's answer got nothing.
    expect(result.status).toBe('completed_with_failures');
    expect(status('help_note')).toBe('skipped');
  });
});

describe('reroute routes in an agent run (outside a workflow)', () => {
  it('ends rerouted with the route named in words, on the result and run.finished', async () => {
    const events: RunEvent[] = [];
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'triage',
      name: 'Triage',
      instructions: 'Send each request to the team that handles it.',
      task: 'Route: my invoice is wrong',
      routes: [{ name: 'billing' }, { name: 'support' }],
      script: { student: [reroute('billing', 'an invoice problem')] },
    });
    const result = await runAgent({ spec, specDir: tempDir(), script: spec.script, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
    expect(result.status).toBe('rerouted');
    expect(result.route).toEqual({ name: 'billing', chosen_by: 'student', reason: 'an invoice problem' });
    expect(result.message).toBe('took route billing (chosen by the student): an invoice problem');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'rerouted', route: { name: 'billing', chosen_by: 'student' } });
  });

  it('a route a person approved (the teacher escalated to them) is recorded as chosen by a person', async () => {
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'triage',
      name: 'Triage',
      instructions: 'Send each request to the team that handles it.',
      task: 'Route: refund my last payment',
      routes: [{ name: 'billing' }, { name: 'support' }],
      supervision: { phase: 2, on_escalate: 'human' },
      script: { student: [reroute('billing', 'a refund')], teacher: [{ json: { verdict: 'escalate', reason_codes: ['other'], explanation: 'Refunds need a person to agree.' } }] },
    });
    const dir = tempDir();
    const ledger = createMemoryLedger();
    const first = await runAgent({ spec, specDir: dir, script: spec.script, ledger, onEvent: () => undefined });
    expect(first.status).toBe('waiting');
    const checkpoint = first.checkpoint;
    if (!checkpoint) throw new Error('the run should wait for a person');
    const events: RunEvent[] = [];
    const result = await runAgent({ spec, specDir: dir, script: checkpoint.script, ledger, onEvent: (e) => events.push(e), resume: { checkpoint, answer: { action: 'approve' } } });
    expect(result.status).toBe('rerouted');
    expect(result.route).toEqual({ name: 'billing', chosen_by: 'person', reason: 'a refund' });
    expect(result.message).toBe('took route billing (chosen by a person): a refund');
  });
});
