import { mkdirSync } from 'node:fs';
import { typedPath } from './typed-path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { modelLabel } from '@shared/contracts/model';
import { PHASE_LABELS } from '@shared/contracts/spec';
import { LifecyclePhase, type AgentSpec } from '@shared/contracts/spec';
import { createKeychainStore } from '../../credentials/keychain-store';
import { runAgent, type AgentRun } from '../../engine/run-agent';
import { credentialsCommand } from './credentials-command';
import { mcpCommand } from '../../mcp/oauth/sign-in-command';
import { browserFor, openBrowser, shouldOpenBrowser } from '../open-browser';
import type { OAuthConsent } from '../../mcp/mcp-tool-host';
import { evalCommand } from '../../eval/eval-command';
import { trialCommand } from '../../learning/trial/trial-command';
import { replayCommand } from './replay-command';
import { serversCommand } from './servers-command';
import { learningCommand } from './learning-command';
import { traceCommand } from './otlp-command';
import { runsCommand } from './runs-command';
import { answerCommand } from './answer-command';
import type { ReadLine } from './ask-at-terminal';
import { elicitAtTerminal } from './elicit-at-terminal';
import { reviewSampleAt } from './review-sample-at-terminal';
import type { ReviewSample } from '../../mcp/reviewed-sampling';
import type { ElicitationAsk, ElicitationReply } from '../../mcp/client-capabilities';
import { answerWithDefaults } from '../../mcp/elicitation-defaults';
import { confirmPolicy, EXIT, runExitCode, type CliIo } from './cli-io';
export { confirmPolicy, EXIT, type CliIo } from './cli-io';
import { answerAtTerminal, waitingHint } from './park-run';
import { hostedRecorder, localRecorder, type RunRecorder } from './run-recorder';
import { followToTheEnd } from './follow-run';
import type { RunEvent } from '@shared/contracts/events';
import { loadDocumentFile } from '../../workflow/load-workflow';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import { APP_VERSION } from '../../version';
import { agentRunPrinter, jsonResult } from './agent-run-output';
import { RunCostTally } from './run-cost-output';
import { runIdLine } from './format-history';
import { ScsMode } from '@shared/scs/contracts';
import { openTraceWriter } from './trace-writer';
import { validateCommand } from './validate-command';
import { workflowCommand } from './workflow-command';
import { onExampleCopy } from '../../demo/example-workspace';
import { commandUsage } from './command-usage';
import { openCommand } from './open-command';
import { anySupervisionFlag, SUPERVISION_FLAGS, supervisionOverrides } from './supervision-flags';
import { storedDocument, storedRunHosts, storedWorkflowName, workflowsCommand } from './workflows-command';
import { cliSpeech } from './cli-speech';
import { wrapUsage } from '@shared/util/wrap-usage';
import { namesStoredWorkflow } from './names-stored-workflow';


const USAGE = wrapUsage(`Usage:
  steward run FILE|NAME [--json] [--trace OUT.jsonl] [--phase 0-4] [--yes | --no-confirm]
                   [--scs on|off|auto] [--allow-host HOST]... [--data-dir DIR]
                   [--input KEY=VALUE]... [--inputs FILE.json] [--detach]
                   [--supervise] [--max-decisions N] [--max-retries N]
                   [--supervisor-cost-cap USD] [--supervisor-model MODEL] [--no-speech]
  steward dry-run FILE [the run options]
  steward validate FILE|NAME [--data-dir DIR] [--allow-host HOST]...
  steward replay TRACE.jsonl|RUN_ID [--live] [--json] [--spec FILE] [--data-dir DIR]
  steward workflows list [--json] | import FILE [--as ID] [--replace] | export ID [-o FILE]
                   | delete ID [--data-dir DIR]
  steward servers list [--json] | trust ID trusted|untrusted [--data-dir DIR]
  steward answer RUN_ID approve|reject|decline|stop|takeover|yes|no [--note TEXT] | reply TEXT
                   | approve --arguments JSON | reject --feedback TEXT [--cite ID]... | escalate
                   | --verdict retry|skip|substitute|end_stream|fail [--reason TEXT] [--value JSON]
                   [--intervention ID] [--data-dir DIR]
  steward runs list [--status S]... [--workflow ID] [--since WHEN] [--until WHEN]
                   [--imported|--ran-here] [--oldest] [--limit N] [--after RUN_ID] [--json]
                   [--data-dir DIR]
  steward runs search WORDS|RUN_ID [the list options] | show RUN_ID [--json] [--data-dir DIR]
  steward runs export RUN_ID... -o FILE.jsonl|- [--without-children] [--data-dir DIR]
  steward runs delete RUN_ID... | import FILE.jsonl... | waiting [--json] [--data-dir DIR]
  steward credentials set NAME | list | delete NAME
  steward mcp sign-in|sign-out|status FILE SERVER [--allow-host HOST]...
  steward learning export TRACE.jsonl [TRACE.jsonl …] --format sft|preference -o|--output OUT.jsonl
  steward learning promotion [WORKFLOW_ID] [--node NODE] [--window N] [--json] [--data-dir DIR]
  steward trace otlp TRACE.jsonl [-o|--output OUT.json] [--endpoint URL] [--allow-host HOST]...
  steward eval supervisor|boundary [--json FILE] [--min-success GATE=VALUE]... [--case TEXT]
                   [--supervisor|--teacher DOUBLE] [--data-dir DIR]
  steward eval verdicts --teacher MODEL | --profile FILE [--json] [--limit N] [--allow-host HOST]...
                   [--data-dir DIR]
  steward trial NODE --student MODEL [--rounds N] [--workflow FILE_OR_ID] [--json]
                [--allow-host HOST]... [--data-dir DIR]
  steward open [--data-dir DIR] [--print]
  steward --version

  run          run an agent spec or a workflow (kind "workflow") through the decision boundary;
               NAME (not a file): the workflow stored in the data folder under that id (the app's)
               --data-dir    Steward's data folder (default STEWARD_DATA_DIR, else the platform's)
               --json        print one JSON object (status, output, history, rounds, executions;
                             for a workflow: status, outputs, every node invocation)
               --input       a workflow input: text for a text field, else JSON when it parses
               --inputs      workflow inputs from a JSON object file (--input wins)
               --trace       write every event as JSON lines to OUT.jsonl
               --phase       override the lifecycle phase (0 teacher only, 1 shadow,
                             2 fully gated, 3 risk-gated, 4 autonomous)
               --yes         approve tools that need the user's confirmation
               --no-confirm  decline them (an agent's call is blocked, a workflow step declined);
                             without either, the run waits for you: approve, reject (the agent is
                             told your note and proposes again), or stop the run; a workflow's
                             tool step: approve, decline (don't run it) or stop
               A run that waits for a person (the agent asks you, a tool needs your confirmation,
               the teacher escalates) asks at the terminal and goes on; without a terminal it
               waits in the data folder: the run id and the steward answer commands are printed,
               and the exit code is 3.
               Every run is in the data folder's history (the app's Runs). While the app runs,
               the command hands the run to it and prints it as here; a run that waits then
               stays attached until it is answered (in the app or with steward answer) and
               prints the rest (Ctrl+C lets go; --detach or --json: exit 3 at once)
               --allow-host  let a model on this host see the run (default: local models only;
                             a stored workflow NAME also gets the data folder's privacy policy)
               --scs         Student·Committee·Supervisor gates: a committee plans each phase,
                             the student monitors, the supervisor executes (auto: risky work only)
               --supervise   a workflow: a node that still fails after its own retries is decided
                             by a supervisor (retry, skip, substitute, end_stream or fail): a model,
                             or with no model set, you (asked at the terminal, else the run waits
                             for steward answer RUN_ID --verdict …); ⛨ lines on stderr, a summary
                             at the end, interventions in --json.
                             Over the workflow's own supervisor settings: --max-decisions (per run),
                             --max-retries (per invocation), --supervisor-cost-cap (US dollars),
                             --supervisor-model replay | ollama:MODEL | URL#MODEL | a model ref
                             as JSON
               --no-speech   say nothing aloud: an agent whose Synthesis group is on speaks its
                             delivered answers, questions and results through espeak-ng otherwise
  dry-run      run an agent spec with no tool executing: each decision goes through the boundary
               and review as in a run, each tool call is recorded as not executed; a dry run never
               makes learning examples nor counts toward promotion
  validate     check a spec: schema, script, servers start, allowlisted tools exist; a remote
               server on another host only with --allow-host (steward validate --help)
  replay       run a recorded run again on its recorded model answers (a dry run unless --live)
               and list the rounds whose decisions differ (steward replay --help)
  workflows    the workflows stored in the data folder, the same ones the app shows: list them,
               import a file the app exported (--as ID stores it under another id, --replace
               overwrites), export one (-o FILE; stdout without it), delete one
  servers      the MCP servers registered in the data folder (the app's MCP registry) and their
               trust level: steward servers trust ID trusted|untrusted (audited; steward servers
               --help)
  credentials  keychain credentials: the value is read from standard input, never an argument
  mcp          sign in to a remote MCP server with OAuth (link printed, browser opened), sign out,
               status (steward mcp sign-in FILE SERVER)
  answer       answer a run waiting for a person and resume it here (steward answer --help)
  runs         the runs in the data folder's history (the app's Runs list): list them, search them
               by words or id, show one (its events with --json), list those waiting for a person,
               export them as JSONL traces, delete them, or import traces (steward runs --help)
  learning     turn traces into fine-tuning data: sft (chat JSONL) or preference (DPO pairs); what
               each agent node's student has earned toward promotion (steward learning promotion)
  eval         measure supervision: fault-injection cases for the workflow supervisor, known student
               mistakes for the decision boundary; exit 1 when a gate fails (steward eval --help).
               verdicts: every recorded teacher verdict replayed to a candidate teacher
               (--teacher MODEL, its redacted review context, no tool executed), or the recorded
               rounds put to changed review rules (--profile FILE, no model call); lists what
               flips, protected-effect catches first; exit 1 when a past block of a protected
               effect would now be accepted (or, --profile, a teacher's catch no longer reviewed)
  trial        would this student have done well here? An agent node's last N reviewed rounds
               (default 200; their recorded, redacted contexts) put to a candidate student, no tool
               executed; agreement with the selected decisions (95% interval), protected effects it
               proposed differently, invalid decisions, blocks, latency, tokens and the phase it
               would qualify for; recorded as a run of its own (steward trial --help)
  trace        a trace as OpenTelemetry OTLP/JSON (GenAI conventions), to a file or an OTLP/HTTP
               collector the privacy policy allows (steward trace --help)
  open         a new one-time link to the running app's page (npm start's), printed and opened in
               the browser (--print: printed only); with no app on the data folder it says how to
               start one (exit 1). An open page reconnects by itself when the app starts again

Exit codes: 0 completed · 1 the run ended otherwise (blocked, failed, …) · 2 bad input
            · 3 the run waits for a person (answer it with steward answer RUN_ID …)
            · 4 a workflow completed with failures: items of an iterate failed and are missing
              from its outputs (the result line says how many and where)`);

/** The `steward` command, in-process (the bin wraps it). Returns the exit code; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'dry-run':
        return await runCommand(rest, io, true);
      case 'validate':
        return await validateCommand(rest, io);
      case 'replay':
        return await replayCommand(rest, io);
      case 'learning':
        return await learningCommand(rest, io);
      case 'trace':
        return await traceCommand(rest, io);
      case 'workflows':
        return await workflowsCommand(rest, io);
      case 'runs':
        return await runsCommand(rest, io);
      case 'answer':
        return await answerCommand(rest, io);
      case 'eval':
        return await evalCommand(rest, io);
      case 'trial':
        return await trialCommand(rest, io);
      case 'open':
        return await openCommand(rest, io, commandUsage(USAGE, 'open'));
      case 'servers':
        return await serversCommand(rest, io);
      case 'credentials':
        return await credentialsCommand(rest, { ...io, stdin: io.stdin ?? (async () => '') }, (io.credentials ?? (() => createKeychainStore()))());
      case 'mcp':
        return await mcpCommand(rest, { ...io, openBrowser: (url) => browserFor(io.env)?.(url) }, (io.credentials ?? (() => createKeychainStore()))());
      case '--version':
      case '-v':
        io.stdout(`${APP_VERSION}\n`);
        return EXIT.ok;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout(`${USAGE}\n`);
        return command === undefined ? EXIT.badInput : EXIT.ok;
      default:
        io.stderr(`steward: unknown command "${command}"\n\n${USAGE}\n`);
        return EXIT.badInput;
    }
  } catch (err) {
    io.stderr(`steward: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.badInput;
  }
}

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${USAGE}`);
  }
}

async function runCommand(args: string[], io: CliIo, dryRun = false): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${dryRun ? commandUsage(USAGE, 'dry-run', 'run') : commandUsage(USAGE, 'run')}\n`);
    return EXIT.ok;
  }
  const { values, positionals } = parse(args, {
    json: { type: 'boolean', default: false },
    trace: { type: 'string' },
    'data-dir': { type: 'string' },
    phase: { type: 'string' },
    yes: { type: 'boolean', default: false },
    'no-confirm': { type: 'boolean', default: false },
    'allow-host': { type: 'string', multiple: true },
    scs: { type: 'string' },
    input: { type: 'string', multiple: true },
    inputs: { type: 'string' },
    detach: { type: 'boolean', default: false },
    'no-speech': { type: 'boolean', default: false },
    ...SUPERVISION_FLAGS,
  });
  if (values.yes && values['no-confirm']) throw new SpecError('--yes and --no-confirm contradict each other');
  const typed = positionals[0];
  if (!typed || positionals.length > 1) throw new SpecError(`run needs exactly one spec FILE or stored workflow NAME\n\n${USAGE}`);
  const file = typedPath(io, typed);
  const hosted = io.hosted;
  const dataDir = hosted ? hosted.dataDir : typeof values['data-dir'] === 'string' ? typedPath(io, values['data-dir']) : defaultDataDir(io.env);
  // A name that is no file is a workflow stored in the data folder (the app's).
  const stored = namesStoredWorkflow(typed, file);
  const document = stored ? storedDocument(typed, dataDir) : loadDocumentFile(file, { dataDir });
  // The app's workflow runs as the app runs it: under the data folder's privacy policy (plus --allow-host).
  const allowedHosts = stored ? storedRunHosts(dataDir, values['allow-host'] ?? []) : (values['allow-host'] ?? []);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const trace = typeof values.trace === 'string' ? openTraceWriter(typedPath(io, values.trace)) : undefined;
  const json = values.json === true;
  const confirm = confirmPolicy(values.yes === true, values['no-confirm'] === true, io, json);
  const credentials = hosted ? hosted.credentials : io.credentials ? io.credentials() : createKeychainStore();
  // A run that waits stays attached while the app can answer it (not --json: one JSON object).
  const attach = hosted !== undefined && !json && values.detach !== true;
  // A shipped example runs on its workspace's copy in the data folder (as the app's demo), never in the installation.
  const notice = (line: string) => io.stderr(`steward: ${line}\n`);
  // Delivered responses spoken where an agent's Synthesis group is on (cli-speech.ts); never a rejected candidate.
  const speech = cliSpeech({ env: io.env, note: notice, silent: values['no-speech'] === true || dryRun });
  if (document.kind === 'workflow') {
    if (values.phase !== undefined || values.scs !== undefined) throw new SpecError('--phase and --scs apply to agent specs; a workflow sets them on its agent nodes');
    if (dryRun) throw new SpecError('dry-run takes an agent spec: a workflow\'s tool nodes have no dry run (steward replay RUN_ID runs a recorded workflow run again with no tool executing)');
    // A file whose id the data folder also stores: say which of the two runs (the app's Workflows shows the stored one).
    const twin = stored ? undefined : storedWorkflowName(document.workflow.graph.id, dataDir);
    if (twin !== undefined) notice(`this runs the file ${typed}; the data folder also stores a workflow with its id "${document.workflow.graph.id}" (${twin}), which is not the one running (steward run ${document.workflow.graph.id} runs that one)`);
    const loadedWorkflow = onExampleCopy(document.workflow, document.workflow.graph.id, file, dataDir, notice);
    // Every event into the data folder's history; with the app running, its ledger and writer (a tool call is never run twice, whichever shell runs it).
    const recorder = recorderFor(io, dataDir);
    return workflowCommand({
      loaded: loadedWorkflow,
      inputPairs: values.input ?? [],
      inputsFile: values.inputs === undefined ? undefined : typedPath(io, values.inputs),
      json,
      trace,
      ledger: recorder.ledger,
      confirm,
      allowedHosts,
      credentials,
      recorder,
      ...(attach && hosted ? { follow: hosted } : {}),
      io,
      dataDir,
      dataDirGiven: values['data-dir'],
      supervision: supervisionOverrides(values),
      speech,
      // As for an agent spec: a server's question is asked here only when a person can type.
      ...serversAskAt(io, json),
    });
  }
  if (values.input !== undefined || values.inputs !== undefined) throw new SpecError('--input and --inputs apply to workflows (kind "workflow"); an agent spec has no inputs');
  if (anySupervisionFlag(values)) throw new SpecError('--supervise and the supervisor flags apply to workflows (kind "workflow"); an agent spec is supervised by its teacher');
  const loaded = onExampleCopy(document.spec, document.spec.spec.id, file, dataDir, notice);
  const spec = withScs(withPhase(loaded.spec, values.phase), values.scs);

  if (!json) {
    const supervision = spec.supervision.enabled
      ? `phase ${spec.supervision.phase} · ${PHASE_LABELS[spec.supervision.phase]}`
      : 'supervision off';
    io.stdout(`steward · ${spec.name} · student=${modelLabel(spec.models.student)} teacher=${modelLabel(spec.models.teacher)} · ${supervision}${dryRun ? ' · dry run (no tool executes)' : ''}\n`);
  }
  const printer = agentRunPrinter(io, json, trace);
  // Every event into the data folder's journal (the app's Runs), as the run goes; with the app running,
  // its ledger (a tool call is never run twice, whichever shell runs it), else the history's, on the same writer.
  const recorder = recorderFor(io, dataDir);
  const { ledger } = recorder;
  // What supervision cost (issue 31): `cost` in --json, a line otherwise.
  const costs = new RunCostTally(dataDir);
  const onEvent = (event: RunEvent) => {
    recorder.onEvent(event);
    printer.onEvent(event);
    costs.onEvent(event);
    speech.onEvent(event);
  };
  const runOptions = {
    spec,
    specDir: loaded.specDir,
    workspace: loaded.workspace,
    script: loaded.script,
    ledger,
    onEvent,
    ...(dryRun ? { dryRun: true } : {}),
    signal: io.signal,
    ollamaHost: io.env.OLLAMA_HOST,
    confirm,
    privacy: { allowed_hosts: values['allow-host'] ?? [] },
    credentials,
    // On stderr, so --json output stays one JSON object.
    onProgress: (line: string) => io.stderr(`${line}\n`),
    ...serversAskAt(io, json),
    // Nobody answers here: with the app running, the run waits there from the moment it waits.
    ...(recorder.persistWaiting && (json || !io.line) ? { persistWaiting: recorder.persistWaiting.agent } : {}),
  };
  let result: AgentRun;
  try {
    const first = await runAgent(runOptions);
    // A person at the terminal answers a waiting run here; it resumes in this process.
    result = json ? first : await answerAtTerminal(first, io, (checkpoint, answer) => runAgent({ ...runOptions, resume: { checkpoint, answer } }));
  } catch (error) {
    await recorder.finish();
    throw error;
  } finally {
    speech.finish();
  }
  const waiting = result.status === 'waiting' && result.checkpoint && result.intervention ? { checkpoint: result.checkpoint, intervention: result.intervention } : undefined;
  // The run's last events and its checkpoint in one commit: the run is in the history before anyone can answer it.
  const recorded = await recorder.finish(waiting?.checkpoint);
  if (!recorded.ok && !waiting) io.stderr(`steward: the run is not in the data folder's history yet: ${recorded.message}\n`);

  if (result.setup_error !== undefined) {
    io.stderr(`steward: ${result.setup_error}\n`);
    if (json) io.stdout(`${JSON.stringify(jsonResult(result), null, 2)}\n`);
    return EXIT.badInput;
  }
  if (json) {
    io.stdout(`${JSON.stringify({ ...jsonResult(result), cost: costs.json() }, null, 2)}\n`);
  } else {
    printer.summary(result);
    const costLine = costs.line();
    if (costLine) io.stdout(`${costLine}\n`);
    // A run that waits says its id in the answer lines below.
    if (!waiting) io.stdout(`${runIdLine(result.run_id, recorded.ok)}\n`);
  }
  if (waiting) {
    // Nobody answered here: the run waits in the data folder, for `steward answer` or the app.
    if (!recorded.ok) {
      io.stderr(`steward: the run cannot wait for your answer: ${recorded.message}\n`);
      return EXIT.runNotCompleted;
    }
    // On stderr with --json, so the output stays one JSON object.
    (json ? io.stderr : io.stdout)(`${waitingHint(result.run_id, waiting.intervention, values['data-dir'])}\n`);
    if (attach && hosted) return followToTheEnd(hosted, result.run_id, io, (event) => printer.onEvent(event), speech);
    return EXIT.waiting;
  }
  return runExitCode(result.status);
}

/** Where a run's events go: the host's journal when a host runs this command, else this process's spool. */
function recorderFor(io: CliIo, dataDir: string): RunRecorder {
  return io.hosted ? hostedRecorder(io.hosted) : localRecorder(dataDir, (line) => io.stderr(`steward: ${line}\n`));
}


/** A server's elicitation asked at the terminal; a link it wants opened goes to the browser once the person says yes. */
function elicitAt(stderr: (text: string) => void, line: ReadLine, browser: boolean): (ask: ElicitationAsk) => Promise<ElicitationReply> {
  return (ask) => elicitAtTerminal(ask, { stderr, line, ...(browser ? { openUrl: (url: string) => openBrowser(url) } : {}) });
}

/**
 * What an MCP server asks the person during `steward run` (an agent spec or a workflow): its
 * question only when a person can type (not with --json); when nobody can, a form is answered with
 * its schema's defaults (SEP-1034; the trace says so) or cancelled when a required field has none.
 * A sampling request with `sampling: "ask"` here too, denied when nobody can type.
 */
function serversAskAt(io: CliIo, json: boolean): { onElicit: (ask: ElicitationAsk) => Promise<ElicitationReply>; onReviewSample: ReviewSample; oauthConsent?: OAuthConsent } {
  const consent = consentAt(io);
  return {
    onElicit: io.line && !json ? elicitAt(io.stderr, io.line, shouldOpenBrowser(io.env, process.platform)) : answerWithDefaults,
    onReviewSample: reviewSampleAt(io, json),
    ...(consent ? { oauthConsent: consent } : {}),
  };
}

/**
 * A remote server that asks for a wider scope mid-run (or whose sign-in went stale): its
 * authorization page is opened in the browser ($BROWSER, or the system's where one can show) and
 * printed, and the run goes on once the person agrees there. Nobody to open it (no browser, no
 * terminal): the call fails, saying how to sign in.
 */
function consentAt(io: CliIo): OAuthConsent | undefined {
  const open = browserFor(io.env);
  if (!open && !io.line) return undefined;
  return async (server, url, why) => {
    io.stderr(`steward: MCP server "${server}" needs your consent in the browser (${why}); the run goes on once you agree there:\n  ${url.href}\n`);
    open?.(url.href);
  };
}

/** `--phase N` overrides the spec's lifecycle phase for this run (the trace records the phase used). */
function withPhase(spec: AgentSpec, phase: string | undefined): AgentSpec {
  if (phase === undefined) return spec;
  const parsed = LifecyclePhase.safeParse(Number(phase));
  if (!/^[0-4]$/.test(phase) || !parsed.success) throw new SpecError(`--phase takes 0, 1, 2, 3 or 4 (got "${phase}")`);
  return { ...spec, supervision: { ...spec.supervision, phase: parsed.data } };
}

/** `--scs on|off|auto` overrides the spec's SCS mode for this run. */
function withScs(spec: AgentSpec, mode: string | undefined): AgentSpec {
  if (mode === undefined) return spec;
  const parsed = ScsMode.safeParse(mode);
  if (!parsed.success) throw new SpecError(`--scs takes on, off or auto (got "${mode}")`);
  return { ...spec, scs: { ...spec.scs, mode: parsed.data } };
}
