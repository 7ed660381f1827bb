import { useMemo } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { Chip, type Tone } from '../../components/Chip';
import { judgmentTook, patternTimeline, type IterationOutcome, type JudgmentView } from './pattern-timeline';

const OUTCOME_LABELS = { approved: 'Approved', rejected: 'Rejected', escalated: 'Escalated', unjudged: 'Not judged' } satisfies Record<IterationOutcome, string>;
const OUTCOME_TONES = { approved: 'executed', rejected: 'failed', escalated: 'escalated', unjudged: 'neutral' } as const satisfies Record<IterationOutcome, Tone>;

/** A pattern node's iterations, oldest first: each output, its judgments with their feedback and evidence, and how the node ended. */
export function PatternTimeline({ events, invocationId }: { events: readonly RunEvent[]; invocationId: string }) {
  const timeline = useMemo(() => patternTimeline(events, invocationId), [events, invocationId]);
  if (timeline.iterations.length === 0) return <p className="muted">No iteration has finished yet.</p>;
  return (
    <div data-testid="pattern-timeline">
      <ol className="pattern-timeline" aria-label="Iterations">
        {timeline.iterations.map((it) => (
          <li key={`${it.step}.${it.iteration}`} className={`pattern-timeline__iteration pattern-timeline__iteration--${it.outcome}`} data-testid="pattern-iteration" data-step={it.step} data-iteration={it.iteration} data-outcome={it.outcome}>
            <p className="pattern-timeline__head">
              <strong>
                {timeline.iterations.some((o) => o.step > 0) ? `Step ${it.step + 1}, iteration ${it.iteration}` : `Iteration ${it.iteration}`}
              </strong>{' '}
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
      {timeline.ended && (
        <p data-testid="pattern-ended" data-status={timeline.ended.status}>
          The pattern ended <strong>{timeline.ended.status}</strong> after {timeline.ended.iterations} iteration(s){timeline.ended.approved ? '' : ', its result not approved'}
          {timeline.ended.reason ? `: ${timeline.ended.reason}` : '.'}
        </p>
      )}
    </div>
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
