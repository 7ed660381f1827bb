import fs from 'node:fs';
import path from 'node:path';
import type { Host, HostOptions } from '../../composition/host-types';
import { defaultDataDir } from '../../util/data-dir';
import { shouldOpenBrowser } from '../open-browser';
import { ArgsError, parseServerArgs, SERVER_USAGE } from './server-args';
import { startBrowserServer, type BrowserServer } from './server';
import { keptSessionToken } from './session-token';
import { DEFAULT_BROWSER_PORT, isAddressInUse, portTakenMessage, rememberedPort, rememberPort } from './stable-port';

/**
 * The browser-run shell without the process around it (signals, exit): parse the command line,
 * build the host, serve it, tell the user where. server-main.ts wires it to the real process.
 */

export interface BrowserShellIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** A person at a terminal can press Enter for a fresh link (server-main.ts wires stdin); `steward open` works from any terminal. */
  interactive?: boolean;
}

export interface BrowserShellDeps {
  /** The built renderer (out/renderer). */
  staticDir: string;
  createHost(options: HostOptions): Promise<Host>;
  /** Only ever given a one-time launch link, never the session token (see open-browser.ts). */
  openBrowser(url: string): void;
  /** What a data folder's first start tries without --port (tests). Default DEFAULT_BROWSER_PORT. */
  defaultPort?: number;
}

export type BrowserShellOutcome =
  | { kind: 'running'; server: BrowserServer; dataDir: string; newLink(): string; stop(): Promise<void> }
  | { kind: 'exit'; code: number };

export async function runBrowserShell(argv: readonly string[], io: BrowserShellIo, deps: BrowserShellDeps): Promise<BrowserShellOutcome> {
  let args;
  try {
    args = parseServerArgs(argv);
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    io.stderr(`steward: ${error.message}\n${SERVER_USAGE}\n`);
    return { kind: 'exit', code: 2 };
  }
  if (args.help) {
    io.stdout(`${SERVER_USAGE}\n`);
    return { kind: 'exit', code: 0 };
  }
  if (!fs.existsSync(path.join(deps.staticDir, 'index.html'))) {
    io.stderr(`steward: the app is not built (no ${path.join(deps.staticDir, 'index.html')}). Run \`npm run build\` first.\n`);
    return { kind: 'exit', code: 1 };
  }

  const dataDir = path.resolve(args.dataDir ?? defaultDataDir(io.env));
  let host: Host;
  // Set once listening: `steward open` asks the host (over its CLI channel) for a link to this server.
  let listening: BrowserServer | undefined;
  try {
    // Host diagnostics go to stderr so stdout stays the one line scripts read.
    host = await deps.createHost({ dataDir, shell: 'browser', log: (line) => io.stderr(`steward: ${line}\n`), launchLink: () => listening?.launchUrl() });
  } catch (error) {
    io.stderr(`steward: cannot start the host in ${dataDir}: ${messageOf(error)}\n`);
    return { kind: 'exit', code: 1 };
  }

  // The data folder's token (created after the host holds the folder's lock): an open page reconnects after a restart.
  const kept = keptSessionToken(dataDir);
  if (kept.kind === 'unkept') io.stderr(`steward: ${kept.problem}; pages need a new link after every start (steward open)\n`);
  if (kept.kind === 'created' && kept.replaced !== undefined) io.stderr(`steward: made a new access token for this data folder: the old one was not used because ${kept.replaced}. Open pages need a new link (steward open)\n`);
  const token = kept.token;
  let server: BrowserServer;
  const remembered = args.port === undefined ? rememberedPort(dataDir) : undefined;
  try {
    if (args.port !== undefined) server = await startBrowserServer({ host, staticDir: deps.staticDir, port: args.port, token });
    else if (remembered !== undefined) server = await startBrowserServer({ host, staticDir: deps.staticDir, port: remembered, token });
    else {
      // First start of this data folder: the usual port if it is free, else any; kept from now on.
      const first = deps.defaultPort ?? DEFAULT_BROWSER_PORT;
      server = await startBrowserServer({ host, staticDir: deps.staticDir, port: first, token }).catch((error: unknown) => {
        if (!isAddressInUse(error)) throw error;
        return startBrowserServer({ host, staticDir: deps.staticDir, port: 0, token });
      });
      try {
        rememberPort(dataDir, server.port);
      } catch (error) {
        io.stderr(`steward: could not remember port ${server.port} in ${dataDir} (${messageOf(error)}); the next start may use another one\n`);
      }
    }
  } catch (error) {
    io.stderr(`steward: ${remembered !== undefined && isAddressInUse(error) ? portTakenMessage(dataDir, remembered) : messageOf(error)}\n`);
    await host.close().catch(() => undefined);
    return { kind: 'exit', code: 1 };
  }
  listening = server;

  if (args.printUrlJson) {
    // A script asked for the token itself; it also gets one one-time link (what a person would open).
    io.stdout(`${JSON.stringify({ url: server.url, port: server.port, token: server.token, launch_url: server.launchUrl() })}\n`);
  } else {
    // A one-time link: the terminal's scrollback or a log of stdout never holds a reusable secret.
    const more = io.interactive ? '`steward open` opens a new one (or press Enter here)' : '`steward open` opens a new one';
    // Where runs, history and settings are kept: a new user looks for them here first.
    io.stdout(`Steward is running at ${server.launchUrl()}\nData folder: ${dataDir} (runs and their history, workflows, settings; --data-dir DIR or STEWARD_DATA_DIR for another)\nThe link works once: ${more}. An open page reconnects by itself when Steward starts again on this folder. Press Ctrl+C to stop\n`);
  }
  if (args.open && shouldOpenBrowser(io.env, io.platform)) deps.openBrowser(server.launchUrl());

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      listening = undefined;
      await server.close();
      await host.close();
    })();
    return stopping;
  };
  return { kind: 'running', server, dataDir, newLink: () => server.launchUrl(), stop };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
