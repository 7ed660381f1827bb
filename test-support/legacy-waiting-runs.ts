import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../src-shared/contracts/events';
import { AgentSpec } from '../src-shared/contracts/spec';
import type { RunCheckpoint } from '../src-main/engine/checkpoint';
import { runAgent } from '../src-main/engine/run-agent';
import { waitingRunsDir, waitingWorkflowsDir } from '../src-main/engine/waiting-stores';
import { createMemoryLedger } from '../src-main/mcp/idempotency-ledger';
import { runWorkflow } from '../src-main/workflow/run-workflow';
import type { WorkflowCheckpoint } from '../src-main/workflow/workflow-checkpoint';
import { escalatingWorkflow } from './escalating-workflow';
import { askingSpecInput } from './asking-spec';

/**
 * Test fixture (issue 26): runs that wait for a person as an older Steward left them — their events
 * in the history, their checkpoints as JSON files in `waiting-runs/` and `waiting-workflows/` of the
 * data folder, named as its file store named them.
 */

export interface WaitingBefore<T> {
  checkpoint: T;
  events: RunEvent[];
}

/** An agent run whose teacher escalates writing `shared.md` in `workspace` to a person; approved, it writes it and completes. */
export async function escalatedAgentRun(specDir: string, workspace: string): Promise<WaitingBefore<RunCheckpoint>> {
  const spec = AgentSpec.parse(askingSpecInput({ phase: 3, on_escalate: 'human' }));
  const events: RunEvent[] = [];
  const script = {
    latency_ms: 0,
    student: [
      { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'shared.md'), content: 'for everyone' } } },
      { json: { decision_type: 'complete', output: 'shared it' } },
    ],
    teacher: [
      { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } },
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } },
    ],
    committee: [],
    monitor: [],
  };
  const run = await runAgent({ spec, specDir, workspace, script, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  if (!run.checkpoint) throw new Error(`expected a waiting agent run, got ${run.status}`);
  return { checkpoint: run.checkpoint, events };
}

/** A workflow run whose agent node waits for a person to approve writing `shared.md` in `workspace`. */
export async function escalatedWorkflowRun(specDir: string, workspace: string): Promise<WaitingBefore<WorkflowCheckpoint>> {
  const events: RunEvent[] = [];
  const run = await runWorkflow({ graph: escalatingWorkflow(workspace), specDir, workspace, inputs: { name: 'shared.md' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  if (!run.checkpoint) throw new Error(`expected a waiting workflow run, got ${run.status}`);
  return { checkpoint: run.checkpoint, events };
}

/** Writes a checkpoint where and as an older Steward's file store kept it; returns the file. */
export function writeLegacyCheckpoint(dataDir: string, checkpoint: RunCheckpoint | WorkflowCheckpoint, name = `${checkpoint.run_id.replaceAll(':', '_')}.json`): string {
  const dir = 'kind' in checkpoint ? waitingWorkflowsDir(dataDir) : waitingRunsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(checkpoint));
  return file;
}
