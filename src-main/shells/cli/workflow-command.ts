import type { RunEvent } from '@shared/contracts/events';
import { RUN_STATUS_LABELS } from '@shared/contracts/events';
import type { CredentialStore } from '../../credentials/credential-store';
import type { ConfirmTool } from '../../engine/boundary-actors';
import type { IdempotencyLedger } from '../../mcp/idempotency-ledger';
import type { LoadedWorkflow } from '../../workflow/load-workflow';
import { runWorkflow, type WorkflowRun } from '../../workflow/run-workflow';
import { formatInvocation, formatOutputs } from './format-workflow';
import { formatModelRetry } from './format-round';
import { workflowInputs } from './workflow-inputs';
import { parkInDataFolder, waitingHint } from './park-run';
import { askAtTerminal, type ReadLine } from './ask-at-terminal';

export interface WorkflowCommandOptions {
  loaded: LoadedWorkflow;
  inputPairs: readonly string[];
  inputsFile?: string;
  json: boolean;
  trace?: (event: RunEvent) => void;
  ledger: IdempotencyLedger;
  confirm: ConfirmTool;
  allowedHosts: string[];
  credentials: CredentialStore;
  io: { stdout: (text: string) => void; stderr: (text: string) => void; env: NodeJS.ProcessEnv; signal?: AbortSignal; line?: ReadLine };
  /** Where a run that waits for a person is kept (`dataDirGiven`: named in the printed commands). */
  dataDir: string;
  dataDirGiven?: string;
}

/** What `--json` prints: the run, without the host-side checkpoint (it holds raw arguments). */
function printable(run: WorkflowRun): Omit<WorkflowRun, 'checkpoint' | 'setup_error'> {
  const { checkpoint: _checkpoint, setup_error: _setup, ...rest } = run;
  return rest;
}

/** `steward run WORKFLOW`: a line per node invocation status change, then the outputs. Returns the exit code (0, 1, 2). */
export async function workflowCommand(options: WorkflowCommandOptions): Promise<number> {
  const { loaded, io, json } = options;
  const inputs = workflowInputs(loaded.graph, options.inputPairs, options.inputsFile);
  if (!json) io.stdout(`steward · workflow ${loaded.graph.name} · ${loaded.graph.nodes.length} node(s)\n`);
  // Kept for a run that ends up waiting: its events go into the data folder with its checkpoint.
  const events: RunEvent[] = [];
  const onEvent = (event: RunEvent) => {
    events.push(event);
    options.trace?.(event);
    if (json) return;
    if (event.type === 'node.invocation' && event.status !== 'pending') io.stdout(`${formatInvocation(event)}\n`);
    if (event.type === 'model.retry') io.stdout(`    ${formatModelRetry(event)}\n`);
  };
  const runOptions = {
    graph: loaded.graph,
    specDir: loaded.specDir,
    workspace: loaded.workspace,
    inputs,
    ledger: options.ledger,
    onEvent,
    signal: io.signal,
    confirm: options.confirm,
    ollamaHost: io.env.OLLAMA_HOST,
    privacy: { allowed_hosts: options.allowedHosts },
    credentials: options.credentials,
    onProgress: (line: string) => io.stderr(`${line}\n`),
  };
  let run = await runWorkflow(runOptions);
  // A person at the terminal answers a waiting node here; the workflow resumes in this process.
  while (!json && io.line && run.status === 'waiting' && run.checkpoint && run.interventions?.[0]) {
    const [{ invocation_id, intervention }] = run.interventions;
    const answer = await askAtTerminal(intervention, { stderr: io.stderr, line: io.line });
    if (!answer) break;
    const next_seq = Math.max(run.checkpoint.next_seq, ...events.filter((e) => e.run_id === run.run_id).map((e) => e.seq + 1));
    run = await runWorkflow({ ...runOptions, resume: { checkpoint: run.checkpoint, answer, invocation: invocation_id, next_seq } });
  }
  if (run.setup_error !== undefined) {
    io.stderr(`steward: ${run.setup_error}\n`);
    return 2;
  }
  if (json) {
    io.stdout(`${JSON.stringify(printable(run), null, 2)}\n`);
  } else {
    const label = run.status === 'waiting' ? RUN_STATUS_LABELS.waiting : RUN_STATUS_LABELS[run.status];
    io.stdout(`${label.toLowerCase()} · ${run.invocations.length} node invocation(s)${run.message ? ` · ${run.message}` : ''}\n`);
    for (const line of formatOutputs(run.outputs)) io.stdout(`${line}\n`);
  }
  if (run.status === 'waiting' && run.checkpoint) {
    // The run waits in the data folder, for `steward answer` or the app.
    const parked = parkInDataFolder(options.dataDir, run.checkpoint, events, (line) => io.stderr(`steward: ${line}\n`));
    if (!parked.ok) {
      io.stderr(`steward: the run cannot wait for your answer: ${parked.message}\n`);
      return 1;
    }
    const waiting = run.interventions ?? [];
    for (const { intervention } of waiting) (json ? io.stderr : io.stdout)(`${waitingHint(run.run_id, intervention, options.dataDirGiven, waiting.length > 1)}\n`);
    return 3;
  }
  return run.status === 'completed' ? 0 : 1;
}
