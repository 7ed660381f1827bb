import { parseArgs } from 'node:util';
import { runStatusLabel, type RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { createKeychainStore } from '../../credentials/keychain-store';
import type { CheckpointStore } from '../../engine/checkpoint';
import { RunManager } from '../../engine/run-manager';
import { openHistory } from '../../events/open-history';
import { openHostWrites } from '../../mcp/journal-ledger';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import type { WorkflowCheckpointStore } from '../../workflow/workflow-checkpoint';
import { waitingStoresOn } from '../../engine/waiting-stores';
import { describeFallback, judgmentExpired } from '@shared/pattern/human-ask';
import { agentRunPrinter } from './agent-run-output';
import { cliSpeech } from './cli-speech';
import { answerFromWords } from './answer-words';
import { verdictFromFlags } from './person-verdict';
import { askAtTerminal } from './ask-at-terminal';
import type { CliIo, EXIT } from './cli-io';
import { typedPath } from './typed-path';
import type { HostedFolder } from './hosted-folder';
import { invocationLines, nodeLabels } from './format-workflow';
import { formatEscalated, formatSummary, formatVerdict, summarizeSupervision } from './format-supervision';
import { lockDataFolder, waitingHint } from './park-run';
import { runExitCode } from './cli-io';
import { wrapUsage } from '@shared/util/wrap-usage';
import { runNamedBy } from '../../events/run-named-by';
import { journalFileRunNamed } from '../../replay/journal-file-run';
import { ambiguousWords } from './run-named-words';

// Type-only link to cli.ts (which imports this file): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, notCompleted: 1, badInput: 2, waiting: 3 } as const satisfies {
  ok: (typeof EXIT)['ok'];
  notCompleted: (typeof EXIT)['runNotCompleted'];
  badInput: (typeof EXIT)['badInput'];
  waiting: (typeof EXIT)['waiting'];
};

export const ANSWER_USAGE = wrapUsage(`Usage:
  steward answer RUN_ID approve|reject|stop|takeover|yes|no [--note TEXT] [--data-dir DIR]
  steward answer RUN_ID decline [--note TEXT] [--data-dir DIR]   (a workflow step's tool call)
  steward answer RUN_ID reply TEXT… [--data-dir DIR]
  steward answer RUN_ID approve --arguments JSON [--data-dir DIR]
  steward answer RUN_ID approve|escalate [--note TEXT] [--cite OUTPUT_ID]…   (a pattern's judgment)
  steward answer RUN_ID reject --feedback TEXT [--cite OUTPUT_ID]…
  steward answer RUN_ID --verdict retry|skip|end_stream|fail [--reason TEXT]   (a supervised node that failed)
  steward answer RUN_ID --verdict substitute --value JSON [--reason TEXT]
                 [--intervention ID]   (a workflow run with several nodes waiting: which one)
                 [--no-speech]   (say nothing aloud)

Answers a run waiting for a person in the data folder (steward runs waiting lists them; the app
shows the same ones under Waiting for you) and resumes it here, printing its rounds as steward run
does. RUN_ID is the whole id or its first 8 characters or more. reply answers the agent's question
(the rest of the words are the reply); yes and no answer its request for confirmation; approve,
reject, takeover and stop answer an escalation or a tool's confirmation, as the question offers.
reject: nothing runs, the agent is told why (--note) and proposes again in its next round; the run
stops at its round limit when no round is left (then reject is not offered). stop ends the whole
run, cancelled by you. A workflow's tool node calls with its author's arguments, so no agent can try
again: it offers approve, decline (nothing runs, the step ends declined and the run's outcome says
"you declined SERVER/TOOL: NOTE") and stop. approve --arguments '{"path": "…"}' approves the tool
call with your arguments instead (an agent run's question only): they are validated against the
round's tools like any decision, or refused. A pattern node's judgment is answered approve, reject
--feedback TEXT (the next iteration addresses it) or escalate (--note is the reason); --cite names
the member outputs it rests on (all shown, if none). A workflow node that failed under a person's
supervision is answered --verdict, one of the verdicts it allows (retry, skip, substitute --value
'{"port": …}', end_stream, fail), --reason saying why; a verdict it does not allow is refused, a
substitute that fails the node's output check is asked again. The run may wait again: at a terminal
you are asked there, otherwise the next command is printed. While the app runs, it resumes the run
(and shows it live) and this command prints it as it goes. An agent whose Synthesis group is on
speaks what it delivers from the answer on through espeak-ng, as steward run does (never what it
said before); --no-speech says nothing aloud.
Exit codes: 0 completed · 1 ended otherwise · 2 bad input · 3 waits for a person again`);

/** The flags `steward answer` takes (its usage above lists every one: command-usage.test.ts checks it). */
export const ANSWER_OPTIONS = {
  note: { type: 'string' },
  feedback: { type: 'string' },
  cite: { type: 'string', multiple: true },
  arguments: { type: 'string' },
  verdict: { type: 'string' },
  reason: { type: 'string' },
  value: { type: 'string' },
  'data-dir': { type: 'string' },
  intervention: { type: 'string' },
  'no-speech': { type: 'boolean' },
} as const;

/** `steward answer RUN_ID ACTION …`. Returns the exit code; a refusal is a message on stderr. */
export async function answerCommand(args: string[], io: CliIo): Promise<number> {
  const fail = (message: string, usage = false) => {
    io.stderr(`steward answer: ${message}\n${usage ? `\n${ANSWER_USAGE}\n` : ''}`);
    return CODE.badInput;
  };
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    io.stdout(`${ANSWER_USAGE}\n`);
    return CODE.ok;
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options: ANSWER_OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    return fail((err as Error).message, true);
  }
  const { values, positionals } = parsed;
  const [typedRun, ...words] = positionals;
  if (!typedRun || (words.length === 0 && values.verdict === undefined)) return fail('which run, and what answer?', true);
  let answer: HumanAnswer;
  try {
    if (values.verdict !== undefined && words.length > 0) return fail(`a verdict is the whole answer: leave out "${words.join(' ')}"`);
    if (values.verdict === undefined && (values.reason !== undefined || values.value !== undefined)) return fail('--reason and --value go with --verdict');
    if (values.feedback !== undefined && values.note !== undefined) return fail('give the feedback once: --feedback (a judgment) or --note');
    answer = values.verdict !== undefined ? verdictFromFlags(values.verdict, values.reason, values.value) : answerFromWords(words, values.feedback ?? values.note, values.arguments, values.cite);
  } catch (err) {
    if (err instanceof SpecError) return fail(err.message);
    throw err;
  }
  const dataDir = io.hosted ? io.hosted.dataDir : values['data-dir'] !== undefined ? typedPath(io, values['data-dir']) : defaultDataDir(io.env);
  // The run whole or by its first 8 characters, as steward runs list prints it (a start several runs share names none).
  const named = io.hosted ? runNamedBy(io.hosted.journal.connection, typedRun) : journalFileRunNamed(dataDir, typedRun);
  if (named.kind === 'ambiguous') return fail(ambiguousWords(typedRun, named));
  const runId = named.kind === 'run' ? named.runId : typedRun;
  const printer = agentRunPrinter(io, false);
  // Delivered responses spoken from the answer on (cli-speech.ts), as steward run speaks them; never what the history already holds.
  const speech = cliSpeech({ env: io.env, note: (line) => io.stderr(`steward: ${line}\n`), silent: values['no-speech'] === true });
  let finished: RunEventOf<'run.finished'> | undefined;
  // A workflow's invocations named as the app names them (its node labels, from the waiting run's graph).
  let labelOf = nodeLabels(undefined);
  const invocationLine = invocationLines((node) => labelOf(node));
  const onEvent = (event: RunEvent) => {
    printer.onEvent(event);
    speech.onEvent(event);
    const line = invocationLine(event);
    if (line !== undefined) io.stdout(`${line}\n`);
    // A supervised workflow's ⛨ lines on stderr, as steward run prints them.
    if (event.type === 'supervisor.escalated') io.stderr(`${formatEscalated(event)}\n`);
    if (event.type === 'supervisor.verdict') io.stderr(`${formatVerdict(event)}\n`);
    if (event.type === 'run.finished' && event.run_id === runId) finished = event;
  };
  const resumer = io.hosted ? hostedResumer(io.hosted, runId, onEvent) : localResumer(dataDir, runId, io, onEvent);
  if (!resumer.ok) return fail(resumer.message);
  const { manager, checkpoints, workflowCheckpoints } = resumer;
  labelOf = nodeLabels(workflowCheckpoints.get(runId)?.graph);
  // Which of the run's agents speak, from its start in the history (none of what it delivered then is spoken).
  const before = resumer.events();
  speech.remember(before);
  // A dry run resumed stays dry: its rounds are said as not run, as steward dry-run said them.
  printer.remember(before);
  const waitingFor = (): Intervention[] => [checkpoints.get(runId)?.intervention, ...Object.values(workflowCheckpoints.get(runId)?.waiting ?? {}).map((w) => w.intervention)].filter((i) => i !== undefined);
  try {
    let next: HumanAnswer | undefined = answer;
    let chosen = values.intervention;
    while (next) {
      const open = waitingFor();
      if (open.length === 0) return fail(`no run "${runId}" waits for a person in ${dataDir} (steward runs waiting lists those that do)`);
      const intervention = chosen === undefined && open.length === 1 ? open[0] : open.find((i) => i.id === chosen);
      if (!intervention) {
        const ids = open.map((i) => i.id).join(', ');
        // A wrong id is said to be wrong, not taken for a missing one.
        if (chosen !== undefined) return fail(`run "${runId}" does not wait for --intervention ${chosen}: it waits for ${ids}`);
        return fail(`run "${runId}" waits at ${open.length} nodes: name one with --intervention (${ids})`);
      }
      // No timer runs here: a judgment found past its expiry goes to its fallback now, as the app's host would have sent it.
      if (judgmentExpired(intervention.judgment, Date.now()) && next.action !== 'expired') {
        io.stderr(`steward: this judgment expired at ${intervention.judgment?.expires_at ?? ''}; ${describeFallback(intervention.judgment?.fallback)}\n`);
        next = { action: 'expired' };
      }
      io.stdout(`steward · answering ${runId} · ${next.verdict ? `verdict ${next.verdict.action}` : next.action}${next.text !== undefined ? ` "${next.text}"` : ''}\n`);
      try {
        if (!manager.answer(runId, intervention.id, next)) return fail(`run "${runId}" no longer waits for this answer (answered elsewhere, or stopped)`);
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
      await manager.settled(runId);
      resumer.flush();
      chosen = undefined;
      next = undefined;
      const again = waitingFor();
      if (again.length === 0) break;
      // Waits again: a person at the terminal answers now; otherwise the next command is printed.
      const [first] = again;
      if (again.length === 1 && first && io.line) {
        next = await askAtTerminal(first, { stderr: io.stderr, line: io.line });
        if (next) continue;
      }
      for (const i of again) io.stdout(`${waitingHint(runId, i, values['data-dir'], again.length > 1)}\n`);
      return CODE.waiting;
    }
    if (!finished) return fail('the resumed run ended without recording its end');
    // A supervised workflow ends as steward run ends one, and as the app shows it: the ⛨ summary of the whole run, "completed — supervised".
    const all = resumer.events();
    const supervised = all.some((e) => e.type === 'supervisor.verdict');
    if (all.some((e) => (e.type === 'workflow.started' && e.supervisor !== undefined) || e.type === 'supervisor.escalated')) io.stderr(`${formatSummary(summarizeSupervision(all))}\n`);
    const dry = printer.isDryRun() ? ' · dry run: no tool call was run' : '';
    io.stdout(`${runStatusLabel(finished.status, supervised, finished.partial).toLowerCase()} · ${finished.rounds} round(s)${dry}${finished.message ? ` · ${finished.message}` : ''}\n`);
    if (finished.output) io.stdout(`${finished.output}\n`);
    return runExitCode(finished.status);
  } finally {
    speech.finish();
    await resumer.close();
  }
}

interface Resumer {
  ok: true;
  manager: RunManager;
  checkpoints: CheckpointStore;
  workflowCheckpoints: WorkflowCheckpointStore;
  flush(): void;
  /** Every event of the run in the history (after a flush): the whole run's supervision, not only the resumed part's. */
  events(): RunEvent[];
  close(): Promise<void>;
}

/** The app runs this command: its own runs resume the run (the app shows it live), this command watches. */
function hostedResumer(hosted: HostedFolder, runId: string, onEvent: (event: RunEvent) => void): Resumer {
  const stop = hosted.watch(runId, onEvent);
  return {
    ok: true,
    manager: hosted.runs,
    checkpoints: hosted.checkpoints,
    workflowCheckpoints: hosted.workflowCheckpoints,
    flush: hosted.flush,
    events: () => hosted.journal.runEvents(runId),
    close: async () => stop(),
  };
}

/** No app on the folder: this process takes it and resumes the run as the app's host would. */
function localResumer(dataDir: string, runId: string, io: CliIo, show: (event: RunEvent) => void): Resumer | { ok: false; message: string } {
  const locked = lockDataFolder(dataDir);
  if (!locked.ok) return locked;
  const log = (line: string) => io.stderr(`steward: ${line}\n`);
  const journal = openHistory(dataDir, { log });
  // As the app's host writes: the ledger and the waiting runs on the history's connection, a round's
  // claim (and a checkpoint) committed with the run's events.
  const { writer, ledger } = openHostWrites(journal, dataDir, { log });
  const { checkpoints, workflowCheckpoints } = waitingStoresOn(journal.connection, { now: writer.commit }, dataDir, log);
  // As the app's host resumes it: the same ledger (a tool call is never run twice), keychain and stores.
  // Shown once durable, as the app shows it: a line printed is an event the history keeps.
  journal.subscribe(({ events }) => events.forEach(show));
  const manager = new RunManager({
    ledger,
    onEvent: writer.onEvent,
    baseDir: dataDir,
    checkpoints,
    workflowCheckpoints,
    journalNextSeq: (id) => journal.openRuns().find((r) => r.run_id === id)?.next_seq,
    ollamaHost: io.env.OLLAMA_HOST,
    credentials: io.credentials ? io.credentials() : createKeychainStore(),
    // Its "run … completed" lines are the app's log; here the summary below says it.
  });
  return {
    ok: true,
    manager,
    checkpoints,
    workflowCheckpoints,
    flush: writer.flush,
    events: () => journal.runEvents(runId),
    async close() {
      await manager.closeAll();
      writer.flush();
      journal.close();
      locked.lock.release();
    },
  };
}
