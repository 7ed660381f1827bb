import { RUN_STATUS_LABELS, type RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { CliSpeech } from './cli-speech';
import type { HostedFolder } from './hosted-folder';
import { waitingHint } from './park-run';
import { runExitCode } from './cli-io';

/**
 * A forwarded run that waits for a person stays attached (issue 22): whoever answers it (the app,
 * another `steward answer`), the host resumes it and this command prints what follows, until the
 * run ends. Ctrl+C lets go (undefined): the run goes on waiting, or running, in the app.
 */
export function followRun(hosted: HostedFolder, runId: string, onEvent: (event: RunEvent) => void, signal: AbortSignal | undefined): Promise<RunEventOf<'run.finished'> | undefined> {
  return new Promise((resolve) => {
    const done = (finished: RunEventOf<'run.finished'> | undefined) => {
      stop();
      signal?.removeEventListener('abort', letGo);
      resolve(finished);
    };
    const letGo = () => done(undefined);
    const stop = hosted.watch(runId, (event) => {
      onEvent(event);
      if (event.type === 'run.finished') done(event);
    });
    if (signal?.aborted) return letGo();
    signal?.addEventListener('abort', letGo);
  });
}

/** The end of a run as `steward answer` prints it: status, rounds, message, then the output. */
export function finishedLines(finished: RunEventOf<'run.finished'>): string[] {
  return [`${RUN_STATUS_LABELS[finished.status].toLowerCase()} · ${finished.rounds} round(s)${finished.message ? ` · ${finished.message}` : ''}`, ...(finished.output ? [finished.output] : [])];
}

/**
 * Stays attached to a run that waits (the app is running): prints what follows its answer, given
 * in the app or with steward answer, and ends with its exit code; Ctrl+C lets go (exit 3). `speech`
 * (the command's own, which saw the run start) speaks what the run delivers after the answer, as
 * the run's first part was spoken; it is finished when the command lets go.
 */
export async function followToTheEnd(
  hosted: HostedFolder,
  runId: string,
  io: { stdout: (text: string) => void; stderr: (text: string) => void; signal?: AbortSignal },
  onEvent: (event: RunEvent) => void,
  speech?: Pick<CliSpeech, 'onEvent' | 'finish'>,
): Promise<number> {
  io.stderr('steward: waiting here for the answer (the app shows it under Waiting for you; Ctrl+C leaves the run waiting)\n');
  const finished = await followRun(hosted, runId, (event) => {
    onEvent(event);
    speech?.onEvent(event);
    if (event.type === 'intervention.requested') io.stdout(`${waitingHint(runId, event.intervention, undefined)}\n`);
  }, io.signal);
  speech?.finish();
  if (!finished) {
    io.stderr(`steward: let go of run ${runId}: it goes on in the app (steward runs waiting lists it while it waits)\n`);
    return 3;
  }
  for (const line of finishedLines(finished)) io.stdout(`${line}\n`);
  return runExitCode(finished.status);
}
