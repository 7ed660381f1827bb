import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { HumanAnswer } from '@shared/contracts/intervention';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { WorkflowGraph } from '@shared/workflow/document';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow, type WorkflowRun } from './run-workflow';
import { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * An agent node inside a workflow whose write needs the person's confirmation (issue 28): reject
 * tells the node's agent why and it proposes again; "Stop the run" ends the whole workflow run,
 * cancelled by the person, not a failed node. Real scheduler and filesystem MCP server; the agent's
 * models are its replay script (the scripted provider at the model boundary).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

function setup() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const write = (file: string) => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, file), content: '# Summary\n' } } });
  const graph = WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'summarise',
    name: 'Summarise',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    tool_effects: { 'fs/write_file': { effect: 'reversible_write', requires_user_confirmation: true } },
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      {
        id: 'writer',
        kind: 'agent',
        instructions: 'Work in the notes folder.',
        task: 'Summarise the notes about {{topic}} into a file.',
        inputs: [{ name: 'topic', type: 'text' }],
        supervision: { phase: 3 },
        script: { latency_ms: 0, student: [write('meeting-notes.md'), write('summary.md'), { json: { decision_type: 'complete', output: 'Wrote summary.md.' } }], teacher: [accept, accept, accept, accept] },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'writer', port: 'topic' } },
      { from: { node: 'writer', port: 'output' }, to: { node: 'out', port: 'said' } },
    ],
  });
  const events: RunEvent[] = [];
  const options = { graph, specDir: ws.dir, workspace: ws.workspace, inputs: { topic: 'the launch' }, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e), confirm: async () => 'pending' as const };
  return {
    ws,
    events,
    start: () => runWorkflow(options),
    answer: (waiting: WorkflowRun, answer: HumanAnswer) =>
      runWorkflow({ ...options, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(waiting.checkpoint))), answer, next_seq: events.length } }),
  };
}

describe('an agent node\'s tool call the person must confirm', () => {
  it('reject: nothing runs, the node\'s agent is told why (its next round says so) and proposes again; approved, that call runs and the workflow completes', async () => {
    const s = setup();
    const first = await s.start();
    expect(first.status).toBe('waiting');
    expect(first.interventions?.[0]?.intervention).toMatchObject({ kind: 'confirmation', options: ['approve', 'reject', 'stop'], decision: { arguments: { path: join(s.ws.workspace, 'meeting-notes.md') } } });

    const second = await s.answer(first, { action: 'reject', note: 'Keep the notes; write summary.md.' });
    expect(second.status).toBe('waiting');
    expect(second.interventions?.[0]?.intervention.decision).toMatchObject({ arguments: { path: join(s.ws.workspace, 'summary.md') } });
    const told = s.events.filter((e): e is RunEventOf<'round.started'> => e.type === 'round.started' && e.told !== undefined);
    expect(told).toEqual([expect.objectContaining({ invocation_id: 'writer', told: expect.stringContaining('Their note: "Keep the notes; write summary.md."') })]);

    const third = await s.answer(second, { action: 'approve' });
    expect(third.status).toBe('completed');
    expect(third.outputs).toEqual({ said: 'Wrote summary.md.' });
    expect(readFileSync(join(s.ws.workspace, 'summary.md'), 'utf8')).toBe('# Summary\n');
    expect(readFileSync(join(s.ws.workspace, 'meeting-notes.md'), 'utf8')).not.toBe('# Summary\n');
  });

  it('"Stop the run" ends the whole workflow run, stopped by the person at that node, with nothing written', async () => {
    const s = setup();
    const first = await s.start();
    const stopped = await s.answer(first, { action: 'stop' });
    expect(stopped.status).toBe('stopped');
    expect(stopped.message).toBe('you stopped the run at writer');
    expect(s.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'stopped', message: 'you stopped the run at writer' });
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(false);
  });
});
