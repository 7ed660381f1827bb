import { ROUTE_CHOOSER_LABELS, type TakenRoute } from '@shared/contracts/routes';

/** "Took route support · chosen by the student: a log-in problem" — which route an agent's reroute took and who chose it (issue 29). */
export function TakenRouteLine({ route }: { route: TakenRoute }) {
  return (
    <p className="taken-route" data-testid="taken-route" data-route={route.name} data-chosen-by={route.chosen_by}>
      Took route <strong>{route.name}</strong> · chosen by {ROUTE_CHOOSER_LABELS[route.chosen_by]}
      {route.reason.trim() !== '' && <span className="muted">: {route.reason}</span>}
    </p>
  );
}

/** The route as a tag on the node's row: "→ support". */
export function TakenRouteTag({ route }: { route: TakenRoute }) {
  return (
    <span className="tag tag--route" data-testid="taken-route-tag" title={`Took route ${route.name}, chosen by ${ROUTE_CHOOSER_LABELS[route.chosen_by]}`}>
      → {route.name}
    </span>
  );
}
