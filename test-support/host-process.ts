import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { webSocketProtocols, WS_PATH } from '../src-shared/contracts/bridge';
import type { RunEvent } from '../src-shared/contracts/events';
import { ServerFrame, type HostMethod, type HostParams } from '../src-shared/contracts/host-api';

const SERVER = fileURLToPath(new URL('../out/main/server.js', import.meta.url));

export interface HostProcess {
  child: ChildProcess;
  url: string;
  port: number;
  token: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** What the host printed on its terminal so far (where it shows one-time confirmation codes). */
  stderr?(): string;
}

/** Starts the built browser-run host (`out/main/server.js`) as its own process on a data folder. */
export async function startHostProcess(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<HostProcess> {
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dataDir, '--no-open', '--print-url-json'], {
    env: { ...process.env, CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`host exited (${code}) before printing its URL: ${stderr}`)));
  });
  const { url, port, token } = JSON.parse(first) as { url: string; port: number; token: string };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    url,
    port,
    token,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** A Node-side client of the host's WebSocket API (what the page does), for integration tests. */
export async function connectHost(host: { port: number; token: string }) {
  const origin = `http://127.0.0.1:${host.port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}${WS_PATH}`, webSocketProtocols(host.token), { origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const events: RunEvent[] = [];
  const waiters = new Map<number, (frame: ServerFrame) => void>();
  let nextId = 1;
  ws.on('message', (data: Buffer) => {
    const frame = ServerFrame.parse(JSON.parse(data.toString()));
    if (frame.kind === 'events') events.push(...frame.events);
    else if (frame.kind === 'response') waiters.get(frame.id)?.(frame);
  });
  return {
    events,
    async request<M extends HostMethod>(method: M, params: HostParams<M>): Promise<unknown> {
      const id = nextId++;
      const reply = new Promise<ServerFrame>((resolve) => waiters.set(id, resolve));
      ws.send(JSON.stringify({ kind: 'request', id, method, params }));
      const frame = await reply;
      if (frame.kind !== 'response') throw new Error('unexpected frame');
      if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
      return frame.result;
    },
    close: () => ws.close(),
  };
}

export async function waitFor(check: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
