import { formatGraphProblem, type GraphProblem } from '@shared/workflow/validate-graph';

/** Every problem of the draft in words; one on a node selects that node. */
export function ProblemsList({ problems, onSelect }: { problems: readonly GraphProblem[]; onSelect: (nodeId: string) => void }) {
  if (problems.length === 0)
    return (
      <p className="wf-problems wf-problems--none" data-testid="problems-list" data-count={0}>
        No problems: the workflow can run.
      </p>
    );
  return (
    <section className="wf-problems" data-testid="problems-list" data-count={problems.length} aria-label="Problems">
      <h2 className="wf-problems__title">
        {problems.length} problem{problems.length === 1 ? '' : 's'}
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
