import { runCli } from './cli';
import { readStdin, terminalAsk, terminalLine } from './terminal';

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  process.stderr.write('\nsteward: stopping after the current step (Ctrl+C again to quit now)\n');
  controller.abort();
});

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: controller.signal,
  stdin: () => readStdin('Value (not shown): '),
  ask: terminalAsk(),
  line: terminalLine(),
});
process.exitCode = code;
