import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { requestLaunchLink, type LaunchLinkReply } from '../cli-channel/channel-client';
import { openBrowser, shouldOpenBrowser } from '../open-browser';
import { defaultDataDir } from '../../util/data-dir';
import { EXIT, type CliIo } from './cli-io';

export interface OpenDeps {
  /** Asks the host on the data folder for a link (over its CLI channel). */
  requestLink(dataDir: string): Promise<LaunchLinkReply>;
  openBrowser(url: string): void;
  platform: NodeJS.Platform;
}

const DEFAULT_DEPS: OpenDeps = { requestLink: requestLaunchLink, openBrowser: (url) => openBrowser(url), platform: process.platform };

/**
 * `steward open [--data-dir DIR] [--print]` (issue 28): a fresh one-time link to the running app's
 * page, from any terminal: printed (stdout holds the link alone, for scripts) and opened in the
 * browser. The host makes the link; this command never sees the session token. With no app on the
 * folder it says how to start one and exits 1.
 */
export async function openCommand(args: string[], io: CliIo, usage: string, deps: OpenDeps = DEFAULT_DEPS): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, print: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } }, allowPositionals: false, strict: true }));
  } catch (err) {
    io.stderr(`steward open: ${(err as Error).message}\n\n${usage}\n`);
    return EXIT.badInput;
  }
  if (values.help) {
    io.stdout(`${usage}\n`);
    return EXIT.ok;
  }
  const given = values['data-dir'];
  // Resolved as the host resolves its own (the channel's address is derived from it).
  const dataDir = resolve(io.cwd ?? process.cwd(), given ?? defaultDataDir(io.env));
  const reply = await deps.requestLink(dataDir);
  switch (reply.kind) {
    case 'no_host':
      io.stderr(
        `steward: no Steward app is running on the data folder ${dataDir}, so there is no page to open. ` +
          `Start it with \`npm start\` in the Steward folder${given === undefined ? '' : ` (\`npm start -- --data-dir ${shellQuoted(dataDir)}\`)`}: it prints a link and opens it.\n`,
      );
      return EXIT.runNotCompleted;
    case 'untrusted':
      io.stderr(reply.text);
      return EXIT.badInput;
    case 'refused':
      io.stderr(`steward: no link: ${reply.message}\n`);
      return EXIT.runNotCompleted;
    case 'link':
      break;
  }
  io.stdout(`${reply.url}\n`);
  if (values.print) {
    io.stderr('steward: the link works once, within two minutes: open it in a browser on this machine.\n');
  } else if (shouldOpenBrowser(io.env, deps.platform)) {
    deps.openBrowser(reply.url);
    io.stderr('steward: opening it in your browser (the link works once, within two minutes).\n');
  } else {
    io.stderr('steward: no browser can be opened from here (no display): open the link above in a browser on this machine, within two minutes (it works once).\n');
  }
  return EXIT.ok;
}

/** A path as a person can paste it into a POSIX shell. */
function shellQuoted(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
