import type { RunEvent } from '@shared/contracts/events';
import { useMemo } from 'react';
import { percentDone, toolsInFlight, type ToolInFlight } from './tool-progress';

/**
 * A bar for each tool call in flight that reported progress: determinate when the server said out of
 * how much, indeterminate otherwise (with its message). Gone once the call ends.
 */
export function ToolProgressBars({ events }: { events: readonly RunEvent[] }) {
  const calls = useMemo(() => toolsInFlight(events), [events]);
  if (calls.length === 0) return null;
  return (
    <div className="tool-progress-list" data-testid="tool-progress-list">
      {calls.map((call) => (
        <ToolProgressBar key={call.idempotency_key} call={call} />
      ))}
    </div>
  );
}

export function ToolProgressBar({ call }: { call: ToolInFlight }) {
  const percent = percentDone(call);
  const label = `${call.server}/${call.tool}`;
  const said = percent === undefined ? `${call.progress} done` : `${call.progress} of ${call.total} (${percent}%)`;
  const text = call.message ? `${said} — ${call.message}` : said;
  return (
    <div className="tool-progress" data-testid="tool-progress">
      <div className="tool-progress__label">
        <span className="tool-progress__tool">{label}</span> <span className="muted">{text}</span>
      </div>
      {/* A div with the ARIA roles rather than <progress>: the indeterminate state and its text are announced alike everywhere. */}
      <div
        className={`tool-progress__track${percent === undefined ? ' tool-progress__track--indeterminate' : ''}`}
        role="progressbar"
        aria-label={`${label} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        {...(percent === undefined ? {} : { 'aria-valuenow': percent })}
        aria-valuetext={text}
        tabIndex={0}
        data-testid="tool-progress-bar"
      >
        <div className="tool-progress__fill" style={percent === undefined ? undefined : { width: `${percent}%` }} />
      </div>
    </div>
  );
}
