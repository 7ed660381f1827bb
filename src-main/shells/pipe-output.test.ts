import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { pipeOutput } from './pipe-output';

/** A stream whose reader has gone: a child's standard input, which the child closed (a real pipe, a real EPIPE). */
async function pipeWithNoReader(cleanups: Array<() => void>): Promise<NodeJS.WriteStream> {
  const child = spawn(process.execPath, ['-e', "require('node:fs').closeSync(0); console.log('closed'); setTimeout(() => {}, 10000)"], { stdio: ['pipe', 'pipe', 'ignore'] });
  cleanups.push(() => child.kill());
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return child.stdin as unknown as NodeJS.WriteStream;
}

describe('output whose reader went away', () => {
  it('is let go: writes after EPIPE are dropped, and nothing is thrown or left unhandled', async () => {
    const cleanups: Array<() => void> = [];
    onTestFinished(() => cleanups.forEach((c) => c()));
    const stream = await pipeWithNoReader(cleanups);
    const write = pipeOutput(stream);
    // No other listener: an EPIPE left unhandled would be thrown, and fail this run.
    write('first line\n');
    await new Promise((resolve) => stream.once('close', resolve));
    // The pipe broke (the write met EPIPE) and the process goes on.
    expect(stream.destroyed).toBe(true);
    // Later writes go nowhere, without writing to a destroyed stream (which would error again).
    for (let i = 0; i < 100; i += 1) write('more\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stream.writableLength).toBe(0);
  });
});
