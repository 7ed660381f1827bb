import type { RecordedLimits } from '@shared/contracts/events';
import { OUTPUT_TOKEN_BOUNDS, PROPOSAL_OUTPUT_TOKENS } from '@shared/contracts/output-bound';
import { count } from '../../view/format';

/** The runtime limits a run recorded on its start (the Runtime group's round limit, decision timeout and reply bound), in words. */
export function recordedLimitsLines(limits: RecordedLimits): { label: string; text: string; key: string }[] {
  return [
    { key: 'max_rounds', label: 'Round limit', text: `${limits.max_rounds} rounds` },
    {
      key: 'decision_timeout_ms',
      label: 'Decision timeout',
      text: limits.decision_timeout_ms === undefined ? 'none (each model’s own call timeout only)' : `${limits.decision_timeout_ms / 1000} s per decision or review`,
    },
    {
      key: 'max_output_tokens',
      label: 'Model reply bound',
      text: limits.max_output_tokens === undefined ? `Steward’s own (${count(PROPOSAL_OUTPUT_TOKENS)} tokens per proposal, ${count(OUTPUT_TOKEN_BOUNDS.teacher)} per review)` : `${count(limits.max_output_tokens)} output tokens per reply`,
    },
    { key: 'max_consecutive_failures', label: 'Failures', text: `the run fails after ${limits.max_consecutive_failures} failed rounds in a row` },
  ];
}

export function RecordedLimitsView({ limits }: { limits: RecordedLimits | undefined }) {
  return (
    <div>
      <h3 className="run-setup__heading">Runtime limits</h3>
      {limits === undefined ? (
        <p className="muted">This run recorded no runtime limits (it was started by an older Steward).</p>
      ) : (
        <ul className="plain-list" data-testid="run-limits">
          {recordedLimitsLines(limits).map((line) => (
            <li key={line.key} data-limit={line.key}>
              <span className="muted">{line.label}:</span> {line.text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
