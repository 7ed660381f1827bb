import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HostProcess } from '../test-support/host-process';

const SERVER = fileURLToPath(new URL('../out/main/server.js', import.meta.url));

/**
 * The built host on a given port: a restart on the same origin keeps the page's IndexedDB (it is
 * per origin), as a person restarting Steward would. The token is the data folder's: a restart prints the same one.
 */
export async function startHostOnPort(dataDir: string, port: number): Promise<HostProcess> {
  const child = spawn(process.execPath, [SERVER, '--port', String(port), '--data-dir', dataDir, '--no-open', '--print-url-json'], {
    env: { ...process.env, CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`host exited (${code}) before printing its URL: ${stderr}`)));
  });
  const info = JSON.parse(first) as { url: string; port: number; token: string };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    ...info,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
