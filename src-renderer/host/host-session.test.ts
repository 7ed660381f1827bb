import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientFrame } from '@shared/contracts/host-api';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { StewardDb } from '../db/db';
import { createHostClient } from './host-client';
import { startHostSession } from './host-session';
import { FakeTransport } from '../testing/fake-transport';
import { eventLog, finishRun, readExecutedRound, startRun } from '../testing/event-fixtures';

const demo = HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id: 'demo-read', name: 'Demo read', instructions: 'Read.', task: 'Read a file.' });

/** Answers like the host would; records acked ids. */
function hostAnswers(acked: string[][]) {
  return (frame: ClientFrame): unknown => {
    switch (frame.method) {
      case 'host.info':
        return { app: 'steward', version: '0.1.0', shell: 'browser', demo: true };
      case 'workspace.demo':
        return { workflows: [demo] };
      case 'providers.status':
        return { script: { available: true, label: 'replay' }, ollama: { host: 'http://127.0.0.1:11434', reachable: false, models: [] } };
      case 'events.subscribe':
        return { pending: 0 };
      case 'events.ack': {
        const ids = (frame.params as { ids: string[] }).ids;
        acked.push(ids);
        return { acked: ids.length };
      }
      default:
        return undefined;
    }
  };
}

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-session-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

function setup() {
  const acked: string[][] = [];
  const problems: Array<string | undefined> = [];
  const transport = new FakeTransport(hostAnswers(acked));
  const client = createHostClient(transport);
  const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: (p) => problems.push(p) }, { ackChunk: 5 });
  return { transport, client, session, acked, problems };
}

async function settle(session: { done(): Promise<void> }) {
  // Responses arrive as microtasks; a few rounds of done() let each step's follow-up request go out.
  for (let i = 0; i < 5; i++) await session.done();
}

describe('host session', () => {
  it('on connect asks for host info, seeds the demo workspace, then subscribes, in that order', async () => {
    const { transport, session } = setup();
    transport.setState('open');
    await settle(session);
    expect(transport.methods().filter((m) => m !== 'providers.status')).toEqual(['host.info', 'workspace.demo', 'events.subscribe']);
    expect((await db.workflows.toArray()).map((w) => [w.id, w.source])).toEqual([['demo-read', 'demo']]);
    session.stop();
  });

  it('acknowledges pushed events only once they are stored, and a re-push after reconnect stores nothing twice', async () => {
    const { transport, session, acked } = setup();
    transport.setState('open');
    await settle(session);
    const log = eventLog('run-session-001');
    startRun(log);
    readExecutedRound(log, 0);
    finishRun(log, 'completed', 1, 'done');

    transport.push({ kind: 'events', events: log.events });
    await settle(session);
    expect(acked.flat().sort()).toEqual(log.events.map((e) => e.id).sort());
    expect(acked.every((chunk) => chunk.length <= 5)).toBe(true);
    expect(await db.events.count()).toBe(log.events.length);

    // The connection drops before the host saw the acks; after reconnect it pushes everything again.
    transport.setState('connecting');
    transport.setState('open');
    await settle(session);
    transport.push({ kind: 'events', events: log.events });
    await settle(session);

    expect(transport.methods().filter((m) => m === 'events.subscribe')).toHaveLength(2);
    // Every connect asks for the demo workspace (a newer host may ship more demos); nothing is added twice.
    expect(transport.methods().filter((m) => m === 'workspace.demo')).toHaveLength(2);
    expect(await db.workflows.count()).toBe(1);
    expect(await db.events.count()).toBe(log.events.length);
    expect((await db.runs.get(log.runId))?.stored_events).toBe(log.events.length);
    expect(acked.flat()).toHaveLength(log.events.length * 2);
    session.stop();
  });

  it('never acknowledges events it could not store', async () => {
    const { transport, session, acked, problems } = setup();
    transport.setState('open');
    await settle(session);
    const log = eventLog('run-session-002');
    startRun(log);
    db.close();
    const original = console.warn;
    console.warn = () => undefined;
    try {
      transport.push({ kind: 'events', events: log.events });
      await settle(session);
    } finally {
      console.warn = original;
    }
    expect(acked).toEqual([]);
    expect(problems.at(-1)).toMatch(/Could not store run events/);
    session.stop();
  });
});
