/** Command line of the browser-run server (`node out/main/server.js …`). */

export interface ServerArgs {
  /** 0 = any free port; undefined = the port this data folder remembers (stable-port.ts). */
  port: number | undefined;
  /** Undefined = STEWARD_DATA_DIR or the platform's user-data folder. */
  dataDir: string | undefined;
  open: boolean;
  /** Print one JSON line `{"url","port","token","launch_url"}` instead of the human lines (tests, e2e). Implies no browser. */
  printUrlJson: boolean;
  help: boolean;
}

export const SERVER_USAGE = `Usage: steward-server [--port N] [--data-dir DIR] [--no-open] [--print-url-json]

  --port N          listen on 127.0.0.1:N; 0 = any free port (default: the port this data folder's
                    first start chose, kept in DIR/browser-port: the app's history and links are per port)
  --data-dir DIR    user-data folder (default: $STEWARD_DATA_DIR or the platform's app-data folder)
  --no-open         do not open a browser
  --print-url-json  print {"url","port","token","launch_url"} as one JSON line (for scripts); implies --no-open

The access token is the data folder's (DIR/browser-token, readable by you alone): an open page
reconnects by itself when Steward starts again on the same folder and port. Delete that file to
sign every page out. \`steward open [--data-dir DIR]\` prints a new one-time link and opens it.`;

export class ArgsError extends Error {}

export function parseServerArgs(argv: readonly string[]): ServerArgs {
  const args: ServerArgs = { port: undefined, dataDir: undefined, open: true, printUrlJson: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new ArgsError(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case '--port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || !Number.isInteger(port) || port > 65535) throw new ArgsError(`--port must be a number from 0 to 65535, got "${text}"`);
        args.port = port;
        break;
      }
      case '--data-dir':
        args.dataDir = value();
        break;
      case '--no-open':
        args.open = false;
        break;
      case '--print-url-json':
        args.printUrlJson = true;
        args.open = false;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new ArgsError(`unknown argument "${arg}"`);
    }
  }
  return args;
}
