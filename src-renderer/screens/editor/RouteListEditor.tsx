import { AgentRoutes, MAX_ROUTES, type AgentRoute } from '@shared/contracts/routes';
import { uniqueId } from './graph-edit';

/** What is wrong with the routes as typed, in words (the contract's own messages), or undefined. */
export function routesProblem(routes: readonly AgentRoute[]): string | undefined {
  const parsed = AgentRoutes.safeParse(routes);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => (typeof i.path[0] === 'number' ? `route ${i.path[0] + 1}: ${i.message}` : i.message)).join('; ');
}

/**
 * An agent node's routes (issue 29): the named ways a `reroute` may send its task on. Each is an
 * output port of the node in the graph (the taken one carries the agent's reason); renaming one
 * keeps its edges (graph-edit.ts replaceNode matches ports by position).
 */
export function RouteListEditor({
  routes,
  onChange,
  testId,
  disabled = false,
  hideLegend = false,
}: {
  routes: readonly AgentRoute[];
  onChange: (next: AgentRoute[], group?: string) => void;
  testId: string;
  disabled?: boolean;
  /** The section around it already says "Routes" (the panel's heading). */
  hideLegend?: boolean;
}) {
  const set = (i: number, patch: Partial<AgentRoute>, group?: string) => onChange(routes.map((r, j) => (j === i ? { ...r, ...patch } : r)), group);
  const add = () => onChange([...routes, { name: uniqueId('route', routes.map((r) => r.name)).replace(/-/g, '_') }]);
  const problem = routesProblem(routes);
  return (
    <fieldset className="wf-ports" data-testid={testId}>
      <legend className={hideLegend ? 'visually-hidden' : 'wf-ports__title'}>Routes</legend>
      <p className="form-row__hint">
        Where this agent may send the task instead of answering (a reroute names one). Each route is an output port: only the route taken sends, and what hangs on the others is skipped. With no routes, a reroute stops the agent.
      </p>
      {routes.length === 0 && <p className="muted">No routes: a reroute stops the agent.</p>}
      {routes.map((r, i) => (
        <div key={i} className="wf-ports__row" data-testid={`${testId}-${i}`}>
          <input
            className="input input--small"
            aria-label={`Route ${i + 1} name`}
            value={r.name}
            disabled={disabled}
            onChange={(e) => set(i, { name: e.target.value }, `${testId}-${i}-name`)}
            data-testid={`${testId}-${i}-name`}
          />
          <input
            className="input input--small"
            aria-label={`Route ${i + 1}: when to take it`}
            placeholder="when to take it"
            value={r.description ?? ''}
            disabled={disabled}
            onChange={(e) => {
              const description = e.target.value;
              if (description === '') {
                const { description: _gone, ...rest } = r;
                onChange(routes.map((x, j) => (j === i ? rest : x)), `${testId}-${i}-description`);
              } else set(i, { description }, `${testId}-${i}-description`);
            }}
            data-testid={`${testId}-${i}-description`}
          />
          <button type="button" className="button button--small" aria-label={`Remove route ${r.name || i + 1}`} disabled={disabled} onClick={() => onChange(routes.filter((_, j) => j !== i))} data-testid={`${testId}-${i}-remove`}>
            ✕
          </button>
        </div>
      ))}
      {problem !== undefined && (
        <p className="error" role="alert" data-testid={`${testId}-problem`}>
          {problem}
        </p>
      )}
      <button type="button" className="button button--small" onClick={add} disabled={disabled || routes.length >= MAX_ROUTES} data-testid={`${testId}-add`}>
        + Add route
      </button>
    </fieldset>
  );
}
