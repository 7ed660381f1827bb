import type { HostInfo, ProviderStatus } from '@shared/contracts/host-api';
import type { StewardDb } from '../db/db';
import { ingestEvents } from '../db/ingest-events';
import { seedDemoWorkflows } from '../db/seed-demo';
import { seedBuiltinProfiles } from '../db/builtin-profiles';
import { ensureWorkflowProfiles } from '../db/workflow-profiles';
import { HostRequestError, type HostClient } from './host-client';
import type { ConnectionState } from './transport';

export interface SessionListener {
  connection(state: ConnectionState): void;
  info(info: HostInfo): void;
  providers(status: ProviderStatus): void;
  /** Something went wrong in the background; undefined once start-up succeeded again. */
  problem(message: string | undefined): void;
}

export interface HostSessionOptions {
  providerPollMs?: number;
  /** Ids per events.ack request (the contract allows at most 10 000). */
  ackChunk?: number;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Built-in profiles, and a profile choice for every workflow (what its own file says). */
export async function prepareProfiles(db: StewardDb): Promise<void> {
  await seedBuiltinProfiles(db);
  await ensureWorkflowProfiles(db);
}

/**
 * The app's conversation with the host. On every (re)connect: host.info → seed the demo
 * workspace (the demos this page does not have yet) → profiles for every workflow → events.subscribe (the host then re-pushes whatever was
 * not acknowledged). Pushed events are stored in IndexedDB first and acknowledged only after the
 * transaction committed, one batch at a time, so every event reaches the database exactly once.
 */
export function startHostSession(client: HostClient, db: StewardDb, listener: SessionListener, options: HostSessionOptions = {}): { stop(): void; done(): Promise<void> } {
  const pollMs = options.providerPollMs ?? 20_000;
  const ackChunk = options.ackChunk ?? 10_000;
  let generation = 0;
  let poll: ReturnType<typeof setInterval> | undefined;
  let chain = Promise.resolve();

  const refreshProviders = () => {
    client.request('providers.status', {}).then(listener.providers, (err: unknown) => console.warn('[steward] providers.status', err));
  };

  const offEvents = client.onEvents((events) => {
    chain = chain
      .then(async () => {
        const { ids } = await ingestEvents(db, events);
        for (let i = 0; i < ids.length; i += ackChunk) {
          await client.request('events.ack', { ids: ids.slice(i, i + ackChunk) });
        }
      })
      .catch((err: unknown) => {
        // Unacknowledged events are pushed again after the next subscribe: nothing is lost.
        console.warn('[steward] storing or acknowledging events failed', err);
        if (!(err instanceof HostRequestError)) listener.problem(`Could not store run events: ${messageOf(err)}`);
      });
  });

  const startUp = async (mine: number) => {
    try {
      const info = await client.request('host.info', {});
      if (mine !== generation) return;
      listener.info(info);
      await seedDemoWorkflows(db, () => client.request('workspace.demo', {}));
      await prepareProfiles(db);
      await client.request('events.subscribe', {});
      if (mine === generation) listener.problem(undefined);
    } catch (err) {
      if (mine === generation) listener.problem(`Start-up with the host failed: ${messageOf(err)}`);
    }
  };

  // Profiles live in this browser: they are ready before (and without) the host.
  let startup: Promise<void> = prepareProfiles(db).catch((err: unknown) => listener.problem(`Could not prepare the built-in profiles: ${messageOf(err)}`));
  const offState = client.onState((state) => {
    generation += 1;
    clearInterval(poll);
    listener.connection(state);
    if (state !== 'open') return;
    startup = startUp(generation);
    refreshProviders();
    poll = setInterval(refreshProviders, pollMs);
  });

  return {
    stop() {
      generation += 1;
      clearInterval(poll);
      offState();
      offEvents();
    },
    /** Settles once the current start-up and every queued batch are through (for tests and shutdown). */
    async done() {
      await startup;
      await chain;
    },
  };
}
