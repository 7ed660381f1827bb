import { connect, type Socket } from 'node:net';
import { ChannelHostFrame, FORWARDED_ENV, type ChannelAddress, type ChannelClientFrame } from '@shared/contracts/cli-channel';
import { channelFile, readChannelAddress } from './channel-address';
import { refusedChannelText, trustChannelFile, trustChannelSocket } from './channel-trust';
import { readJsonLines, writeJsonLine } from './json-lines';
import { processGone } from '../../util/lock-file';

export interface ForwardIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal?: AbortSignal;
  ask?: (question: string) => Promise<boolean>;
  line?: (question: string) => Promise<string | undefined>;
}


/**
 * The host's socket, undefined when nobody listens there (no host, or a dead one's leftovers), or why
 * the channel is refused (channel-trust.ts: a symlink, or not the user's own 0600 file and socket).
 */
async function reach(dataDir: string): Promise<{ address: ChannelAddress; socket: Socket } | { refused: string } | undefined> {
  // One lstat: no file is no host; a file (or a symlink, dangling or not) must be the host's own.
  const file = trustChannelFile(channelFile(dataDir));
  if (!file.ok) return file.missing ? undefined : { refused: file.reason };
  const address = readChannelAddress(dataDir);
  if (!address || processGone(address.pid)) return undefined;
  const socketTrust = trustChannelSocket(address);
  if (!socketTrust.ok) return { refused: socketTrust.reason };
  const socket = await new Promise<Socket | undefined>((resolve) => {
    const s = connect(address.path);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
  });
  return socket ? { address, socket } : undefined;
}

/** A refused channel: bad input, as the CLI's exit codes say (cli.ts EXIT.badInput; not imported: the forwarder loads without the engine). */
const REFUSED_CHANNEL_EXIT = 2;

const send = (socket: Socket, frame: ChannelClientFrame) => writeJsonLine(socket, frame);

/**
 * Hands a command to the Steward host on this data folder (issue 22) and relays it: output as it
 * comes, the host's questions to the person here, Ctrl+C to the host. Resolves with the command's
 * exit code, or undefined when no host listens (the caller then runs it in-process).
 */
export async function forwardToHost(argv: string[], io: ForwardIo, dataDir: string): Promise<number | undefined> {
  const reached = await reach(dataDir);
  if (!reached) return undefined;
  if ('refused' in reached) {
    io.stderr(refusedChannelText(reached.refused, channelFile(dataDir)));
    return REFUSED_CHANNEL_EXIT;
  }
  const { address, socket } = reached;
  const env = Object.fromEntries(Object.entries(io.env).filter((e): e is [string, string] => FORWARDED_ENV.test(e[0]) && typeof e[1] === 'string'));
  send(socket, { kind: 'hello', token: address.token, argv, cwd: io.cwd, env, terminal: io.ask !== undefined && io.line !== undefined });
  return new Promise<number>((resolve) => {
    let ended = false;
    const end = (code: number) => {
      if (ended) return;
      ended = true;
      io.signal?.removeEventListener('abort', interrupt);
      socket.end();
      resolve(code);
    };
    const interrupt = () => send(socket, { kind: 'interrupt' });
    io.signal?.addEventListener('abort', interrupt);
    readJsonLines(
      socket,
      (raw) => {
        const parsed = ChannelHostFrame.safeParse(raw);
        if (!parsed.success) {
          io.stderr('steward: the Steward app answered with a frame this command does not know (are the command and the app the same version?)\n');
          return end(1);
        }
        const frame = parsed.data;
        switch (frame.kind) {
          case 'stdout':
            return io.stdout(frame.text);
          case 'stderr':
            return io.stderr(frame.text);
          case 'ask':
            if (frame.type === 'yesno') void (io.ask?.(frame.question) ?? Promise.resolve(false)).then((yes) => send(socket, { kind: 'answer', id: frame.id, yes }));
            else void (io.line?.(frame.question) ?? Promise.resolve(undefined)).then((line) => send(socket, { kind: 'answer', id: frame.id, line: line ?? null }));
            return;
          case 'exit':
            return end(frame.code);
          case 'refused':
            io.stderr(`steward: the Steward app refused the command: ${frame.message}\n`);
            return end(2);
          case 'folded':
            return end(0);
          case 'launch':
            io.stderr('steward: the Steward app answered with a link this command did not ask for\n');
            return end(1);
        }
      },
      (problem) => {
        io.stderr(`steward: the Steward app sent ${problem}\n`);
        end(1);
      },
    );
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (ended) return;
      io.stderr('steward: the Steward app stopped before the command ended; what it recorded is in its history (steward runs waiting shows a run that still waits)\n');
      end(1);
    });
  });
}

/** What the running host said to `steward open`. */
export type LaunchLinkReply =
  | { kind: 'link'; url: string }
  /** No host listens on this data folder (none started, or a dead one's leftovers). */
  | { kind: 'no_host' }
  /** The channel is not one to trust (channel-trust.ts): said with refusedChannelText. */
  | { kind: 'untrusted'; text: string }
  /** The host answered, but with no link (the desktop app, still starting, an older Steward): in its words. */
  | { kind: 'refused'; message: string };

/**
 * Asks the Steward host on this data folder for a fresh one-time link to its page (issue 28:
 * `steward open`). The link is checked to be one: `http://127.0.0.1:PORT/#launch=<code>` on this
 * machine, never a token, never another address, before anyone opens it.
 */
export async function requestLaunchLink(dataDir: string): Promise<LaunchLinkReply> {
  const reached = await reach(dataDir);
  if (!reached) return { kind: 'no_host' };
  if ('refused' in reached) return { kind: 'untrusted', text: refusedChannelText(reached.refused, channelFile(dataDir)) };
  const { address, socket } = reached;
  send(socket, { kind: 'launch', token: address.token });
  return new Promise<LaunchLinkReply>((resolve) => {
    let ended = false;
    const end = (reply: LaunchLinkReply) => {
      if (ended) return;
      ended = true;
      socket.end();
      resolve(reply);
    };
    readJsonLines(
      socket,
      (raw) => {
        const parsed = ChannelHostFrame.safeParse(raw);
        if (!parsed.success) return end({ kind: 'refused', message: 'the Steward app answered with a frame this command does not know (are the command and the app the same version?)' });
        const frame = parsed.data;
        if (frame.kind === 'launch') {
          return end(isLaunchLink(frame.url) ? { kind: 'link', url: frame.url } : { kind: 'refused', message: 'the Steward app answered with something that is not a one-time link to its page' });
        }
        if (frame.kind === 'refused') return end({ kind: 'refused', message: frame.message });
        end({ kind: 'refused', message: `the Steward app answered "${frame.kind}" where a link was expected` });
      },
      (problem) => end({ kind: 'refused', message: `the Steward app sent ${problem}` }),
    );
    socket.on('error', () => undefined);
    socket.on('close', () => end({ kind: 'refused', message: 'the Steward app closed the channel without a link (it may be stopping)' }));
  });
}

const LAUNCH_LINK = /^http:\/\/127\.0\.0\.1:(\d{1,5})\/#launch=[A-Za-z0-9_-]{16,128}$/;

/** Only a one-time launch link on this machine goes to the terminal and the browser opener. */
export function isLaunchLink(url: string): boolean {
  const match = LAUNCH_LINK.exec(url);
  const port = Number(match?.[1]);
  return match !== null && port >= 1 && port <= 65535;
}
