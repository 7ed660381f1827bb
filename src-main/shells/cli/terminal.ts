import { createInterface } from 'node:readline';

/** Reads all of standard input, or prompts for one hidden line when it is a terminal. */
export async function readStdin(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  process.stderr.write(prompt);
  return new Promise((resolve) => {
    const stdin = process.stdin;
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const onData = (ch: string) => {
      for (const c of ch) {
        if (c === '\r' || c === '\n' || c === '\u0004') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stderr.write('\n');
          resolve(value);
          return;
        }
        if (c === '\u0003') process.exit(130);
        value = c === '\u007f' ? value.slice(0, -1) : value + c;
      }
    };
    stdin.on('data', onData);
  });
}

/** A yes/no question at the terminal; only offered when both ends are a terminal. */
export function terminalAsk(): ((question: string) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return (question) =>
    new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      rl.question(`${question} [y/N] `, (answer) => {
        rl.close();
        resolve(/^y(es)?$/i.test(answer.trim()));
      });
    });
}

/**
 * One line typed at the terminal (a reply to the agent); only offered when both ends are a terminal.
 * Undefined when the person ends input (Ctrl+D) or presses Ctrl+C: the run then waits, persisted.
 */
export function terminalLine(): ((question: string) => Promise<string | undefined>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return (question) =>
    new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      let answered = false;
      rl.on('SIGINT', () => rl.close());
      rl.on('close', () => {
        if (!answered) resolve(undefined);
      });
      rl.question(question, (answer) => {
        answered = true;
        rl.close();
        resolve(answer);
      });
    });
}
