import { timingSafeEqual } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { ChannelClientFrame, type ChannelAddress, type ChannelHostFrame } from '@shared/contracts/cli-channel';
import { newChannelToken, removeChannelAddress, socketPathFor, writeChannelAddress } from './channel-address';
import { readJsonLines, textPieces, writeJsonLine } from './json-lines';

/** What a forwarded command gets to talk to the person at the other end. */
export interface ChannelIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The command's environment: the host's, with the few variables the command carried. */
  env: NodeJS.ProcessEnv;
  /** The folder the command was typed in: its relative paths are read against it. */
  cwd: string;
  /** Aborted on Ctrl+C at the command, or when it goes away (killed, closed). */
  signal: AbortSignal;
  /** Present only when a person can type at the command's terminal. */
  ask?: (question: string) => Promise<boolean>;
  line?: (question: string) => Promise<string | undefined>;
}

export interface CliChannelOptions {
  dataDir: string;
  shell: ChannelAddress['shell'];
  /** Runs one forwarded command to its exit code. */
  run: (argv: string[], io: ChannelIo) => Promise<number>;
  /** Folds the events a command of an older Steward spooled alone into the journal; returns how many were new. */
  fold: (spool: string) => number;
  /** A fresh one-time link to the host's page, for `steward open`; absent for a host with no page (Electron). */
  launchLink?: () => string | undefined;
  log: (line: string) => void;
  /** The socket path; socketPathFor(dataDir) when absent. */
  path?: string;
}

export interface CliChannel {
  readonly address: ChannelAddress;
  /** Stops taking commands, cancels those still running and waits for each to end. */
  close(): Promise<void>;
}

/** A connection that has not said hello by then is closed. */
const HELLO_TIMEOUT_MS = 10_000;

/**
 * The host's end of the CLI channel (issue 22): a `steward` command typed while this host holds
 * the data folder is run here, in the host's own journal, stores and keychain, as if in-process.
 */
export async function openCliChannel(options: CliChannelOptions): Promise<CliChannel> {
  const token = newChannelToken();
  const path = options.path ?? socketPathFor(options.dataDir);
  const running = new Set<Promise<void>>();
  const controllers = new Set<AbortController>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, { ...options, token, running, controllers });
  });
  // The host holds the data folder lock: a socket file left here is a dead host's.
  if (process.platform !== 'win32') rmSync(path, { force: true });
  await listen(server, path);
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  const address: ChannelAddress = { version: 1, path, token, pid: process.pid, shell: options.shell };
  writeChannelAddress(options.dataDir, address);
  return {
    address,
    async close() {
      removeChannelAddress(options.dataDir, token);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const controller of controllers) controller.abort();
      await Promise.allSettled([...running]);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function tokenMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

interface Served extends CliChannelOptions {
  token: string;
  running: Set<Promise<void>>;
  controllers: Set<AbortController>;
}

function serve(socket: Socket, served: Served): void {
  const send = (frame: ChannelHostFrame) => writeJsonLine(socket, frame);
  const controller = new AbortController();
  const replies = new Map<number, (reply: { yes?: boolean; line?: string | null }) => void>();
  let nextAsk = 1;
  let started = false;
  const refuse = (message: string) => {
    send({ kind: 'refused', message });
    socket.end();
  };
  const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
  helloTimer.unref();
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearTimeout(helloTimer);
    // The command went away (killed, closed): its run stops, its questions have no answer.
    controller.abort();
    for (const reply of replies.values()) reply({});
    replies.clear();
  });
  const ask = (type: 'yesno' | 'line', question: string) =>
    new Promise<{ yes?: boolean; line?: string | null }>((resolve) => {
      if (socket.destroyed) return resolve({});
      const id = nextAsk++;
      replies.set(id, resolve);
      send({ kind: 'ask', id, type, question });
    });

  readJsonLines(
    socket,
    (raw) => {
      const parsed = ChannelClientFrame.safeParse(raw);
      if (!parsed.success) return refuse('the command sent a frame this Steward does not know (are the command and the app the same version?)');
      const frame = parsed.data;
      if (!started) {
        if (frame.kind !== 'hello' && frame.kind !== 'fold' && frame.kind !== 'launch') return refuse('the command must say hello first');
        if (!tokenMatches(served.token, frame.token)) return refuse('the command did not present this host\'s token (the channel file changed: try again)');
        clearTimeout(helloTimer);
        started = true;
        if (frame.kind === 'launch') {
          let url: string | undefined;
          try {
            url = served.launchLink?.();
          } catch (error) {
            send({ kind: 'refused', message: `the host could not make a link: ${error instanceof Error ? error.message : String(error)}` });
            socket.end();
            return;
          }
          if (url !== undefined) send({ kind: 'launch', url });
          else
            send({
              kind: 'refused',
              message: served.launchLink
                ? 'the Steward app on this data folder is starting or stopping: try again in a moment'
                : 'the Steward app on this data folder is the desktop app, which has no browser page: switch to its window',
            });
          socket.end();
          return;
        }
        if (frame.kind === 'fold') {
          try {
            send({ kind: 'folded', events: served.fold(frame.spool) });
          } catch (error) {
            send({ kind: 'refused', message: `the host could not take the run's events: ${error instanceof Error ? error.message : String(error)}` });
          }
          socket.end();
          return;
        }
        served.controllers.add(controller);
        const io: ChannelIo = {
          stdout: (text) => textPieces(text).forEach((piece) => send({ kind: 'stdout', text: piece })),
          stderr: (text) => textPieces(text).forEach((piece) => send({ kind: 'stderr', text: piece })),
          env: { ...process.env, ...frame.env },
          cwd: frame.cwd,
          signal: controller.signal,
          ...(frame.terminal
            ? {
                ask: async (question: string) => (await ask('yesno', question)).yes === true,
                line: async (question: string) => (await ask('line', question)).line ?? undefined,
              }
            : {}),
        };
        const done: Promise<void> = served
          .run(frame.argv, io)
          .catch((error: unknown) => {
            served.log(`a forwarded steward command failed: ${error instanceof Error ? error.message : String(error)}`);
            io.stderr(`steward: ${error instanceof Error ? error.message : String(error)}\n`);
            return 2;
          })
          .then((code) => {
            send({ kind: 'exit', code });
            socket.end();
          })
          .finally(() => {
            served.controllers.delete(controller);
            served.running.delete(done);
          });
        served.running.add(done);
        return;
      }
      if (frame.kind === 'answer') {
        const reply = replies.get(frame.id);
        replies.delete(frame.id);
        reply?.({ ...(frame.yes !== undefined ? { yes: frame.yes } : {}), ...(frame.line !== undefined ? { line: frame.line } : {}) });
      } else if (frame.kind === 'interrupt') {
        controller.abort();
      }
    },
    (problem) => refuse(`the command sent ${problem}`),
  );
}
