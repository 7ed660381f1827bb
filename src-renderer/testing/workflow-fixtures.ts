import { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { InvocationStatus, Lineage, NodeFailure } from '@shared/workflow/invocation';
import { invocationId } from '@shared/workflow/invocation';
import { eventLog, readExecutedRound, startRun, type EventLog } from './event-fixtures';

/**
 * Workflow runs shaped as the host's runner emits them (src-main/workflow/run-workflow.ts): the
 * workflow's own run.started is workflow.started, every node status change is a node.invocation
 * carrying its invocation_id, an agent node's events are its nested agent run's (agent.started …
 * agent.finished) with the invocation_id added. Built through eventLog, so the RunEvent schema
 * validates every event.
 */

export const TRIAGE_NODES = [
  { id: 'folder', kind: 'input' },
  { id: 'list', kind: 'tool', label: 'List the folder' },
  { id: 'files', kind: 'iterate' },
  { id: 'classify', kind: 'agent', label: 'Classify' },
  { id: 'check', kind: 'assert' },
  { id: 'gather', kind: 'collect' },
  { id: 'report', kind: 'output' },
];

export function startWorkflow(log: EventLog, nodes = TRIAGE_NODES): void {
  log.add({ type: 'workflow.started', workflow_id: 'folder-triage', workflow_name: 'Folder triage', nodes, inputs: { folder: 'notes' } });
}

export function item(index: number): Lineage {
  return [{ iterate: 'files', index }];
}

/** One status change of one invocation (`running` carries its inputs, as the host's do). */
export function nodeStatus(
  log: EventLog,
  node: string,
  status: InvocationStatus,
  opts: { lineage?: Lineage; parent?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; failure?: NodeFailure } = {},
): string {
  const lineage = opts.lineage ?? [];
  const id = invocationId(node, lineage);
  log.add({
    type: 'node.invocation',
    invocation_id: id,
    node,
    lineage,
    ...(opts.parent !== undefined ? { parent: opts.parent } : {}),
    status,
    ...(opts.inputs ? { inputs: opts.inputs } : {}),
    ...(opts.outputs ? { outputs: opts.outputs } : {}),
    ...(opts.failure ? { failure: opts.failure } : {}),
  });
  return id;
}

/** An agent node's nested run: agent.started, `rounds` executed reads, agent.finished; all with its invocation_id. */
export function agentRun(log: EventLog, invocation: string, rounds: number, opts: { finish?: boolean } = {}): void {
  const from = log.events.length;
  // What an agent run's run.started says, as agent.started (the host renames it so, agent-node.ts).
  const scratch = eventLog(log.runId);
  startRun(scratch);
  const started = scratch.events[0];
  if (started?.type !== 'run.started') throw new Error('startRun did not start the run');
  const { id: _id, run_id: _run, seq: _seq, ts: _ts, type: _type, ...start } = started;
  log.add({ ...start, type: 'agent.started', spec_id: 'folder-triage.classify', spec_name: 'Classify', task: 'Classify the file', models: { student: 'replay-student', teacher: 'replay-teacher' } });
  for (let r = 0; r < rounds; r++) readExecutedRound(log, r);
  if (opts.finish !== false) log.add({ type: 'agent.finished', status: 'completed', output: 'notes', rounds });
  // The nested agent's events are the node's: stamp them as the host does (validated again).
  for (let i = from; i < log.events.length; i++) {
    const e = log.events[i];
    if (e) log.events[i] = RunEvent.parse({ ...e, invocation_id: invocation });
  }
}

/** The agent node asks a person (its intervention names the nested agent's own run, as the host's event does). */
export function agentAsks(log: EventLog, invocation: string, round: number): Intervention {
  const intervention: Intervention = {
    id: `${log.runId}:${invocation}:iv-${round}`,
    run_id: `${log.runId}:${invocation}`,
    round,
    kind: 'escalation',
    reason: 'Unsure whether this file is private',
    reason_codes: ['other'],
    options: ['approve', 'reject', 'stop'],
    requested_at: '2026-01-05T09:00:00.000Z',
  };
  const e = log.add({ type: 'intervention.requested', round, intervention });
  log.events[log.events.length - 1] = RunEvent.parse({ ...e, invocation_id: invocation });
  return intervention;
}

/**
 * A finished folder triage: list → iterate over two files → classify (agent, 1 round each) →
 * check (the second item fails its assert) → collect → report.
 */
export function triageRun(log: EventLog): void {
  startWorkflow(log);
  nodeStatus(log, 'folder', 'running', { inputs: {} });
  nodeStatus(log, 'folder', 'done', { outputs: { folder: 'notes' } });
  nodeStatus(log, 'list', 'running', { parent: 'folder', inputs: { path: 'notes' } });
  nodeStatus(log, 'list', 'done', { outputs: { result: ['a.md', 'b.md'] } });
  nodeStatus(log, 'files', 'running', { parent: 'list', inputs: { list: ['a.md', 'b.md'] } });
  const c0 = nodeStatus(log, 'classify', 'running', { lineage: item(0), parent: 'files', inputs: { item: 'a.md' } });
  const c1 = nodeStatus(log, 'classify', 'running', { lineage: item(1), parent: 'files', inputs: { item: 'b.md' } });
  agentRun(log, c0, 1);
  agentRun(log, c1, 2);
  nodeStatus(log, 'classify', 'done', { lineage: item(0), outputs: { output: 'notes' } });
  nodeStatus(log, 'classify', 'done', { lineage: item(1), outputs: { output: 'secret' } });
  nodeStatus(log, 'files', 'done', { outputs: { count: 2 } });
  nodeStatus(log, 'check', 'running', { lineage: item(0), parent: c0, inputs: { value: 'notes' } });
  nodeStatus(log, 'check', 'done', { lineage: item(0), outputs: { value: 'notes' } });
  nodeStatus(log, 'check', 'running', { lineage: item(1), parent: c1, inputs: { value: 'secret' } });
  nodeStatus(log, 'check', 'failed', { lineage: item(1), failure: { code: 'assert_failed', message: 'value matches /secret/' } });
  nodeStatus(log, 'gather', 'running', { parent: 'files' });
  nodeStatus(log, 'gather', 'done', { outputs: { items: ['notes'], left_out: 1 } });
  nodeStatus(log, 'report', 'running', { inputs: { items: ['notes'] } });
  nodeStatus(log, 'report', 'done', { outputs: { items: ['notes'] } });
  log.add({ type: 'run.finished', status: 'completed', outputs: { items: ['notes'] }, rounds: 3, event_count: log.events.length + 1 });
}
