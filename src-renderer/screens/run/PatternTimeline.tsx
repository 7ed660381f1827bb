import { useId, useMemo, useState } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { Chip, type Tone } from '../../components/Chip';
import { plural } from '../../view/format';
import { PatternMemberRuns } from './PatternMemberRuns';
import { judgmentTook, patternTimeline, type IterationOutcome, type IterationView, type JudgmentView } from './pattern-timeline';

const OUTCOME_LABELS = { approved: 'Approved', rejected: 'Rejected', escalated: 'Escalated', unjudged: 'Not judged' } satisfies Record<IterationOutcome, string>;
const OUTCOME_TONES = { approved: 'executed', rejected: 'failed', escalated: 'escalated', unjudged: 'neutral' } as const satisfies Record<IterationOutcome, Tone>;

/**
 * A pattern node's iterations, oldest first: each output, its judgments with their feedback and
 * evidence, and how the node ended; each iteration opens on what every member did in it.
 */
export function PatternTimeline({ events, invocationId }: { events: readonly RunEvent[]; invocationId: string }) {
  const timeline = useMemo(() => patternTimeline(events, invocationId), [events, invocationId]);
  const stepped = timeline.iterations.some((o) => o.step > 0) || (timeline.unrecorded?.step ?? 0) > 0;
  const unrecorded = timeline.unrecorded;
  const unrecordedBlock = unrecorded && (
    <div className="pattern-timeline__iteration" data-testid="pattern-unrecorded" data-step={unrecorded.step} data-iteration={unrecorded.iteration}>
      <p className="pattern-timeline__head">
        <strong>{placeOf(unrecorded, stepped)}</strong> {timeline.ended ? <Chip tone="failed">Did not finish</Chip> : <Chip tone="running">Members at work</Chip>}
      </p>
      <PatternMemberRuns members={unrecorded.members} events={events} invocationId={invocationId} ended={timeline.ended !== undefined} label={`Members of ${placeOf(unrecorded, stepped).toLowerCase()}`} />
    </div>
  );
  if (timeline.iterations.length === 0) {
    return (
      <div data-testid="pattern-timeline">
        <p className="muted">No iteration has finished yet.</p>
        {unrecordedBlock}
      </div>
    );
  }
  return (
    <div data-testid="pattern-timeline">
      <ol className="pattern-timeline" aria-label="Iterations">
        {timeline.iterations.map((it) => (
          <li key={`${it.step}.${it.iteration}`} className={`pattern-timeline__iteration pattern-timeline__iteration--${it.outcome}`} data-testid="pattern-iteration" data-step={it.step} data-iteration={it.iteration} data-outcome={it.outcome}>
            <p className="pattern-timeline__head">
              <strong>{placeOf(it, stepped)}</strong>{' '}
              {it.waiting ? <Chip tone="escalated">Waiting for your judgment</Chip> : <Chip tone={OUTCOME_TONES[it.outcome]}>{OUTCOME_LABELS[it.outcome]}</Chip>}
            </p>
            {it.addresses !== undefined && (
              <p className="pattern-timeline__addresses" data-testid="pattern-iteration-addresses">
                Addresses: “{it.addresses}”
              </p>
            )}
            <pre className="judgment-card__text" tabIndex={0} aria-label={`Output of iteration ${it.iteration}`} data-testid="pattern-iteration-output">
              {it.output}
            </pre>
            <p className="muted">
              Member outputs:{' '}
              {it.outputs.map((o) => (
                <code key={o.id} className="tag" title={o.member_id}>
                  {o.id}
                </code>
              ))}
            </p>
            <IterationMembers iteration={it} events={events} invocationId={invocationId} ended={timeline.ended !== undefined} place={placeOf(it, stepped)} />
            {it.judgments.length > 0 && (
              <ul className="pattern-timeline__judgments" aria-label={`Judgments of iteration ${it.iteration}`}>
                {it.judgments.map((j) => (
                  <JudgmentLine key={j.id} judgment={j} />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {unrecordedBlock}
      {timeline.ended && (
        <p data-testid="pattern-ended" data-status={timeline.ended.status}>
          The pattern ended <strong>{timeline.ended.status}</strong> after {timeline.ended.iterations} iteration(s){timeline.ended.approved ? '' : ', its result not approved'}
          {timeline.ended.reason ? `: ${timeline.ended.reason}` : '.'}
        </p>
      )}
    </div>
  );
}

function placeOf(it: Pick<IterationView, 'step' | 'iteration'>, stepped: boolean): string {
  return stepped ? `Step ${it.step + 1}, iteration ${it.iteration}` : `Iteration ${it.iteration}`;
}

/** The iteration's member runs, behind a disclosure button (closed at first: a long run stays short). */
function IterationMembers({ iteration: it, events, invocationId, ended, place }: { iteration: IterationView; events: readonly RunEvent[]; invocationId: string; ended: boolean; place: string }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  if (it.members.length === 0) return null;
  return (
    <>
      <button type="button" className="link-button pattern-timeline__members-toggle" aria-expanded={open} aria-controls={panel} onClick={() => setOpen((o) => !o)} data-testid="pattern-members-toggle">
        {open ? 'Hide' : 'Show'} what the members did ({plural(it.members.length, 'member run')})
      </button>
      {open && (
        <div id={panel}>
          <PatternMemberRuns members={it.members} events={events} invocationId={invocationId} ended={ended} label={`Members of ${place.toLowerCase()}`} />
        </div>
      )}
    </>
  );
}

function JudgmentLine({ judgment: j }: { judgment: JudgmentView }) {
  const took = judgmentTook(j);
  return (
    <li className="pattern-timeline__judgment" data-testid="pattern-judgment" data-verdict={j.verdict ?? 'unusable'} data-caller={j.caller_kind}>
      <span>
        {j.caller}
        {j.attempt > 1 ? ' (asked again)' : ''}:{' '}
      </span>
      {j.verdict ? <strong>{j.verdict}</strong> : <strong>could not be used</strong>}
      {j.feedback !== undefined && <span data-testid="pattern-judgment-feedback"> · feedback “{j.feedback}”</span>}
      {j.reason !== undefined && <span> · “{j.reason}”</span>}
      {j.problem !== undefined && <span className="muted"> · {j.problem}</span>}
      {j.evidence.length > 0 && (
        <span data-testid="pattern-judgment-evidence">
          {' '}
          · cites{' '}
          {j.evidence.map((e) => (
            <code key={e} className="tag">
              {e}
            </code>
          ))}
        </span>
      )}
      {took && <span className="muted"> · {took}</span>}
      <span className="muted" title={j.id}>
        {' '}
        · <code>{j.id}</code>
      </span>
    </li>
  );
}
