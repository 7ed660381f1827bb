import type { EventsCursor, HostInfo, ProviderStatus } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import type { StewardDb } from '../db/db';
import { resumeCursor, storeEventsAt, storeUnpositioned } from '../db/event-cursor';
import { deleteRuns } from '../db/delete-runs';
import { reconcileRuns } from '../db/reconcile-runs';
import { markImportedRuns, SUMMARY_PAGE, syncRunSummaries } from '../db/run-summaries';
import { holdNewestRuns, openRuns, readBudget, trimToBudget } from '../db/history-budget';
import { seedDemoWorkflows } from '../db/seed-demo';
import { seedBuiltinProfiles } from '../db/builtin-profiles';
import { ensureWorkflowProfiles } from '../db/workflow-profiles';
import { createProfileSync } from '../db/profile-sync';
import { HostRequestError, type HostClient } from './host-client';
import { whenForegroundIdle } from './foreground';
import type { ConnectionState } from './transport';

/** How far this page's index of the host's history is: shown while it catches up (a fresh profile on a long history). */
export type IndexingState = { stage: 'runs'; listed: number; total: number } | { stage: 'events'; stored: number; head: number };

export interface SessionListener {
  connection(state: ConnectionState): void;
  info(info: HostInfo): void;
  providers(status: ProviderStatus): void;
  /** Something went wrong in the background; undefined once start-up succeeded again. */
  problem(message: string | undefined): void;
  /** While the page catches up with a history far ahead of it; undefined once it has. */
  indexing?(state: IndexingState | undefined): void;
}

export interface HostSessionOptions {
  /** How often the providers' status is asked for while Ollama answers. */
  providerPollMs?: number;
  /** How often while it does not (default 4 s; never longer than `providerPollMs`). */
  unreachableProviderPollMs?: number;
  /** How long to wait before subscribing again after a frame could not be stored or did not follow. */
  resubscribeMs?: number;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A page this many events or more behind the host takes every run's summary row first (run-summaries.ts)
 * and shows its progress; closer than that, the events themselves arrive in moments.
 */
export const CATCH_UP_EVENTS = 2_000;
/** The rows asked first by a page far behind: about one screen of Runs. */
const FIRST_SUMMARY_PAGE = 50;

/** How long after a run ends this page waits before it trims the events it keeps to its budget (ends come in bursts). */
export const TRIM_DELAY_MS = 3_000;

/** Frames the host may have in flight to this page. */
export const FEED_WINDOW = 8;
/** Frames stored in one transaction at most: half the window, so the other half arrives while they are stored. */
const FRAMES_PER_STORE = FEED_WINDOW / 2;

interface Frame {
  events: RunEvent[];
  cursor: EventsCursor | undefined;
  /** Runs among the events that came from an imported trace: their rows say so. */
  imported: readonly string[];
}
type Group = { events: RunEvent[]; cursor: EventsCursor; frames: number; imported: Set<string> };

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
 * Frames that arrive while a store is in progress are stored together (consecutive ones as one, up
 * to FRAMES_PER_STORE, one transaction); the host keeps FEED_WINDOW frames in flight and sends more
 * as the page says, after each store, what it stored (events.cursor).
 */
export function startHostSession(client: HostClient, db: StewardDb, listener: SessionListener, options: HostSessionOptions = {}): { stop(): void; done(): Promise<void> } {
  const pollMs = options.providerPollMs ?? 20_000;
  // Ollama not answering (not started yet, or too busy to answer in time): asked again sooner, so a
  // server a person just started, or one that was slow once, shows as running within seconds.
  const unreachablePollMs = Math.min(pollMs, options.unreachableProviderPollMs ?? 4_000);
  const resubscribeMs = options.resubscribeMs ?? 2_000;
  let generation = 0;
  let poll: ReturnType<typeof setTimeout> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let chain = Promise.resolve();
  /** What the next frame must follow: the cursor this page subscribed with, moved by each stored frame. */
  let expected: { journal: string | undefined; position: number } = { journal: undefined, position: 0 };
  /** Frames waiting for the store in progress: the next store takes them all (one transaction per run of consecutive frames). */
  let waiting: Frame[] | undefined;
  /** The host keeps a window for this page: tell it what is stored (an older host keeps none). */
  let windowed = false;
  /** The connected host's journal (host.info), to resume from this database's cursor in it. */
  let hostJournal: string | undefined;

  /** Asks now, then again after the poll's interval (shorter while Ollama does not answer); a newer connection ends the chain. */
  const refreshProviders = (mine = generation) => {
    clearTimeout(poll);
    const next = (ms: number) => {
      if (mine === generation) poll = setTimeout(() => refreshProviders(mine), ms);
    };
    client.request('providers.status', {}).then(
      (status) => {
        listener.providers(status);
        next(status.ollama.reachable ? pollMs : unreachablePollMs);
      },
      (err: unknown) => {
        console.warn('[steward] providers.status', err);
        next(pollMs);
      },
    );
  };

  /** From the cursor this database stored: another page of this origin may have moved it further. */
  const subscribe = async (mine: number) => {
    await chain;
    const stored = await resumeCursor(db, hostJournal);
    if (mine !== generation) return;
    expected = { journal: stored?.journal, position: stored?.position ?? 0 };
    const from = stored ? { journal: stored.journal, after: stored.position } : {};
    try {
      let started = await client.request('events.subscribe', { ...from, window: FEED_WINDOW });
      const behind = started.head - (started.after ?? 0);
      catchingUp = behind >= CATCH_UP_EVENTS ? started.head : undefined;
      listener.indexing?.(catchingUp === undefined ? undefined : { stage: 'events', stored: started.after ?? 0, head: started.head });
      // Tombstones this page may need were compacted: its runs are checked first, then the feed starts (nothing came yet).
      while (started.reconcile !== undefined) {
        await reconcileRuns(db, async (run_ids) => (await client.request('runs.known', { run_ids })).known);
        if (mine !== generation) return;
        started = await client.request('events.subscribe', { ...from, window: FEED_WINDOW, reconciled: started.reconcile });
      }
      windowed = true;
    } catch (err) {
      // A host from before windows refuses the parameter: it sends everything without waiting.
      if (!(err instanceof HostRequestError && err.code === 'invalid_params')) throw err;
      windowed = false;
      await client.request('events.subscribe', from);
    }
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

  /** Consecutive frames as one: their events, the first one's `after`, the last one's `position`. */
  const merge = (group: Group, cursor: EventsCursor, events: RunEvent[], imported: readonly string[]) => {
    for (const e of events) group.events.push(e);
    for (const runId of imported) group.imported.add(runId);
    group.cursor = { ...group.cursor, position: cursor.position };
    group.frames += 1;
  };
  /** The head this page is catching up to, while it is far behind (its events' progress is shown). */
  let catchingUp: number | undefined;
  /** The events this page keeps stay within the budget a person set (history-budget.ts): checked a little after runs end. */
  let trimTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleTrim = () => {
    trimTimer ??= setTimeout(() => {
      trimTimer = undefined;
      chain = chain
        .then(async () => {
          await trimToBudget(db, await readBudget(db), openRuns());
        })
        .catch((err: unknown) => console.warn('[steward] trimming the kept events failed', err));
    }, TRIM_DELAY_MS);
  };
  const storeGroup = async (group: Group) => {
    // A run a person is opening is read and shown first (its read would wait behind this transaction).
    await whenForegroundIdle();
    await storeEventsAt(db, group.events, group.cursor, group.imported);
    if (group.events.some((e) => e.type === 'run.finished')) scheduleTrim();
    expected = { journal: group.cursor.journal, position: group.cursor.position };
    if (catchingUp !== undefined) {
      const stored = group.cursor.position;
      if (stored >= catchingUp) catchingUp = undefined;
      listener.indexing?.(catchingUp === undefined ? undefined : { stage: 'events', stored, head: catchingUp });
    }
    // Credit for the host's window; a lost one is renewed by the next (or by subscribing again).
    if (windowed) client.request('events.cursor', { journal: group.cursor.journal, position: group.cursor.position }).catch(() => undefined);
  };
  const storeFrames = async (frames: readonly Frame[]) => {
    let group: Group | undefined;
    for (const { events, cursor, imported } of frames) {
      // An older host: its frames carry no position (it re-sends what was not acknowledged).
      if (!cursor) {
        if (group) await storeGroup(group);
        group = undefined;
        const { ids } = await storeUnpositioned(db, events, new Set(imported));
        if (ids.length > 0) await client.request('events.ack', { ids });
        continue;
      }
      if (group && group.frames < FRAMES_PER_STORE && cursor.journal === group.cursor.journal && cursor.after === group.cursor.position) {
        merge(group, cursor, events, imported);
        continue;
      }
      if (group) await storeGroup(group);
      group = undefined;
      // A frame from the journal's start always follows; otherwise it must continue the cursor.
      const follows = cursor.after === 0 || (cursor.journal === expected.journal && cursor.after === expected.position);
      if (!follows) {
        subscribeAgain();
        continue;
      }
      group = { events: [...events], cursor, frames: 1, imported: new Set(imported) };
    }
    if (group) await storeGroup(group);
  };

  const offEvents = client.onEvents((events, cursor, imported) => {
    if (!waiting) {
      const frames: Frame[] = [];
      waiting = frames;
      chain = chain
        .then(() => {
          if (waiting === frames) waiting = undefined;
          return storeFrames(frames);
        })
        .catch((err: unknown) => {
          // The cursor stayed before these events: subscribing again sends them again, nothing is lost.
          console.warn('[steward] storing events failed', err);
          if (!(err instanceof HostRequestError)) listener.problem(`Could not store run events: ${messageOf(err)}`);
          subscribeAgain();
        });
    }
    waiting.push({ events, cursor, imported });
  });

  // Runs the host deleted (a person, retention), in order with the frames around the news.
  const offDeleted = client.onDeleted((runIds) => {
    waiting = undefined; // frames after the news are stored after it
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

  /**
   * Far behind the host (a fresh profile on a long history): every run's summary row first, so the
   * Runs screen is complete and right while the events follow. A host that cannot list runs (older)
   * is left to the events.
   */
  const catchUpRuns = async (mine: number) => {
    const stored = await resumeCursor(db, hostJournal);
    let first;
    try {
      // A first page as small as what Runs shows first: the list is right at once; the rest follows 1,000 rows a page.
      first = await client.request('runs.list', { limit: FIRST_SUMMARY_PAGE });
    } catch (err) {
      if (err instanceof HostRequestError && err.code === 'unknown_method') return;
      throw err;
    }
    if (mine !== generation || first.head - (stored?.position ?? 0) < CATCH_UP_EVENTS) return;
    listener.indexing?.({ stage: 'runs', listed: 0, total: first.total });
    await syncRunSummaries(
      db,
      async (after) => {
        await whenForegroundIdle();
        const page = after ? await client.request('runs.list', { limit: SUMMARY_PAGE, after }) : first;
        // Stored once what a person opened meanwhile is shown.
        await whenForegroundIdle();
        return page;
      },
      ({ listed, total }) => {
        if (mine === generation) listener.indexing?.({ stage: 'runs', listed, total });
      },
      () => mine === generation,
    );
    // The newest runs whose events fit in the budget are kept; the others are indexed, their events left on the host.
    if (mine === generation) await holdNewestRuns(db, await readBudget(db));
  };

  const startUp = async (mine: number) => {
    try {
      const info = await client.request('host.info', {});
      if (mine !== generation) return;
      hostJournal = info.journal;
      listener.info(info);
      // Runs are listed beside the workflows and profiles (they touch other tables): a fresh page shows them at once.
      const runsListed = catchUpRuns(mine);
      runsListed.catch(() => undefined); // awaited below; its failure is reported there
      await seedDemoWorkflows(db, () => client.request('workspace.demo', {}));
      // The profiles and choices made in other browsers come first: a workflow that has them derives none.
      const profileProblem = await profileSync.connect();
      await prepareProfiles(db);
      await runsListed;
      if (mine !== generation) return;
      await subscribe(mine);
      // Rows this profile indexed before rows said "imported" learn it, once per history (later imports: their frames say it).
      if (hostJournal !== undefined) {
        const journal = hostJournal;
        markImportedRuns(db, journal, (after) => client.request('runs.list', { imported: true, limit: SUMMARY_PAGE, ...(after ? { after } : {}) }), () => mine === generation).catch((err: unknown) => console.warn('[steward] marking imported runs failed', err));
      }
      if (mine === generation) listener.problem(profileProblem);
      scheduleTrim();
    } catch (err) {
      if (mine === generation) listener.problem(`Start-up with the host failed: ${messageOf(err)}`);
    }
  };

  // Profiles live in this browser: they are ready before (and without) the host.
  let startup: Promise<void> = prepareProfiles(db).catch((err: unknown) => listener.problem(`Could not prepare the built-in profiles: ${messageOf(err)}`));
  // Profiles and workflows' choices follow to every page of this host (profile-sync.ts).
  const profileSync = createProfileSync(db, client, listener.problem);
  const offState = client.onState((state) => {
    generation += 1;
    clearTimeout(poll);
    clearTimeout(retry);
    retry = undefined;
    listener.connection(state);
    if (state !== 'open') return profileSync.pause();
    startup = startUp(generation);
    refreshProviders(generation);
  });

  return {
    stop() {
      generation += 1;
      clearTimeout(trimTimer);
      clearTimeout(poll);
      clearTimeout(retry);
      offState();
      offEvents();
      offDeleted();
      profileSync.stop();
    },
    /** Settles once the current start-up and every queued batch are through (for tests and shutdown). */
    async done() {
      await startup;
      await chain;
      await profileSync.idle();
    },
  };
}
