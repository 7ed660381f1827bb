import { useState } from 'react';
import type { Profile } from '@shared/contracts/profiles';
import type { ProfileReplayResult } from '@shared/contracts/profile-replay';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { formatDateTime, plural } from '../../view/format';
import { replayHeadline } from './profile-replay-words';

type Replay = { state: 'running' } | { state: 'done'; result: ProfileReplayResult } | { state: 'failed'; text: string };

/**
 * "Replay past verdicts" on a supervision profile (issue 31): the host puts the profile's review
 * rules to the rounds its history recorded, calling no model (`steward eval verdicts --profile`),
 * and the rounds the teacher reviewed then that these rules would no longer send to it are listed in
 * words, the teacher's catches of a protected effect first.
 */
export function useProfileReplay(profile: () => Profile) {
  const { client, connection } = useHost();
  const [replay, setReplay] = useState<Replay>();
  const start = () => {
    setReplay({ state: 'running' });
    client
      .request('verdicts.replay_profile', { profile: profile() })
      .then((result) => setReplay({ state: 'done', result }))
      .catch((err: unknown) => setReplay({ state: 'failed', text: err instanceof Error ? err.message : String(err) }));
  };
  return { replay, start, canStart: connection === 'open' && replay?.state !== 'running', close: () => setReplay(undefined) };
}

const SUPERVISION_TITLE = 'Which rounds the teacher reviewed would these review rules no longer send to it? No model is called.';
/** On a teacher profile (TeacherReplay.tsx) the question is the model's. */
export const TEACHER_REPLAY_TITLE = 'Would this model still catch what the recorded teacher caught? Every recorded teacher verdict is put to it; no tool is executed.';

export function ProfileReplayButton({ name, disabled, onClick, title = SUPERVISION_TITLE }: { name: string; disabled: boolean; onClick: () => void; title?: string }) {
  return (
    <button
      type="button"
      className="button button--small"
      disabled={disabled}
      onClick={onClick}
      aria-label={`Replay past verdicts under ${name}`}
      title={title}
      data-testid="profile-replay"
    >
      Replay past verdicts
    </button>
  );
}

export function ProfileReplayResultView({ replay, onClose }: { replay: Replay; onClose: () => void }) {
  if (replay.state === 'running') {
    return (
      <p className="muted profile-replay" role="status" aria-busy="true" data-testid="profile-replay-running">
        Checking the recorded rounds against these review rules… (no model is called)
      </p>
    );
  }
  if (replay.state === 'failed') {
    return (
      <p className="error profile-replay" role="alert" data-testid="profile-replay-failed">
        The past verdicts could not be replayed: {replay.text}
      </p>
    );
  }
  const { result } = replay;
  const headline = replayHeadline(result);
  const hidden = result.unreviewed - result.no_longer_reviewed.length;
  return (
    <div className="profile-replay" role="status" data-testid="profile-replay-result" data-tone={headline.tone}>
      <p className={headline.tone === 'bad' ? 'profile-replay__headline profile-replay__headline--bad' : 'profile-replay__headline'} data-testid="profile-replay-headline">
        {headline.text}
      </p>
      {result.no_longer_reviewed.length > 0 && (
        <ol className="plain-list profile-replay__list" data-testid="profile-replay-rounds">
          {result.no_longer_reviewed.map((r) => (
            <li key={`${r.run_id}:${r.invocation_id ?? ''}:${r.round}`} data-testid="profile-replay-round" data-catch-lost={r.catch_lost} data-protected={r.protected}>
              {r.catch_lost && (
                <span className="tag tag--bad" title={r.protected ? 'A protected effect the teacher stopped' : 'A call the teacher stopped'}>
                  {r.protected ? 'protected effect stopped' : 'stopped'}
                </span>
              )}{' '}
              <a href={routeHref({ name: 'run', runId: r.run_id, tab: 'rounds' })}>
                {r.spec_name} · round {r.round}
              </a>{' '}
              <span className="muted">· {formatDateTime(r.started_at)}</span>
              <div className="profile-replay__words">{r.words}</div>
            </li>
          ))}
          {hidden > 0 && <li className="muted">and {plural(hidden, 'more round')}</li>}
        </ol>
      )}
      <button type="button" className="link-button" onClick={onClose} data-testid="profile-replay-close">
        Close
      </button>
    </div>
  );
}
