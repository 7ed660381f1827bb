import { useMemo } from 'react';
import { RUN_STATUS_LABELS, type RunEvent } from '@shared/contracts/events';
import { childRunsOf } from '@shared/workflow/child-runs';
import { routeHref } from '../../app/routing';
import { MessageText } from './MessageText';

const BY_WORDS = { teacher: 'Teacher', person: 'Person', supervisor: 'Supervisor', judge: 'Judge' } as const;

/**
 * The stored workflows a node ran (a workflow node, or an agent's workflow tool; issue 29): each child
 * run with its outcome, a link to it, and the interventions inside it — under the node in the parent's report.
 */
export function ChildRuns({ events, invocationId }: { events: readonly RunEvent[]; invocationId: string }) {
  const children = useMemo(() => childRunsOf(events).filter((c) => c.invocation_id === invocationId), [events, invocationId]);
  if (children.length === 0) return null;
  return (
    <div className="step">
      <div className="step__label">{children.length === 1 ? 'Workflow run' : 'Workflow runs'}</div>
      <div className="step__body" data-testid="node-child-runs">
        {children.map((child) => (
          <div key={child.child_run_id} className="child-run" data-testid="node-child-run" data-child-run-id={child.child_run_id}>
            <p>
              {child.tool !== undefined ? 'Called as a tool: ' : 'Ran '}
              <strong>{child.workflow_name}</strong> ·{' '}
              <span className="tag" data-testid="node-child-run-status">
                {child.status === undefined ? 'Running' : RUN_STATUS_LABELS[child.status]}
              </span>{' '}
              · <a href={routeHref({ name: 'run', runId: child.child_run_id, tab: 'nodes' })}>Open its run</a>
            </p>
            {child.message !== undefined && child.status !== 'completed' && <MessageText text={child.message} />}
            {child.interventions.length === 0 ? (
              <p className="muted">No interventions inside it.</p>
            ) : (
              <ul className="plain-list" aria-label={`Interventions inside ${child.workflow_name}`} data-testid="node-child-interventions">
                {child.interventions.map((i, n) => (
                  <li key={n}>
                    <span className="tag">{BY_WORDS[i.by]}</span> <code>{i.node}</code>: {i.text}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ))}
      </div>
    </div>
  );
}
