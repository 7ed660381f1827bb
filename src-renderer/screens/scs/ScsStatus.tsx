import { scsStatusLine, type ScsTimeline } from '../../db/derive-scs';
import { MONITOR_DECISION_WORDS } from '../../view/scs-labels';

/**
 * The run's SCS status in words ("On · model replay · SCS phase 1 · the finish was allowed") with why
 * SCS is on, the seed's compact form (`scs=on model=replay phase=1 decision=finish_allowed`) one
 * click away (the CLI prints it as is); "SCS off (…)" for an auto run that stayed off. Nothing for a
 * run that did not ask for SCS.
 */
export function ScsStatus({ timeline }: { timeline: ScsTimeline }) {
  const line = scsStatusLine(timeline);
  if (!line || !timeline.enabled) return null;
  const { enabled } = timeline;
  return (
    <div className={`scs-status ${timeline.active ? '' : 'scs-status--off'}`} data-testid="scs-status" data-active={timeline.active} data-mode={enabled.mode} data-decision={timeline.decision ?? ''}>
      <span className="scs-status__label">SCS</span>
      {timeline.active ? (
        <>
          <span className="scs-status__words" data-testid="scs-status-words">
            On · model {enabled.model} · SCS phase {timeline.phase} · {timeline.decision ? MONITOR_DECISION_WORDS[timeline.decision] : 'no monitor decision yet'}
          </span>
          <span className="scs-status__reason" data-testid="scs-status-reason">
            {enabled.reason}
          </span>
          <details className="scs-status__compact">
            <summary>Compact line</summary>
            <code className="scs-status__line" data-testid="scs-status-line">
              {line}
            </code>
          </details>
          {timeline.blocked && (
            <span className="scs-status__blocked" role="note">
              Blocked: {timeline.blocked.reasons.join('; ')}
            </span>
          )}
        </>
      ) : (
        <span className="scs-status__reason" data-testid="scs-status-line">
          {line}
        </span>
      )}
    </div>
  );
}
