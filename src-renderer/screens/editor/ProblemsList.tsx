import { formatGraphProblem, type GraphProblem } from '@shared/workflow/validate-graph';
import type { CheckState } from './use-host-check';

const STATE_WORDS: Record<Exclude<CheckState, 'checked'>, string> = {
  checking: 'checking with the host…',
  offline: 'not checked by the host (not connected, or it could not check)',
};

/**
 * Every problem of the draft in words; one on a node selects that node. "No problems" only once the
 * host has checked this very draft (`state`), as `steward validate` would.
 */
export function ProblemsList({ problems, onSelect, state = 'checked' }: { problems: readonly GraphProblem[]; onSelect: (nodeId: string) => void; state?: CheckState }) {
  if (problems.length === 0)
    return (
      <p className={`wf-problems wf-problems--none${state === 'checked' ? '' : ' muted'}`} data-testid="problems-list" data-count={0} data-state={state} role="status">
        {state === 'checked' ? 'No problems: the workflow can run.' : `No problems found yet: ${STATE_WORDS[state]}`}
      </p>
    );
  return (
    <section className="wf-problems" data-testid="problems-list" data-count={problems.length} data-state={state} aria-label="Problems">
      <h2 className="wf-problems__title">
        {problems.length} problem{problems.length === 1 ? '' : 's'}
        {state !== 'checked' && (
          <span className="muted wf-problems__state" data-testid="problems-checking">
            {' '}
            · {STATE_WORDS[state]}
          </span>
        )}
      </h2>
      <ul>
        {problems.map((p, i) => (
          <li key={i} data-code={p.code}>
            {p.node !== undefined ? (
              <button type="button" className="wf-problems__link" onClick={() => p.node !== undefined && onSelect(p.node)}>
                {formatGraphProblem(p)}
              </button>
            ) : (
              formatGraphProblem(p)
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A few problems in words, in the inspector (nothing when there are none). */
export function ProblemLines({ problems, testId }: { problems: readonly string[]; testId: string }) {
  if (problems.length === 0) return null;
  return (
    <ul className="wf-inspector__problems" data-testid={testId}>
      {problems.map((m, i) => (
        <li key={i}>{m}</li>
      ))}
    </ul>
  );
}
