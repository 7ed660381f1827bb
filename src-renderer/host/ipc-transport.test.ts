import { describe, expect, it } from 'vitest';
import type { StewardBridge } from '@shared/contracts/bridge';
import type { ClientFrame } from '@shared/contracts/host-api';
import { createHostClient } from './host-client';
import { createIpcTransport } from './ipc-transport';
import { eventLog, startRun } from '../testing/event-fixtures';

/** Bridge double for tests: stands in for the Electron preload's `window.steward`. */
class BridgeDouble implements StewardBridge {
  listeners = new Set<(frame: unknown) => void>();
  constructor(private readonly answer: (frame: ClientFrame) => Promise<unknown>) {}
  request(frame: ClientFrame): Promise<unknown> {
    return this.answer(frame);
  }
  onEvents(cb: (frame: unknown) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
  push(frame: unknown): void {
    for (const cb of this.listeners) cb(frame);
  }
}

describe('IPC transport', () => {
  it('is open at once and resolves requests with the host’s response frame', async () => {
    const bridge = new BridgeDouble(async (f) => ({ kind: 'response', id: f.id, ok: true, result: { run_ids: ['run-00000001'] } }));
    const client = createHostClient(createIpcTransport(bridge));
    await expect(client.request('runs.active', {})).resolves.toEqual({ run_ids: ['run-00000001'] });
    client.close();
  });

  it('turns a failed IPC call into that request’s error instead of leaving it waiting', async () => {
    const bridge = new BridgeDouble(async () => {
      throw new Error('No handler registered for steward:request');
    });
    const client = createHostClient(createIpcTransport(bridge));
    await expect(client.request('host.info', {})).rejects.toMatchObject({ code: 'host_error', message: 'No handler registered for steward:request' });
    client.close();
  });

  it('delivers pushed events, and stops listening once closed', () => {
    const bridge = new BridgeDouble(async () => undefined);
    const client = createHostClient(createIpcTransport(bridge));
    const seen: number[] = [];
    client.onEvents((events) => seen.push(events.length));
    const log = eventLog('run-ipc-00001');
    startRun(log);
    bridge.push({ kind: 'events', events: log.events });
    client.close();
    expect(bridge.listeners.size).toBe(0);
    bridge.push({ kind: 'events', events: log.events });
    expect(seen).toEqual([1]);
  });

  it('carries the host’s news of deleted runs to the page, as the WebSocket does', () => {
    const bridge = new BridgeDouble(async () => undefined);
    const client = createHostClient(createIpcTransport(bridge));
    const seen: Array<[string[], string]> = [];
    client.onDeleted((runIds, journal) => seen.push([runIds, journal]));
    bridge.push({ kind: 'runs.deleted', journal: 'journal-1', run_ids: ['run-ipc-00002'] });
    bridge.push({ kind: 'runs.deleted', journal: 'journal-1', run_ids: 'not a list' });
    expect(seen).toEqual([[['run-ipc-00002'], 'journal-1']]);
    expect(client.stats().droppedFrames).toBe(1);
    client.close();
  });
});
