import { forwardToHost } from '../cli-channel/channel-client';
import { forwardedDataDir } from './forwarded-command';
import { pipeOutput } from '../pipe-output';
import { readStdin, terminalAsk, terminalLine } from './terminal';

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  process.stderr.write('\nsteward: stopping after the current step (Ctrl+C again to quit now)\n');
  controller.abort();
});

const argv = process.argv.slice(2);
const io = {
  stdout: pipeOutput(process.stdout),
  stderr: pipeOutput(process.stderr),
  env: process.env,
  signal: controller.signal,
  ask: terminalAsk(),
  line: terminalLine(),
};

// While the Steward app holds the data folder, it runs the command (one history); else it runs here.
const dataDir = forwardedDataDir(argv, process.env, process.cwd());
let code = dataDir === undefined ? undefined : await forwardToHost(argv, { ...io, cwd: process.cwd() }, dataDir);
if (code === undefined) {
  // Loaded only when needed: a forwarded command starts without the engine.
  const { runCli } = await import('./cli');
  code = await runCli(argv, { ...io, stdin: () => readStdin('Value (not shown): ') });
}
process.exitCode = code;
