import type { HostInfo, ProviderStatus } from '@shared/contracts/host-api';
import type { StewardDb } from '../db/db';
import { ingestEvents } from '../db/ingest-events';
import { readEventCursor, storeEventsAt } from '../db/event-cursor';
import { deleteRuns } from '../db/delete-runs';
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
  /** How long to wait before subscribing again after a frame could not be stored or did not follow. */
  resubscribeMs?: number;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Built-in profiles, and a profile choice for every workflow (what its own file says). */
export async function prepareProfiles(db: StewardDb): Promise<void> {
  await seedBuiltinProfiles(db);
  await ensureWorkflowProfiles(db);
}

/**
 * The app's conversation with the host. On every (re)connect: host.info → seed the demo
 * workspace (the demos this page does not have yet) → profiles for every workflow →
 * events.subscribe with this database's cursor in the host's journal (issue 9: the journal is the
 * source of truth, IndexedDB an index of it). The host sends what follows the cursor, then live
 * events; each frame says where its events sit. A frame is stored together with its position as
 * the new cursor (one transaction), only if it follows the cursor: after a failure or a gap the
 * page subscribes again from what it stored, so every event reaches the database exactly once.
 */
export function startHostSession(client: HostClient, db: StewardDb, listener: SessionListener, options: HostSessionOptions = {}): { stop(): void; done(): Promise<void> } {
  const pollMs = options.providerPollMs ?? 20_000;
  const resubscribeMs = options.resubscribeMs ?? 2_000;
  let generation = 0;
  let poll: ReturnType<typeof setInterval> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let chain = Promise.resolve();
  /** What the next frame must follow: the cursor this page subscribed with, moved by each stored frame. */
  let expected: { journal: string | undefined; position: number } = { journal: undefined, position: 0 };

  const refreshProviders = () => {
    client.request('providers.status', {}).then(listener.providers, (err: unknown) => console.warn('[steward] providers.status', err));
  };

  /** From the cursor this database stored: another page of this origin may have moved it further. */
  const subscribe = async (mine: number) => {
    await chain;
    const stored = await readEventCursor(db);
    if (mine !== generation) return;
    expected = { journal: stored?.journal, position: stored?.position ?? 0 };
    await client.request('events.subscribe', stored ? { journal: stored.journal, after: stored.position } : {});
  };
  const subscribeAgain = () => {
    if (retry !== undefined) return;
    const mine = generation;
    retry = setTimeout(() => {
      retry = undefined;
      if (mine !== generation) return;
      subscribe(mine).catch((err: unknown) => console.warn('[steward] subscribing again failed', err));
    }, resubscribeMs);
  };

  const offEvents = client.onEvents((events, cursor) => {
    chain = chain
      .then(async () => {
        // An older host: its frames carry no position (it re-sends what was not acknowledged).
        if (!cursor) {
          const { ids } = await ingestEvents(db, events);
          if (ids.length > 0) await client.request('events.ack', { ids });
          return;
        }
        // A frame from the journal's start always follows; otherwise it must continue the cursor.
        const follows = cursor.after === 0 || (cursor.journal === expected.journal && cursor.after === expected.position);
        if (!follows) {
          subscribeAgain();
          return;
        }
        await storeEventsAt(db, events, cursor);
        expected = { journal: cursor.journal, position: cursor.position };
      })
      .catch((err: unknown) => {
        // The cursor stayed before these events: subscribing again sends them again, nothing is lost.
        console.warn('[steward] storing events failed', err);
        if (!(err instanceof HostRequestError)) listener.problem(`Could not store run events: ${messageOf(err)}`);
        subscribeAgain();
      });
  });

  // Runs the host deleted (a person, retention), in order with the frames around the news.
  const offDeleted = client.onDeleted((runIds) => {
    chain = chain
      .then(() => deleteRuns(db, runIds))
      .then(
        () => undefined,
        (err: unknown) => {
          console.warn('[steward] deleting runs failed', err);
          listener.problem(`Could not delete runs the host deleted: ${messageOf(err)}`);
          // No later frame may move the cursor past the news: subscribing again repeats it.
          expected = { journal: undefined, position: -1 };
          subscribeAgain();
        },
      );
  });

  const startUp = async (mine: number) => {
    try {
      const info = await client.request('host.info', {});
      if (mine !== generation) return;
      listener.info(info);
      await seedDemoWorkflows(db, () => client.request('workspace.demo', {}));
      await prepareProfiles(db);
      await subscribe(mine);
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
    clearTimeout(retry);
    retry = undefined;
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
      clearTimeout(retry);
      offState();
      offEvents();
      offDeleted();
    },
    /** Settles once the current start-up and every queued batch are through (for tests and shutdown). */
    async done() {
      await startup;
      await chain;
    },
  };
}
