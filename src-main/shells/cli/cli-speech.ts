import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { RunEvent } from '@shared/contracts/events';
import { agentsWithSpeech, newSpeechMemory, spokenResponses, type SpokenResponse } from '@shared/history/spoken-responses';

/**
 * `steward run` speaks an agent's delivered responses through espeak-ng when its Synthesis group is
 * on (issue 29): exactly what src-shared/history/spoken-responses.ts selects, so a rejected or
 * replaced candidate is never spoken. Speaking never fails or slows the run: one espeak-ng per voice
 * and rate reads the texts line by line on its standard input (so they are spoken in order, none
 * over another), is never waited for, and whatever goes wrong is said once on stderr.
 */

export const ESPEAK = 'espeak-ng';
/** espeak-ng's own default speed (words per minute): rate 1. */
const ESPEAK_WPM = 175;

/** espeak-ng's arguments for a voice and rate (rate 0.5–2 → 88–350 words per minute). */
export function espeakArgs(voice: string | undefined, rate: number): string[] {
  return [...(voice !== undefined ? ['-v', voice] : []), '-s', String(Math.round(ESPEAK_WPM * rate))];
}

/** The program named `name` on PATH, or undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const names = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const file of names) {
      const candidate = join(dir, file);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

export interface CliSpeech {
  /**
   * A run this command did not start (`steward answer` resumes it, `steward run` stays attached to
   * it): its agents' speech settings from the history's start events. Nothing in `history` is
   * spoken: only what is delivered after the person starts watching (onEvent), never a replay.
   */
  remember: (history: readonly RunEvent[]) => void;
  onEvent: (event: RunEvent) => void;
  /** The run ended: each speaker's input is closed (it goes on speaking what it has, on its own). */
  finish: () => void;
}

export interface CliSpeechOptions {
  env: NodeJS.ProcessEnv;
  /** A note for the person (stderr). */
  note: (line: string) => void;
  /** `--no-speech`: nothing is spoken and nothing is noted. */
  silent?: boolean;
}

const NOTHING: CliSpeech = { remember: () => undefined, onEvent: () => undefined, finish: () => undefined };

export function cliSpeech(options: CliSpeechOptions): CliSpeech {
  if (options.silent) return NOTHING;
  const memory = newSpeechMemory();
  const noted = new Set<string>();
  let program: string | null | undefined;
  const speakers = new Map<string, ChildProcess>();
  let failed = false;

  const espeak = (): string | undefined => {
    if (program === undefined) program = onPath(ESPEAK, options.env) ?? null;
    return program ?? undefined;
  };
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    options.note(`could not speak with ${ESPEAK} (${err instanceof Error ? err.message : String(err)}); the run goes on without speech`);
  };
  const speakerFor = (path: string, said: SpokenResponse): ChildProcess | undefined => {
    const args = espeakArgs(said.voice, said.rate);
    const key = args.join('\u0000');
    const running = speakers.get(key);
    if (running) return running;
    try {
      const child = spawn(path, args, { stdio: ['pipe', 'ignore', 'ignore'], env: options.env, windowsHide: true });
      child.on('error', fail);
      // espeak-ng refuses a voice it does not know (a browser's voice name) by exiting at once.
      child.on('exit', (code) => {
        if (code !== 0 && code !== null) fail(new Error(`it stopped with exit code ${code}${said.voice !== undefined ? `; does it know the voice "${said.voice}"? espeak-ng --voices lists those it knows` : ''}`));
      });
      child.stdin?.on('error', fail);
      // Never waited for: the command ends when the run does, and espeak-ng speaks on (its input is a pipe it reads to the end).
      child.unref();
      (child.stdin as { unref?: () => void } | null)?.unref?.();
      speakers.set(key, child);
      return child;
    } catch (err) {
      fail(err);
      return undefined;
    }
  };

  const noteMissing = (events: readonly RunEvent[]) => {
    for (const agent of agentsWithSpeech(events)) {
      if (espeak() !== undefined || noted.has(agent)) continue;
      noted.add(agent);
      options.note(`Speech is on for node ${agent} but ${ESPEAK} is not installed; install it to hear answers (or run with --no-speech)`);
    }
  };

  return {
    remember: (history) => {
      // Only the start events: what they deliver was delivered before anyone here listened.
      const starts = history.filter((e) => e.type === 'run.started' || e.type === 'agent.started');
      spokenResponses(starts, memory);
      noteMissing(starts);
    },
    onEvent: (event) => {
      if (failed) return;
      if (event.type === 'run.started' || event.type === 'agent.started') noteMissing([event]);
      for (const said of spokenResponses([event], memory)) {
        const path = espeak();
        if (path === undefined) continue;
        const child = speakerFor(path, said);
        // One line per line of the text: espeak-ng speaks each line as it reads it.
        child?.stdin?.write(`${said.text}\n`);
      }
    },
    finish: () => {
      for (const child of speakers.values()) child.stdin?.end();
      speakers.clear();
    },
  };
}
