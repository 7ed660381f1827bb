import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventPayload } from '@shared/contracts/events';
import { WorkflowGraph, type NodeOf } from '@shared/workflow/document';
import { createEventStamper } from '../engine/event-stamper';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { closedPort } from '../../test-support/closed-port';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgentNode } from './agent-node';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function graphWith(agent: Record<string, unknown>): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'triage',
    name: 'Triage',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    nodes: [
      {
        id: 'classify',
        kind: 'agent',
        instructions: 'Classify notes.',
        task: 'Classify the note {{name}}: {{text}}',
        inputs: [{ name: 'name', type: 'text' }, { name: 'text', type: 'text' }],
        ...agent,
      },
    ],
  });
}

async function runNode(agent: Record<string, unknown>, inputs: Record<string, unknown>) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const graph = graphWith(agent);
  const events: RunEvent[] = [];
  const stamper = createEventStamper('run-workflow-0001', (e) => events.push(e));
  const invocation = { id: 'classify[files=1]', node: 'classify', lineage: [{ iterate: 'files', index: 1 }], inputs };
  const outcome = await runAgentNode(
    graph.nodes[0] as NodeOf<'agent'>,
    { invocation, emit: (p: RunEventPayload) => stamper.emit({ ...p, invocation_id: invocation.id }), signal: new AbortController().signal },
    { runId: 'run-workflow-0001', graph, specDir: ws.dir, workspace: ws.workspace, ledger: createMemoryLedger() },
  );
  return { outcome, events };
}

describe('agent node', () => {
  it('runs the agent loop on its templated task; its complete output is the node output', async () => {
    const { outcome, events } = await runNode(
      { script: { student: [{ json: { decision_type: 'complete', output: 'category: meeting' } }] } },
      { name: 'meeting-notes.md', text: 'Release slips a week.' },
    );
    expect(outcome).toEqual({ status: 'done', outputs: { output: 'category: meeting' } });
    const started = events.find((e) => e.type === 'agent.started');
    expect(started?.type === 'agent.started' && started.task).toBe('Classify the note meeting-notes.md: Release slips a week.');
  });

  it('its events join the workflow journal under its invocation: agent.started/finished, never run.started/finished', async () => {
    const { events } = await runNode({ script: { student: [{ json: { decision_type: 'complete', output: 'ok' } }] } }, { name: 'a', text: 'b' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    for (const e of events) {
      expect(RunEvent.safeParse(e).success).toBe(true);
      expect(e.run_id).toBe('run-workflow-0001');
      expect(e.invocation_id).toBe('classify[files=1]');
    }
    expect(events[0]?.type).toBe('agent.started');
    expect(events.at(-1)?.type).toBe('agent.finished');
    expect(events.some((e) => e.type === 'run.started' || e.type === 'run.finished')).toBe(false);
  });

  it('an input holding ${…} (a shell script\'s text) reaches the task as it is; the node\'s own ${workspace} is the folder', async () => {
    const { outcome, events } = await runNode(
      { task: 'In ${workspace}, classify {{name}}: {{text}}', script: { student: [{ json: { decision_type: 'complete', output: 'code' } }] } },
      { name: 'backup.sh', text: 'cp -r "${HOME}/notes" "${specDir}"' },
    );
    expect(outcome).toEqual({ status: 'done', outputs: { output: 'code' } });
    const started = events.find((e) => e.type === 'agent.started');
    expect(started?.type === 'agent.started' && started.task).toMatch(/^In \/.+notes-sandbox, classify backup\.sh: cp -r "\$\{HOME\}\/notes" "\$\{specDir\}"$/);
  });

  it('an agent that ends otherwise than complete fails the node with its message', async () => {
    const { outcome } = await runNode({ limits: { max_rounds: 1 }, script: { student: [{ json: { decision_type: 'present_result', content: 'Half done.' } }] } }, { name: 'a', text: 'b' });
    expect(outcome.status).toBe('failed');
    if (outcome.status === 'failed') expect(outcome.failure.code).toMatch(/^agent_/);
  });

  it('an agent whose model nobody answers for fails the node before round 1, with the one message naming model and address', async () => {
    const port = await closedPort();
    const { outcome, events } = await runNode(
      { models: { student: { provider: 'ollama', model: 'qwen3:4b', host: `http://127.0.0.1:${port}` }, teacher: { provider: 'script' } }, supervision: { enabled: false }, script: { student: [] } },
      { name: 'a', text: 'b' },
    );
    expect(outcome).toMatchObject({ status: 'failed', failure: { code: 'agent_failed' } });
    if (outcome.status === 'failed') {
      expect(outcome.failure.message).toContain(`the student model ollama:qwen3:4b is not reachable: nothing answers at http://127.0.0.1:${port}`);
      expect(outcome.failure.message).toContain('ollama serve');
    }
    expect(events.map((e) => e.type)).toEqual(['agent.started', 'agent.finished']);
  });

  it('a task naming an input the node lacks fails the node before the agent starts', async () => {
    const { outcome, events } = await runNode({ task: 'Classify {{missing}}', script: { student: [] } }, { name: 'a', text: 'b' });
    expect(outcome).toMatchObject({ status: 'failed', failure: { code: 'invalid_input' } });
    expect(events).toEqual([]);
  });
});
