import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { RunEvent, eventId } from '../src-shared/contracts/events';
import { webSocketProtocols } from '../src-shared/contracts/bridge';
import { startBrowserServer } from '../src-main/shells/browser/server';
import { EventJournal } from '../src-main/events/event-journal';
import { createHostClient } from '../src-renderer/host/host-client';
import { createWebSocketTransport } from '../src-renderer/host/websocket-transport';
import { importTraceFiles } from '../src-renderer/screens/runs/run-transfer';
import { openTestHost } from './host-session';

/** Issue 9: a 10 MB trace reaches the host through the browser shell's WebSocket, whose messages are capped at 1 MB. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** Runs of notices until the file holds `bytes` of JSON lines. */
function bigTrace(bytes: number): { text: string; events: number; runs: number } {
  const lines: string[] = [];
  let size = 0;
  let runs = 0;
  while (size < bytes) {
    const runId = `big-import-${String(runs++).padStart(5, '0')}`;
    const ts = new Date(Date.UTC(2026, 0, 5)).toISOString();
    const events = [
      RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts, spec_id: 'big', spec_name: 'Big', task: 'a long run', supervision: { enabled: false }, models: { student: 's', teacher: 't' } }),
      ...Array.from({ length: 200 }, (_, i) => RunEvent.parse({ type: 'run.notice', id: eventId(runId, i + 1), run_id: runId, seq: i + 1, ts, message: `step ${i}: ${'x'.repeat(200)}` })),
      RunEvent.parse({ type: 'run.finished', id: eventId(runId, 201), run_id: runId, seq: 201, ts, status: 'completed', rounds: 0, event_count: 202 }),
    ];
    for (const e of events) {
      const line = JSON.stringify(e);
      lines.push(line);
      size += line.length + 1;
    }
  }
  return { text: lines.join('\n') + '\n', events: lines.length, runs };
}

describe('importing a big trace through the browser shell', () => {
  it('a 10 MB file goes in parts under the 1 MB message limit, with progress, and every event reaches the journal', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-big-import-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const staticDir = join(dataDir, 'renderer');
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
    const host = await openTestHost(dataDir, cleanups);
    const server = await startBrowserServer({ host, staticDir });
    cleanups.push(() => server.close());
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${server.port}/api`,
      protocols: () => webSocketProtocols(server.token),
      createSocket: (u, p) => new NodeWebSocket(u, p, { origin: server.origin }) as unknown as WebSocket,
    });
    const client = createHostClient(transport);
    cleanups.push(() => client.close());
    await new Promise<void>((resolve) => client.onState((s) => s === 'open' && resolve()));

    const trace = bigTrace(10 * 1024 * 1024);
    const progress: number[] = [];
    const started = performance.now();
    const outcome = await importTraceFiles(client, [{ name: 'big.jsonl', text: trace.text }], (done) => progress.push(done));
    const ms = performance.now() - started;
    console.log(`imported ${trace.events} events (${(trace.text.length / 1e6).toFixed(1)} MB, ${trace.runs} runs) in ${progress.length - 1} parts over the WebSocket: ${ms.toFixed(0)} ms`);
    expect(outcome).toEqual({ ok: true, imported: trace.events, repeated: 0, held: 0, runs: trace.runs, repeatedLines: 0, trimmed: 0, masked: 0 });
    expect(progress.length - 1).toBeGreaterThanOrEqual(11);
    expect(progress).toEqual(progress.map((_, i) => i));
    await host.close();
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    expect(journal.count).toBe(trace.events);
    journal.close();
  }, 120_000);
});
