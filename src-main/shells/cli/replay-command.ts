import { existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { RunEvent } from '@shared/contracts/events';
import { differencesJson } from '@shared/contracts/result-json';
import { compareDecisions } from '@shared/replay/compare-runs';
import { roundDecisions } from '@shared/replay/round-decisions';
import { ReplayError } from '@shared/replay/replay-spec';
import { replayableWorkflowStart } from '@shared/replay/workflow-replay';
import { createKeychainStore } from '../../credentials/keychain-store';
import { prepareDemoWorkspace } from '../../demo/demo-workspace';
import { onExampleCopy } from '../../demo/example-workspace';
import { runAgent } from '../../engine/run-agent';
import { readTraceEvents } from '../../otlp/read-trace-events';
import { journalFileRunEvents, journalFileRunNamed } from '../../replay/journal-file-run';
import { planReplay } from '../../replay/replay-plan';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import { loadDocumentFile } from '../../workflow/load-workflow';
import { agentRunPrinter, jsonResult } from './agent-run-output';
import { confirmPolicy, EXIT, type CliIo } from './cli-io';
import { localRecorder } from './run-recorder';
import { formatDifferences } from './format-differences';
import { replayWorkflowCommand } from './replay-workflow';
import { replayableTrial } from '../../learning/trial/replay-trial';
import { replayTrialCommand } from '../../learning/trial/replay-trial-command';
import { openTraceWriter } from './trace-writer';
import { ambiguousWords } from './run-named-words';
import { wrapUsage } from '@shared/util/wrap-usage';

export const REPLAY_USAGE = wrapUsage(`Usage: steward replay TRACE.jsonl|RUN_ID [--live] [--json] [--spec FILE] [--trace OUT.jsonl]
                      [--yes | --no-confirm] [--data-dir DIR]

  Runs a recorded agent run again on its recorded model answers (the student's and the teacher's,
  SCS's committee and monitor), then lists the rounds whose decisions differ from the recorded ones
  (tool, arguments, verdict, authorization, executed or not, outcome). A workflow run: each agent
  node invocation answers with its own recorded answers, and the differences are listed per node
  invocation (node, item, round; or what it ended with). A student trial (steward trial): the
  candidate's recorded replies are given back (no model is called), each round is parsed, validated
  and compared again by today's code, and the replay's report is compared with the recorded one.
  TRACE.jsonl   a --trace file of one run; RUN_ID: a run of the app, from the data folder's journal
  --live        execute the tools, through the decision boundary and authorization as any run
                (default: a dry run, no tool executes; a workflow's tool nodes give back their
                recorded results)
  --spec FILE   the spec or workflow file the run ran (default: the demo of the same id, or the
                workflow the app keeps in the data folder); it must still have the run's task and
                workspace (a workflow: its nodes)
  --json        one JSON object: the replay's result, replay_of, gaps and differences

Exit codes: 0 the same decisions · 1 they differ · 2 bad input`);

async function recordedEvents(source: string, dataDir: string): Promise<{ events: RunEvent[]; runId: string }> {
  if (existsSync(source)) {
    const { events } = await readTraceEvents(source);
    const runs = [...new Set(events.map((e) => e.run_id))];
    if (runs.length > 1) throw new SpecError(`${source} holds ${runs.length} runs (${runs.slice(0, 5).join(', ')}): replay takes a trace of one run`);
    return { events, runId: runs[0] ?? source };
  }
  if (source.endsWith('.jsonl')) throw new SpecError(`cannot read trace ${source}: no such file`);
  // A run id as `steward runs list` prints it (its first 8 characters) or whole; one that names no run has no events.
  const named = journalFileRunNamed(dataDir, source);
  if (named.kind === 'ambiguous') throw new SpecError(ambiguousWords(source, named));
  const runId = named.kind === 'run' ? named.runId : source;
  return { events: await journalFileRunEvents(dataDir, runId), runId };
}

/** The workflow the run names: the --spec file, else the demo of that id (as the app runs it, in the data folder). */
function workflowSource(specFile: string | undefined, specId: string | undefined, dataDir: string, notice: (line: string) => void) {
  if (specFile !== undefined) {
    const document = loadDocumentFile(specFile);
    if (document.kind !== 'agent') throw new ReplayError('unsupported', `${specFile} is a workflow (kind "workflow"): replay handles agent runs only for now`);
    // A shipped example: its data folder copy, where the CLI and the app run it.
    const loaded = onExampleCopy(document.spec, document.spec.spec.id, specFile, dataDir, notice);
    return { spec: loaded === document.spec ? loaded.spec : { ...loaded.spec, workspace: loaded.workspace }, specDir: loaded.specDir };
  }
  const demo = prepareDemoWorkspace(dataDir).find((s) => s.id === specId);
  return demo ? { spec: demo, specDir: dataDir } : undefined;
}

/** `steward replay`: the recorded run again on its answers, printed like `steward run`, then the differences. */
export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    io.stdout(`${REPLAY_USAGE}\n`);
    return EXIT.ok;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        live: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        spec: { type: 'string' },
        trace: { type: 'string' },
        yes: { type: 'boolean', default: false },
        'no-confirm': { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
      },
    });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${REPLAY_USAGE}`);
  }
  const { values, positionals } = parsed;
  const source = positionals[0];
  if (!source || positionals.length > 1) throw new SpecError(`replay needs exactly one TRACE.jsonl or RUN_ID\n\n${REPLAY_USAGE}`);
  if (values.yes && values['no-confirm']) throw new SpecError('--yes and --no-confirm contradict each other');
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : defaultDataDir(io.env);
  const json = values.json === true;
  const live = values.live === true;

  const { events, runId } = await recordedEvents(source, dataDir);
  let plan;
  try {
    // A student trial (issue 31): its recorded candidate replies compared again, no model called.
    if (replayableTrial(events, runId)) return await replayTrialCommand({ events, dataDir, json, io });
    const graphStart = replayableWorkflowStart(events, runId);
    if (graphStart) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      return await replayWorkflowCommand({
        events,
        started: graphStart,
        ...(values.spec !== undefined ? { specFile: values.spec } : {}),
        dataDir,
        live,
        json,
        ...(typeof values.trace === 'string' ? { trace: openTraceWriter(values.trace) } : {}),
        confirm: confirmPolicy(values.yes === true, values['no-confirm'] === true, io, json, 'unavailable'),
        credentials: io.credentials ? io.credentials() : createKeychainStore(),
        io,
      });
    }
    const specId = events.find((e) => e.type === 'run.started' || e.type === 'workflow.started');
    plan = planReplay(events, runId, workflowSource(values.spec, specId?.type === 'run.started' ? specId.spec_id : undefined, dataDir, (line) => io.stderr(`steward: ${line}\n`)), { live });
  } catch (err) {
    if (err instanceof ReplayError) {
      const hint = err.problem === 'not_rebuildable' && err.message.includes('changed since') && values.spec === undefined ? ' (give the spec file it ran with: --spec FILE)' : '';
      throw new SpecError(`${err.message}${hint}`);
    }
    throw err;
  }

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const trace = typeof values.trace === 'string' ? openTraceWriter(values.trace) : undefined;
  const replayed: RunEvent[] = [];
  // A replay is a run too: in the data folder's history (the app's Runs), as the app's replays are.
  const recorder = localRecorder(dataDir, (line) => io.stderr(`steward: ${line}\n`));
  const printer = agentRunPrinter(io, json, (event) => {
    replayed.push(event);
    recorder.onEvent(event);
    trace?.(event);
  });
  if (!json) io.stdout(`steward · replay of ${plan.replayOf} · ${live ? 'live tools' : 'dry run (no tool executes)'} · ${plan.spec.name}\n`);
  for (const gap of plan.gaps) io.stderr(`note: ${gap}\n`);
  const result = await runAgent({
    spec: plan.spec,
    specDir: plan.specDir,
    workspace: plan.workspace,
    script: plan.spec.script,
    replayOf: plan.replayOf,
    dryRun: !live,
    ledger: recorder.ledger,
    onEvent: printer.onEvent,
    signal: io.signal,
    confirm: confirmPolicy(values.yes === true, values['no-confirm'] === true, io, json, 'unavailable'),
    // Both models are the recorded answers: nothing leaves this machine.
    privacy: { allowed_hosts: [] },
    credentials: io.credentials ? io.credentials() : createKeychainStore(),
    onProgress: (line) => io.stderr(`${line}\n`),
  });
  const recorded = await recorder.finish();
  if (!recorded.ok) io.stderr(`steward: the replay is not in the data folder's history yet: ${recorded.message}\n`);
  if (result.setup_error !== undefined) {
    io.stderr(`steward: ${result.setup_error}\n`);
    return EXIT.badInput;
  }
  const rounds = compareDecisions(roundDecisions(events), roundDecisions(replayed));
  const differences = rounds.filter((c) => c.kind !== 'same');
  if (json) {
    io.stdout(`${JSON.stringify({ ...jsonResult(result), run_id: replayed[0]?.run_id, replay_of: plan.replayOf, dry_run: !live, gaps: plan.gaps, differences: differencesJson(differences) }, null, 2)}\n`);
  } else {
    printer.summary(result);
    io.stdout(`${formatDifferences(differences, rounds.length)}\n`);
  }
  return differences.length === 0 ? EXIT.ok : EXIT.runNotCompleted;
}
