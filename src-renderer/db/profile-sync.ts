import { liveQuery } from 'dexie';
import { choicesNewer, MAX_SYNCED_RECORDS, sameProfileVersion, SyncedProfile, WorkflowChoices, type DeletedProfile } from '@shared/contracts/profile-store';
import { HostRequestError, type HostClient } from '../host/host-client';
import type { StewardDb, WorkflowRow } from './db';
import { isReadOnlyProfile, profileLabel, toProfile } from './profiles';

/**
 * The settings a person made here follow to every page of the same host (issue 9): profile versions
 * made or imported, and each workflow's profile choices and supervision switch, are kept by the host
 * (profiles.json). One exchange pulls what this database lacks and pushes what the host lacks.
 * Versions are a union (never changed); a workflow's choices go by `choices_at`, the newest wins.
 * Built-in profiles ship with the app and stay out.
 */

export interface ProfileSyncOutcome {
  pulled: number;
  pushed: number;
  /** Versions held here and on the host with different settings: each side keeps its own. */
  conflicts: string[];
}

type Client = Pick<HostClient, 'request'>;

const key = (p: { id: string; version: number }) => `${p.id}\u0000${p.version}`;

/** What the host is sent of a workflow's choices; undefined until a person (or the first derivation) chose. */
function choicesOf(row: WorkflowRow): WorkflowChoices | undefined {
  if (!row.choices_at || !row.profiles) return undefined;
  const parsed = WorkflowChoices.safeParse({ workflow_id: row.id, profiles: row.profiles, supervision_enabled: row.supervision_enabled, updated_at: row.choices_at });
  return parsed.success ? parsed.data : undefined;
}

type HostProfiles = { profiles: SyncedProfile[]; workflow_choices: WorkflowChoices[]; deleted?: DeletedProfile[] };

async function pull(db: StewardDb, host: HostProfiles, outcome: ProfileSyncOutcome): Promise<void> {
  await db.transaction('rw', db.profiles, db.workflows, async () => {
    // A profile a person deleted (here or in another browser) goes from this page too; a built-in never does.
    for (const { id } of host.deleted ?? []) {
      const rows = await db.profiles.where('id').equals(id).toArray();
      if (rows.length === 0 || rows.some(isReadOnlyProfile)) continue;
      await db.profiles.where('id').equals(id).delete();
      outcome.pulled += 1;
    }
    for (const { origin, profile } of host.profiles) {
      const here = await db.profiles.get([profile.id, profile.version]);
      if (!here) {
        await db.profiles.add({ ...profile, origin });
        outcome.pulled += 1;
      } else if (!sameProfileVersion(toProfile(here), profile)) {
        outcome.conflicts.push(`${profileLabel(here)} differs from the version the Steward host keeps (saved in another browser); this browser keeps its own until you choose in Settings → Profiles (keep yours or theirs).`);
      }
    }
    for (const choices of host.workflow_choices) {
      const row = await db.workflows.get(choices.workflow_id);
      if (!row || !choicesNewer(choices, row.choices_at === undefined ? undefined : { updated_at: row.choices_at })) continue;
      await db.workflows.update(row.id, { profiles: choices.profiles, supervision_enabled: choices.supervision_enabled, choices_at: choices.updated_at });
      outcome.pulled += 1;
    }
  });
}

/** One exchange with the host. An older host without profiles.* keeps nothing: nothing to do. */
export async function syncProfiles(db: StewardDb, client: Client): Promise<ProfileSyncOutcome> {
  const outcome: ProfileSyncOutcome = { pulled: 0, pushed: 0, conflicts: [] };
  let host: HostProfiles;
  try {
    host = await client.request('profiles.list', {});
  } catch (err) {
    if (err instanceof HostRequestError && err.code === 'unknown_method') return outcome;
    throw err;
  }
  await pull(db, host, outcome);

  const held = new Set(host.profiles.map((p) => key(p.profile)));
  const deleted = new Set((host.deleted ?? []).map((d) => d.id));
  const heldChoices = new Map(host.workflow_choices.map((c) => [c.workflow_id, c]));
  const profiles: SyncedProfile[] = [];
  for (const row of await db.profiles.toArray()) {
    // A built-in (or a version an older page saved under a built-in's id) stays here: the host keeps none.
    if (isReadOnlyProfile(row) || held.has(key(row)) || deleted.has(row.id)) continue;
    // Checked as the host will: a row that is not a valid profile (never written so) is not sent.
    const parsed = SyncedProfile.safeParse({ origin: row.origin, profile: toProfile(row) });
    if (parsed.success) profiles.push(parsed.data);
  }
  const choices = (await db.workflows.toArray()).map(choicesOf).filter((c): c is WorkflowChoices => c !== undefined && choicesNewer(c, heldChoices.get(c.workflow_id)));
  for (let i = 0; i < Math.max(profiles.length, choices.length); i += MAX_SYNCED_RECORDS) {
    const saved = await client.request('profiles.save', { profiles: profiles.slice(i, i + MAX_SYNCED_RECORDS), workflow_choices: choices.slice(i, i + MAX_SYNCED_RECORDS) });
    outcome.pushed += saved.added + saved.choices_taken;
    for (const c of saved.conflicts) outcome.conflicts.push(c.message);
  }
  return outcome;
}

/** What a person reads of an exchange that did not go cleanly; undefined when it did. */
export function syncProblem(outcome: ProfileSyncOutcome | Error): string | undefined {
  if (outcome instanceof Error) return `Could not share profiles with the Steward host: ${outcome.message}`;
  return outcome.conflicts.length > 0 ? outcome.conflicts.join(' ') : undefined;
}

/**
 * Exchanges on demand and, while active, after every change to the profiles or a workflow's
 * choices here (a save in Settings, a model picked on a card, an import, a pull by another tab).
 * Exchanges run one at a time; requests made while one waits join it.
 */
export function createProfileSync(db: StewardDb, client: Client, report: (problem: string | undefined) => void) {
  let tail: Promise<unknown> = Promise.resolve();
  let queued: Promise<ProfileSyncOutcome | Error> | undefined;
  let active = false;

  const run = (): Promise<ProfileSyncOutcome | Error> => {
    if (queued) return queued;
    const next = tail.then(() => {
      queued = undefined;
      return syncProfiles(db, client).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    });
    queued = next;
    tail = next;
    return next;
  };

  // What changes when something worth sending does: versions are only ever added.
  const watched = liveQuery(async () => `${await db.profiles.count()}|${(await db.workflows.toArray()).map((r) => `${r.id}@${r.choices_at ?? ''}`).join(',')}`);
  let last: string | undefined;
  // The watcher's first reading is its baseline: connect waits for it, so a change made once connect
  // has returned is never taken into the baseline (and left unsent) on a busy machine.
  let primed = () => undefined as void;
  const baseline = new Promise<void>((resolve) => (primed = resolve));
  const subscription = watched.subscribe({
    next(value) {
      primed();
      const changed = last !== undefined && value !== last;
      last = value;
      if (!changed || !active) return;
      // Only a problem is reported: a clean exchange must not clear what else the page shows.
      void run().then((outcome) => {
        const problem = syncProblem(outcome);
        if (problem !== undefined && active) report(problem);
      });
    },
    error: (err: unknown) => {
      primed();
      console.warn('[steward] watching profiles failed', err);
    },
  });

  return {
    /** The host is connected: exchange now (before workflows get choices derived from their files), then after every change. */
    async connect(): Promise<string | undefined> {
      active = true;
      const outcome = await run();
      await baseline;
      return syncProblem(outcome);
    },
    pause() {
      active = false;
    },
    stop() {
      active = false;
      subscription.unsubscribe();
    },
    /** Settles once the exchanges started so far are through. */
    idle: () => tail.then(() => undefined),
  };
}
