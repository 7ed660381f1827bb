import { useEffect, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { SyncedProfile } from '@shared/contracts/profile-store';
import type { Profile } from '@shared/contracts/profiles';
import { useHost } from '../../app/HostProvider';
import { findProfileConflicts, keepMine, keepTheirs, type ProfileConflictPair } from '../../db/profile-conflicts';
import { profileLabel, toProfile } from '../../db/profiles';
import { formatDateTime, plural } from '../../view/format';

/** The fields of a profile a person edits, as dotted paths to the values that differ (created_at aside). */
export function differingFields(a: Profile, b: Profile): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string) => {
    if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null && !Array.isArray(x) && !Array.isArray(y)) {
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
      for (const k of keys) walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    } else if (JSON.stringify(x) !== JSON.stringify(y)) out.push(path);
  };
  const { created_at: _a, ...restA } = a;
  const { created_at: _b, ...restB } = b;
  walk(restA, restB, '');
  return out;
}

function Version({ title, profile, testId }: { title: string; profile: Profile; testId: string }) {
  const { created_at, id: _id, version: _v, ...shown } = profile;
  return (
    <div className="profile-conflict__side" data-testid={testId}>
      <h4 className="settings-section__subtitle">{title}</h4>
      <p className="muted">
        {profileLabel(profile)} · saved {formatDateTime(created_at)}
      </p>
      <pre className="code">{JSON.stringify(shown, null, 2)}</pre>
    </div>
  );
}

/**
 * Versions of a profile saved differently here and on the host (two browsers each made the same version): both shown
 * side by side with what differs, and the person keeps one (db/profile-conflicts.ts says what each choice does).
 * Checked against the host whenever it connects and the profiles here change.
 */
export function ProfileConflicts() {
  const { db, client, connection } = useHost();
  const stamp = useLiveQuery(async () => (await db.profiles.toArray()).map((r) => `${r.id}@${r.version}@${r.created_at}`).join(','), [db]);
  const [found, setFound] = useState<{ pairs: ProfileConflictPair[]; host: SyncedProfile[] }>();
  const [done, setDone] = useState<string>();
  const [failed, setFailed] = useState<string>();

  useEffect(() => {
    if (connection !== 'open' || stamp === undefined) return;
    let live = true;
    client
      .request('profiles.list', {})
      .then(async ({ profiles }) => ({ pairs: await findProfileConflicts(db, profiles), host: profiles }))
      .then(
        (next) => live && setFound(next),
        () => undefined, // an older host keeps no profiles: nothing to compare
      );
    return () => {
      live = false;
    };
  }, [db, client, connection, stamp]);

  const choose = async (pair: ProfileConflictPair, keep: 'mine' | 'theirs') => {
    setFailed(undefined);
    try {
      if (keep === 'theirs') {
        await keepTheirs(db, pair);
        setDone(`${profileLabel(pair.mine)}: this browser now has the host’s version.`);
      } else {
        const saved = await keepMine(db, pair, found?.host.map((p) => p.profile) ?? []);
        setDone(`${profileLabel(pair.mine)}: yours is saved as ${profileLabel(saved)} and shared with every page; v${pair.mine.version} is now the host’s everywhere.`);
      }
    } catch (err) {
      setFailed(`Could not keep ${keep === 'mine' ? 'your' : 'their'} version: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const pairs = found?.pairs ?? [];
  return (
    <>
      {done && (
        <p className="notice" role="status" data-testid="profile-conflict-done">
          {done}
        </p>
      )}
      {failed && (
        <p className="notice notice--error" role="alert">
          {failed}
        </p>
      )}
      {pairs.length > 0 && (
        <div className="notice notice--error" role="region" aria-label="Profile conflicts" data-testid="profile-conflicts">
          <p>
            <strong>{plural(pairs.length, 'profile version')} saved differently in another browser or window.</strong> A version never changes, so both cannot be that version: choose which to keep.
          </p>
          {pairs.map((pair) => (
            <div key={`${pair.mine.id}@${pair.mine.version}`} className="profile-conflict" data-testid="profile-conflict" data-profile-id={pair.mine.id} data-version={pair.mine.version}>
              <p>
                <strong>{profileLabel(pair.mine)}</strong> differs in: <code data-testid="profile-conflict-fields">{differingFields(toProfile(pair.mine), pair.theirs.profile).join(', ')}</code>
              </p>
              <div className="profile-conflict__sides">
                <Version title="Yours (this browser)" profile={toProfile(pair.mine)} testId="profile-conflict-mine" />
                <Version title="Theirs (the Steward host’s)" profile={pair.theirs.profile} testId="profile-conflict-theirs" />
              </div>
              <div className="profile-conflict__actions">
                <button type="button" className="button" onClick={() => void choose(pair, 'mine')} data-testid="profile-keep-mine">
                  Keep mine (as a new version)
                </button>
                <button type="button" className="button" onClick={() => void choose(pair, 'theirs')} data-testid="profile-keep-theirs">
                  Keep theirs
                </button>
              </div>
            </div>
          ))}
        </div>
      )}
    </>
  );
}
