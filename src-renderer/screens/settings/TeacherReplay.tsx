import { useCallback, useEffect, useState } from 'react';
import type { Profile } from '@shared/contracts/profiles';
import type { JudgmentFlipView, TeacherReplayStatus, VerdictFlipView } from '@shared/contracts/profile-replay';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { formatDateTime, plural } from '../../view/format';
import { FLIP_TAGS, JUDGE_WORDS, JUDGMENT_FLIP_TAGS, teacherReplayHeadline } from './teacher-replay-words';

/** How often a running replay's progress is read (the host answers from memory). */
const POLL_MS = 500;

export type TeacherReplay = { state: 'starting' } | { state: 'refused'; text: string } | { state: 'status'; status: TeacherReplayStatus };

/**
 * "Replay past verdicts" on a teacher profile (issue 31): the host puts every teacher verdict its
 * history recorded to the profile's model (`steward eval verdicts --teacher`; no tool is executed),
 * one case at a time in the background, and the verdicts that flip are listed in words, a past stop
 * of a protected effect that would now be accepted first. Its progress is read until it ends.
 */
export function useTeacherReplay(profile: () => Profile) {
  const { client, connection } = useHost();
  const [replay, setReplay] = useState<TeacherReplay>();
  const read = useCallback(
    () =>
      client.request('verdicts.replay_teacher.status', {}).then(
        (status) => setReplay({ state: 'status', status }),
        (err: unknown) => setReplay({ state: 'refused', text: `Could not read the replay: ${err instanceof Error ? err.message : String(err)}` }),
      ),
    [client],
  );
  const running = replay?.state === 'status' && replay.status.state === 'running';
  // A replay of this profile still running after a reload (or in another window) is shown again, with its progress.
  const open = connection === 'open';
  useEffect(() => {
    if (!open) return;
    let live = true;
    const id = profile().id;
    client.request('verdicts.replay_teacher.status', {}).then(
      (status) => {
        if (live && status.state === 'running' && status.profile_id === id) setReplay((shown) => shown ?? { state: 'status', status });
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
    // Once per connection: `profile` is the caller's getter of the same profile.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, open]);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void read(), POLL_MS);
    return () => clearInterval(timer);
  }, [running, read]);
  const start = () => {
    setReplay({ state: 'starting' });
    client
      .request('verdicts.replay_teacher.start', { profile: profile() })
      .then((started) => (started.started ? read() : setReplay({ state: 'refused', text: started.message })))
      .catch((err: unknown) => setReplay({ state: 'refused', text: `The past verdicts could not be replayed: ${err instanceof Error ? err.message : String(err)}` }));
  };
  const cancel = () => {
    void client.request('verdicts.replay_teacher.cancel', {}).then(() => read());
  };
  return { replay, start, cancel, canStart: connection === 'open' && replay?.state !== 'starting' && !running, close: () => setReplay(undefined) };
}

function FlipItem({ flip }: { flip: VerdictFlipView }) {
  const byPerson = flip.decided_by === 'person';
  return (
    <li data-testid="teacher-replay-flip" data-kind={flip.kind} data-protected={flip.protected} data-protected-catch-lost={flip.protected_catch_lost} data-decided-by={flip.decided_by ?? 'teacher'}>
      <span className={flip.protected_catch_lost ? 'tag tag--bad' : 'tag'} title={flip.protected_catch_lost ? `A protected effect ${byPerson ? 'a person rejected' : 'the recorded teacher stopped'}, which this model would accept` : undefined}>
        {flip.protected_catch_lost ? 'protected effect now accepted' : FLIP_TAGS[flip.kind]}
      </span>{' '}
      {byPerson && (
        <>
          <span className="tag" data-testid="teacher-replay-flip-person" title="A person answered this round (the teacher's escalation or the tool's confirmation): their answer is what ran or did not, so it is the verdict compared">
            decided by a person
          </span>{' '}
        </>
      )}
      <a href={routeHref({ name: 'run', runId: flip.run_id, tab: 'rounds' })}>
        {flip.spec_name} · round {flip.round}
      </a>{' '}
      <span className="muted">· {formatDateTime(flip.started_at)}</span>
      <div className="profile-replay__words" data-testid="teacher-replay-flip-words">
        {flip.words}
      </div>
      <details className="profile-replay__detail">
        <summary>Raw verdicts</summary>
        <pre data-testid="teacher-replay-flip-raw">{JSON.stringify({ kind: flip.kind, decided_by: flip.decided_by ?? 'teacher', past: flip.past, now: flip.now, problem: flip.problem, person: flip.person, run_id: flip.run_id, invocation_id: flip.invocation_id }, null, 2)}</pre>
      </details>
    </li>
  );
}

function JudgmentFlipItem({ flip }: { flip: JudgmentFlipView }) {
  return (
    <li data-testid="teacher-replay-judgment-flip" data-kind={flip.kind} data-judge={flip.judge}>
      <span className={flip.kind === 'catch_lost' ? 'tag tag--warn' : 'tag'}>{JUDGMENT_FLIP_TAGS[flip.kind]}</span>{' '}
      <span className="tag" title="Who judged the pattern's output then">
        {JUDGE_WORDS[flip.judge]}
      </span>{' '}
      <a href={routeHref({ name: 'run', runId: flip.run_id, tab: 'nodes', node: flip.invocation_id })}>
        {flip.spec_name} · {flip.invocation_id} · step {flip.step}, iteration {flip.iteration}
      </a>{' '}
      <span className="muted">· {formatDateTime(flip.started_at)}</span>
      <div className="profile-replay__words" data-testid="teacher-replay-judgment-words">
        {flip.words}
      </div>
      <details className="profile-replay__detail">
        <summary>Raw judgments</summary>
        <pre>{JSON.stringify({ kind: flip.kind, judge: flip.judge, past: flip.past, now: flip.now, problem: flip.problem, run_id: flip.run_id, invocation_id: flip.invocation_id, judgment_id: flip.judgment_id }, null, 2)}</pre>
      </details>
    </li>
  );
}

export function TeacherReplayView({ replay, onCancel, onClose }: { replay: TeacherReplay; onCancel: () => void; onClose: () => void }) {
  if (replay.state === 'starting') {
    return (
      <p className="muted profile-replay" role="status" aria-busy="true" data-testid="teacher-replay-running">
        Reading the recorded teacher verdicts…
      </p>
    );
  }
  if (replay.state === 'refused') {
    return (
      <div className="profile-replay" role="alert" data-testid="teacher-replay-failed">
        <p className="error">{replay.text}</p>
        <button type="button" className="link-button" onClick={onClose} data-testid="profile-replay-close">
          Close
        </button>
      </div>
    );
  }
  const { status } = replay;
  if (status.state === 'running' || status.state === 'idle') {
    return (
      <div className="profile-replay" role="status" aria-busy="true" data-testid="teacher-replay-running">
        <p className="muted">
          Putting past verdict {Math.min(status.done + 1, status.total)} of {status.total} to {status.teacher ?? 'the candidate'}… (no tool is executed)
        </p>
        <progress max={Math.max(status.total, 1)} value={status.done} aria-label="Past verdicts replayed" />{' '}
        <button type="button" className="link-button" onClick={onCancel} data-testid="teacher-replay-cancel">
          Cancel
        </button>
      </div>
    );
  }
  const { result } = status;
  if (!result) return null;
  const headline = teacherReplayHeadline(result, status.state);
  const hidden = result.flipped - result.flips.length;
  const { judgments } = result;
  return (
    <div className="profile-replay" role="status" data-testid="profile-replay-result" data-tone={headline.tone} data-state={status.state}>
      <p className={headline.tone === 'bad' ? 'profile-replay__headline profile-replay__headline--bad' : 'profile-replay__headline'} data-testid="profile-replay-headline">
        {headline.text}
      </p>
      {status.message !== undefined && (
        <p className={status.state === 'failed' ? 'error' : 'muted'} data-testid="teacher-replay-message">
          {status.message}
        </p>
      )}
      {result.flips.length > 0 && (
        <ol className="plain-list profile-replay__list" data-testid="teacher-replay-flips">
          {result.flips.map((f) => (
            <FlipItem key={`${f.run_id}:${f.invocation_id ?? ''}:${f.round}`} flip={f} />
          ))}
          {hidden > 0 && <li className="muted">and {plural(hidden, 'more flip')}</li>}
        </ol>
      )}
      {judgments && judgments.flips.length > 0 && (
        <>
          <h4 className="profile-replay__subheading">Pattern judgments that flip</h4>
          <ol className="plain-list profile-replay__list" data-testid="teacher-replay-judgment-flips">
            {judgments.flips.map((f) => (
              <JudgmentFlipItem key={`${f.run_id}:${f.judgment_id}`} flip={f} />
            ))}
            {judgments.flipped > judgments.flips.length && <li className="muted">and {plural(judgments.flipped - judgments.flips.length, 'more flip')}</li>}
          </ol>
        </>
      )}
      {judgments && judgments.not_asked > 0 && (
        <p className="muted" data-testid="teacher-replay-judgments-not-asked">
          {plural(judgments.not_asked, 'pattern judgment')} {judgments.not_asked === 1 ? 'was' : 'were'} recorded before Steward kept the judge’s prompt, so {judgments.not_asked === 1 ? 'it was' : 'they were'} not asked.
        </p>
      )}
      <button type="button" className="link-button" onClick={onClose} data-testid="profile-replay-close">
        Close
      </button>
    </div>
  );
}
