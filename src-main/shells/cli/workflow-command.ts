import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@shared/contracts/events';
import { interventionsJson } from '@shared/contracts/result-json';
import { PriceListStore } from '../../accounting/price-list-store';
import { runCostOfEvents } from '@shared/accounting/run-cost';
import { storedRunCost, supervisionLine } from './run-cost-output';
import type { CredentialStore } from '../../credentials/credential-store';
import type { ConfirmTool } from '../../engine/boundary-actors';
import type { IdempotencyLedger } from '../../mcp/idempotency-ledger';
import type { LoadedWorkflow } from '../../workflow/load-workflow';
import { runWorkflow, type RunWorkflowOptions, type WorkflowRun } from '../../workflow/run-workflow';
import { formatOutputs, invocationLines, nodeLabels, workflowResultLines } from './format-workflow';
import { runExitCode } from './cli-io';
import { formatModelRetry } from './format-round';
import { formatPatternEvent, patternsOf } from './format-pattern';
import { workflowInputs } from './workflow-inputs';
import { waitingHint } from './park-run';
import { runIdLine } from './format-history';
import type { RunRecorder } from './run-recorder';
import type { HostedFolder } from './hosted-folder';
import { followToTheEnd } from './follow-run';
import { askAtTerminal, type ReadLine } from './ask-at-terminal';
import { ZodError } from 'zod';
import { supervisorConsentText } from '@shared/supervisor/consent';
import { SpecError } from '../../spec/spec-errors';
import { resolveSupervision, supervisionAsked, type SupervisionOverrides } from '../../workflow/supervision/resolve-supervision';
import type { WorkflowSupervisionOptions } from '../../workflow/supervision/workflow-supervision';
import { formatEscalated, formatSummary, formatVerdict, SHIELD, summarizeSupervision, type SupervisionSummary } from './format-supervision';
import { toolProgressOutput } from './tool-progress-output';
import { childRunsOf } from '@shared/workflow/child-runs';
import { workflowLibrary } from '../../workflow/workflow-library';
import { nestedProgress } from './format-subworkflow';
import type { CliSpeech } from './cli-speech';

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
  /** The supervision flags, over the workflow's own `supervisor` settings. */
  supervision?: SupervisionOverrides;
  /** A server's question for the person, asked at this terminal (absent: servers are told nobody can answer). */
  onElicit?: RunWorkflowOptions['onElicit'];
  /** A remote server asking for a wider scope mid-run: its page opened for the person here. */
  oauthConsent?: RunWorkflowOptions['oauthConsent'];
  /** A server with sampling "ask": the person allows each request here. */
  onReviewSample?: RunWorkflowOptions['onReviewSample'];
  /** Where the run's events go: the data folder's one journal (the app's Runs). */
  recorder: RunRecorder;
  /** The app runs this command: a run that waits stays attached until it is answered there. */
  follow?: HostedFolder;
  /** Delivered responses spoken where an agent node's Synthesis group is on (cli-speech.ts). */
  speech?: CliSpeech;
}

/**
 * What `--json` prints: the run, without the host-side checkpoint (it holds raw arguments); a
 * supervised run's interventions too; a waiting agent node's round numbered from 1, as on screen.
 */
function printable(run: WorkflowRun, supervision?: SupervisionSummary): Omit<WorkflowRun, 'checkpoint' | 'setup_error'> & { supervision?: SupervisionSummary } {
  const { checkpoint: _checkpoint, setup_error: _setup, interventions, ...rest } = run;
  const shown = interventions ? { ...rest, interventions: interventionsJson(interventions) } : rest;
  return supervision ? { ...shown, supervision } : shown;
}

/** `steward run WORKFLOW`: a line per node invocation status change, then the outputs. Returns the exit code (0, 1, 2, 3, 4: EXIT). */
export async function workflowCommand(options: WorkflowCommandOptions): Promise<number> {
  const { loaded, io, json } = options;
  const inputs = workflowInputs(loaded.graph, options.inputPairs, options.inputsFile);
  if (!json) io.stdout(`steward · workflow ${loaded.graph.name} · ${loaded.graph.nodes.length} node(s)\n`);
  // Kept for the summary and a resumed part's numbering; every one also goes to the data folder's journal.
  const events: RunEvent[] = [];
  const privacy = { allowed_hosts: options.allowedHosts };
  const supervision = await workflowSupervision(options, privacy);
  const progress = toolProgressOutput({ write: io.stderr, json });
  // Invocations named as the app's nodes list names them ("work · item 2").
  const labelOf = nodeLabels(loaded.graph);
  const runId = randomUUID();
  const invocationLine = invocationLines(labelOf);
  const onEvent = (event: RunEvent) => {
    events.push(event);
    options.recorder.onEvent(event);
    options.speech?.onEvent(event);
    show(event);
  };
  // What the person sees of an event (and the --trace copy); also of a resumed part the command follows.
  const show = (event: RunEvent) => {
    options.trace?.(event);
    progress(event);
    // ⛨ lines go to stderr, so --json output stays one JSON object.
    if (supervision) printSupervisionEvent(event, io.stderr);
    if (json) return;
    // A stored workflow a node runs (issue 29): its progress under the node, indented; the rest is this run's own.
    for (const line of nested(event)) io.stdout(`${line}\n`);
    if (event.run_id !== runId) return;
    const line = invocationLine(event);
    if (line !== undefined) io.stdout(`${line}\n`);
    const patternLine = formatPatternEvent(event);
    if (patternLine !== undefined) io.stdout(`${patternLine}\n`);
    if (event.type === 'model.retry') io.stdout(`    ${formatModelRetry(event)}\n`);
  };
  const nested = nestedProgress(runId);
  const runOptions = {
    runId,
    graph: loaded.graph,
    specDir: loaded.specDir,
    workspace: loaded.workspace,
    inputs,
    ledger: options.ledger,
    onEvent,
    signal: io.signal,
    confirm: options.confirm,
    ollamaHost: io.env.OLLAMA_HOST,
    privacy,
    credentials: options.credentials,
    onProgress: (line: string) => io.stderr(`${line}\n`),
    ...(supervision ? { supervision } : {}),
    // Workflow nodes and workflow tools run the data folder's stored workflows (issue 29).
    library: workflowLibrary(options.dataDir),
    ...(options.onElicit ? { onElicit: options.onElicit } : {}),
    ...(options.oauthConsent ? { oauthConsent: options.oauthConsent } : {}),
    ...(options.onReviewSample ? { onReviewSample: options.onReviewSample } : {}),
    // Nobody answers here: with the app running, the run waits there from the moment a node waits.
    ...(options.recorder.persistWaiting && (json || !io.line)
      ? { persistWaiting: options.recorder.persistWaiting.workflow, dropWaiting: () => options.recorder.persistWaiting?.drop(runId) }
      : {}),
  };
  let run: WorkflowRun;
  try {
    run = await runWorkflow(runOptions);
    // A person at the terminal answers a waiting node here; the workflow resumes in this process.
    while (!json && io.line && run.status === 'waiting' && run.checkpoint && run.interventions?.[0]) {
      const [{ invocation_id, intervention }] = run.interventions;
      const answer = await askAtTerminal(intervention, { stderr: io.stderr, line: io.line });
      if (!answer) break;
      const next_seq = Math.max(run.checkpoint.next_seq, ...events.filter((e) => e.run_id === run.run_id).map((e) => e.seq + 1));
      run = await runWorkflow({ ...runOptions, resume: { checkpoint: run.checkpoint, answer, invocation: invocation_id, next_seq } });
    }
  } catch (error) {
    await options.recorder.finish();
    throw error;
  } finally {
    options.speech?.finish();
  }
  const parking = run.status === 'waiting' ? run.checkpoint : undefined;
  // The run's last events and its checkpoint in one commit: the run is in the history before anyone can answer it.
  const recorded = await options.recorder.finish(parking);
  if (!recorded.ok && !parking) io.stderr(`steward: the run is not in the data folder's history yet: ${recorded.message}\n`);
  if (run.setup_error !== undefined) {
    io.stderr(`steward: ${run.setup_error}\n`);
    return 2;
  }
  const summary = supervision && !('unavailable' in supervision.supervisor) ? summarizeSupervision(events) : undefined;
  if (summary) io.stderr(`${formatSummary(summary)}\n`);
  if (json) {
    const children = childRunsOf(events.filter((e) => e.run_id === run.run_id));
    io.stdout(`${JSON.stringify({ ...printable(run, summary), ...patternsOf(events), ...(children.length > 0 ? { children } : {}), cost: storedRunCost(events, options.dataDir) }, null, 2)}\n`);
  } else {
    for (const line of workflowResultLines(run, events.some((e) => e.type === 'supervisor.verdict'))) io.stdout(`${line}\n`);
    for (const line of formatOutputs(run.outputs)) io.stdout(`${line}\n`);
    const costLine = supervisionLine(runCostOfEvents(events, new PriceListStore(options.dataDir).read().prices));
    if (costLine) io.stdout(`${costLine}\n`);
    // A run that waits says its id in the answer lines below.
    if (!parking) io.stdout(`${runIdLine(run.run_id, recorded.ok)}\n`);
  }
  if (parking) {
    // The run waits in the data folder, for `steward answer` or the app.
    if (!recorded.ok) {
      io.stderr(`steward: the run cannot wait for your answer: ${recorded.message}\n`);
      return 1;
    }
    const waiting = run.interventions ?? [];
    for (const { intervention } of waiting) (json ? io.stderr : io.stdout)(`${waitingHint(run.run_id, intervention, options.dataDirGiven, waiting.length > 1)}\n`);
    if (options.follow) return followToTheEnd(options.follow, run.run_id, io, show, options.speech);
    return 3;
  }
  return runExitCode(run.status);
}

/**
 * The run's supervision from the workflow's settings and the flags (resolve-supervision.ts, as the
 * app resolves it). A model that is not on this machine is told apart by its consent text, printed
 * once before the run.
 */
async function workflowSupervision(options: WorkflowCommandOptions, privacy: { allowed_hosts: string[] }): Promise<WorkflowSupervisionOptions | undefined> {
  const source = { graph: options.loaded.graph, ...(options.supervision ? { overrides: options.supervision } : {}) };
  if (!supervisionAsked(source)) {
    if (options.supervision && Object.keys(options.supervision).length > 0) {
      throw new SpecError('the supervisor flags need --supervise (or a workflow whose supervisor settings are enabled)');
    }
    return undefined;
  }
  let supervision: WorkflowSupervisionOptions | undefined;
  try {
    supervision = await resolveSupervision(source, { privacy, ollamaHost: options.io.env.OLLAMA_HOST, credentials: options.credentials, prices: new PriceListStore(options.dataDir).read().prices });
  } catch (error) {
    if (error instanceof ZodError) throw new SpecError(`the supervisor settings: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    throw error;
  }
  const identity = supervision && !('unavailable' in supervision.supervisor) ? supervision.supervisor.identity : undefined;
  if (identity?.kind === 'model' && !identity.local) options.io.stderr(`${SHIELD} ${supervisorConsentText(identity.label, false)}\n`);
  // As the app's run header says "Supervisor: you": no model decides, so a failed node waits for a person.
  if (identity?.kind === 'person') options.io.stderr(`${SHIELD} ${personSupervisorText(options.io.line !== undefined && !options.json)}\n`);
  return supervision;
}

/** What `--supervise` with no supervisor model means, said before the run: you decide each node that still fails. */
export function personSupervisorText(atTerminal: boolean): string {
  const where = atTerminal ? 'you are asked here' : 'the run waits for you: answer with steward answer RUN_ID --verdict …, or in the app (Waiting for you)';
  return `supervisor: you (no supervisor model is set) — a node that still fails after its own retries waits for your verdict; ${where}`;
}

function printSupervisionEvent(event: RunEvent, stderr: (text: string) => void): void {
  if (event.type === 'supervisor.escalated') stderr(`${formatEscalated(event)}\n`);
  if (event.type === 'supervisor.verdict') stderr(`${formatVerdict(event)}\n`);
  if (event.type === 'run.notice') stderr(`${SHIELD} ${event.message}\n`);
}
