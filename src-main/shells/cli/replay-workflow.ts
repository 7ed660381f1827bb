import { nodeDifferencesJson } from '@shared/contracts/result-json';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { RUN_STATUS_LABELS } from '@shared/contracts/events';
import { describeNodeDifference, invocationCount, nodeDifferencePlace, workflowDifferences, type NodeDifference } from '@shared/replay/compare-workflow-runs';
import { ReplayError } from '@shared/replay/replay-spec';
import type { CredentialStore } from '../../credentials/credential-store';
import type { ConfirmTool } from '../../engine/boundary-actors';
import { HostRegistry } from '../../registry/host-registry';
import { loadDocumentFile, type LoadedWorkflow } from '../../workflow/load-workflow';
import { onExampleCopy } from '../../demo/example-workspace';
import { loadStoredWorkflow } from '../../workflow/stored-workflow';
import { runWorkflow } from '../../workflow/run-workflow';
import { WorkflowStore } from '../../workflow/workflow-store';
import { planWorkflowRun } from '../../replay/workflow-replay-plan';
import { EXIT } from './cli-io';
import { localRecorder } from './run-recorder';
import { formatOutputs, invocationLines, nodeLabels } from './format-workflow';
import { formatPatternEvent } from './format-pattern';

/** The differences block a workflow replay ends with: one line per node invocation round or end that differs. */
export function formatNodeDifferences(differences: readonly NodeDifference[], invocations: number): string {
  if (differences.length === 0) return `differences from the recorded run: none (${invocations} node invocations, the same decisions and outputs)`;
  const where = new Set(differences.map((d) => d.invocation)).size;
  return [`differences from the recorded run: in ${where} of ${invocations} node invocations`, ...differences.map((d) => `  ${nodeDifferencePlace(d)}: ${describeNodeDifference(d)}`)].join('\n');
}

/** The workflow the run names: the --spec workflow file, else the one the data folder's host keeps by that id. */
function workflowSource(specFile: string | undefined, workflowId: string, dataDir: string, notice: (line: string) => void): LoadedWorkflow | undefined {
  if (specFile !== undefined) {
    const document = loadDocumentFile(specFile);
    if (document.kind !== 'workflow') throw new ReplayError('not_rebuildable', `${specFile} is an agent spec, and the run is of workflow "${workflowId}": give the workflow file`);
    // A shipped example: its data folder copy, where `steward run` runs it.
    return onExampleCopy(document.workflow, document.workflow.graph.id, specFile, dataDir, notice);
  }
  const store = new WorkflowStore(dataDir);
  return store.get(workflowId) ? loadStoredWorkflow(store, workflowId, new HostRegistry(dataDir), dataDir) : undefined;
}

export interface ReplayWorkflowOptions {
  events: readonly RunEvent[];
  started: RunEventOf<'workflow.started'>;
  specFile?: string;
  dataDir: string;
  live: boolean;
  json: boolean;
  trace?: (event: RunEvent) => void;
  confirm: ConfirmTool;
  credentials: CredentialStore;
  io: { stdout: (text: string) => void; stderr: (text: string) => void; signal?: AbortSignal };
}

/** `steward replay` of a workflow run: its nodes again on the recorded answers, a line per invocation, then the differences per node. */
export async function replayWorkflowCommand(options: ReplayWorkflowOptions): Promise<number> {
  const { io, json, live } = options;
  const plan = planWorkflowRun(options.events, options.started, workflowSource(options.specFile, options.started.workflow_id, options.dataDir, (line) => io.stderr(`steward: ${line}\n`)), { live });
  if (!json) io.stdout(`steward · replay of ${plan.replay.replay_of} · ${live ? 'live tools' : 'dry run (tool nodes give back their recorded results, agents execute nothing)'} · workflow ${plan.workflow.graph.name}\n`);
  for (const gap of plan.gaps) io.stderr(`note: ${gap}\n`);
  const replayed: RunEvent[] = [];
  const invocationLine = invocationLines(nodeLabels(plan.workflow.graph));
  // A replay is a run too: in the data folder's history (the app's Runs), as the app's replays are.
  const recorder = localRecorder(options.dataDir, (line) => io.stderr(`steward: ${line}\n`));
  const run = await runWorkflow({
    graph: plan.workflow.graph,
    specDir: plan.workflow.specDir,
    workspace: plan.workflow.workspace,
    inputs: plan.inputs,
    replay: plan.replay,
    ledger: recorder.ledger,
    onEvent: (event) => {
      replayed.push(event);
      recorder.onEvent(event);
      options.trace?.(event);
      const line = json ? undefined : invocationLine(event);
      if (line !== undefined) io.stdout(`${line}\n`);
      const patternLine = json ? undefined : formatPatternEvent(event);
      if (patternLine !== undefined) io.stdout(`${patternLine}\n`);
    },
    signal: io.signal,
    confirm: options.confirm,
    // Every model is the recorded answers: nothing leaves this machine.
    privacy: { allowed_hosts: [] },
    credentials: options.credentials,
    onProgress: (line) => io.stderr(`${line}\n`),
  });
  const recorded = await recorder.finish();
  if (!recorded.ok) io.stderr(`steward: the replay is not in the data folder's history yet: ${recorded.message}\n`);
  if (run.setup_error !== undefined) {
    io.stderr(`steward: ${run.setup_error}\n`);
    return EXIT.badInput;
  }
  const differences = workflowDifferences(options.events, replayed);
  const invocations = invocationCount(options.events, replayed);
  if (json) {
    const { checkpoint: _checkpoint, setup_error: _setup, ...printable } = run;
    io.stdout(`${JSON.stringify({ ...printable, replay_of: plan.replay.replay_of, dry_run: !live, gaps: plan.gaps, differences: nodeDifferencesJson(differences) }, null, 2)}\n`);
  } else {
    io.stdout(`${RUN_STATUS_LABELS[run.status].toLowerCase()} · ${run.invocations.length} node invocation(s)${run.message ? ` · ${run.message}` : ''}\n`);
    for (const line of formatOutputs(run.outputs)) io.stdout(`${line}\n`);
    io.stdout(`${formatNodeDifferences(differences, invocations)}\n`);
  }
  return differences.length === 0 ? EXIT.ok : EXIT.runNotCompleted;
}
