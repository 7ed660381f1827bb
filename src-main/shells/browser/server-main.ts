import { fileURLToPath } from 'node:url';
import { createHost } from '../../composition/create-host';
import { openBrowser } from '../open-browser';
import { pipeOutput } from '../pipe-output';
import { runBrowserShell } from './run-browser-shell';

/** `npm start` / `node out/main/server.js`: the browser-run shell as a process. */

// The bundle lives in out/main; the renderer build sits beside it in out/renderer.
const staticDir = fileURLToPath(new URL('../renderer', import.meta.url));
// A terminal or pipe that goes away never takes the app down with it (pipe-output.ts).
const stdout = pipeOutput(process.stdout);
const stderr = pipeOutput(process.stderr);

const outcome = await runBrowserShell(
  process.argv.slice(2),
  {
    stdout,
    stderr,
    env: process.env,
    platform: process.platform,
    interactive: process.stdin.isTTY === true,
  },
  { staticDir, createHost, openBrowser },
);

if (outcome.kind === 'exit') {
  process.exitCode = outcome.code;
} else {
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130); // a second Ctrl+C: stop waiting
    signalled = true;
    stderr(`\nsteward: ${signal}, stopping\n`);
    outcome.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        stderr(`steward: error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  if (process.stdin.isTTY) {
    // Enter at the terminal: a fresh one-time link (the printed one may be spent or expired).
    process.stdin.on('data', () => stdout(`New one-time link: ${outcome.newLink()}\n`));
    // Reading stdin must not keep the process alive on its own once the server stops.
    process.stdin.unref();
  }
}
