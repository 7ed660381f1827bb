import { useState } from 'react';
import type { AgentRoute } from '@shared/contracts/routes';
import { useHost } from '../../app/HostProvider';
import { shownValue, typeOver, type TypedOverStored } from '../../components/typed-over-stored';
import type { WorkflowRow } from '../../db/db';
import { routesOf, setRoutes } from '../../db/workflow-routes';
import { RouteListEditor, routesProblem } from '../editor/RouteListEditor';

/**
 * The agent's routes on the Supervision & Learning panel (issue 29): where a reroute may send the
 * task. They live in the workflow's own document; a valid change is stored at once and the next run
 * offers them. What is typed stays on screen until it is valid (a name half typed, a duplicate).
 */
export function RoutesSection({ row }: { row: WorkflowRow }) {
  const { db } = useHost();
  const stored = routesOf(row.doc);
  const storedKey = JSON.stringify(stored);
  const [typed, setTyped] = useState<TypedOverStored<AgentRoute[]>>();
  const [error, setError] = useState<string>();
  const routes = shownValue(typed, storedKey, stored);

  const change = (next: AgentRoute[]) => {
    const valid = routesProblem(next) === undefined;
    // Each valid change is written at once; the key is what its write stores, as read back.
    setTyped(typeOver(typed, storedKey, next, valid ? JSON.stringify(routesOf({ routes: next })) : undefined));
    if (!valid) return;
    setRoutes(db, row.id, next).then(
      () => setError(undefined),
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  };

  return (
    <div className="panel__section" data-testid="routes-section">
      <h3 className="panel__heading">Routes</h3>
      <RouteListEditor routes={routes} onChange={change} testId="panel-routes" hideLegend />
      <p className="form-row__hint">Stored in this workflow’s document; the next run offers them to the student and the teacher.</p>
      {error && (
        <p className="error" role="alert" data-testid="routes-error">
          {error}
        </p>
      )}
    </div>
  );
}
