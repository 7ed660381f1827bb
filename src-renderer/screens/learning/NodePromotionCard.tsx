import { useEffect, useMemo, useState } from 'react';
import { PHASE_LABELS, type LifecyclePhase } from '@shared/contracts/spec';
import type { HostResult } from '@shared/contracts/host-api';
import { suggestPhase } from '@shared/policy/promotion';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { useHistoryAnswer } from '../../host/use-history-answer';
import { applyNodeDeploymentPhase, nodeDeploymentOf } from '../../db/node-deployment';
import { Chip } from '../../components/Chip';
import { Spinner } from '../../components/Icons';
import { CHART_POINTS, Metrics, PromotionChart, PromotionProblem } from './PromotionCard';
import { PromotionResult, PromotionSuggestion } from './PromotionSuggestion';
import { TrialPanel } from './TrialPanel';

type Held = { graph: HostResult<'workflows.get'>['workflow'] | null; kept: HostResult<'profiles.list'> };

/**
 * Promotion for one agent node of a workflow graph (issue 29): its own agreement, block rate and
 * protected-effect errors, from the rounds of that node only; a suggestion; and "Apply", which
 * moves that node (and no other) to the phase as a new version of its deployment profile.
 */
export function NodePromotionCard({ workflowId, node }: { workflowId: string; node: string }) {
  const { db, client, connection } = useHost();
  const [held, setHeld] = useState<Held>();
  const [loadError, setLoadError] = useState<string>();
  const [reloads, setReloads] = useState(0);
  const [applying, setApplying] = useState(false);
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string }>();

  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    Promise.all([client.request('workflows.get', { id: workflowId }).then((r) => r.workflow, () => null), client.request('profiles.list', {})]).then(
      ([graph, kept]) => {
        if (live) setHeld({ graph, kept });
      },
      (err: unknown) => {
        if (live) setLoadError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => {
      live = false;
    };
  }, [client, connection, workflowId, reloads]);

  const agent = held?.graph?.nodes.find((n) => n.id === node && n.kind === 'agent');
  const agentNode = agent?.kind === 'agent' ? agent : undefined;
  const deployment = held && agentNode ? nodeDeploymentOf(held.kept, workflowId, node, agentNode.supervision.phase) : undefined;
  const window = deployment?.deployment.promotion.window ?? 50;
  const asked = useHistoryAnswer(JSON.stringify([workflowId, node, window]), () => client.request('promotion.figures', { workflow_id: workflowId, node, window, points: CHART_POINTS }));
  const figures = asked.value;
  const suggestion = useMemo(() => (figures && deployment ? suggestPhase(deployment.deployment.phase, figures.metrics, deployment.deployment.promotion) : undefined), [figures, deployment]);

  const workflowName = held?.graph?.name ?? workflowId;
  const nodeLabel = agentNode?.label ?? agentNode?.name ?? node;
  const id = `promo-${workflowId}-${node}`;

  const apply = async (to: LifecyclePhase) => {
    if (!agentNode) return;
    setApplying(true);
    setResult(undefined);
    try {
      const saved = await applyNodeDeploymentPhase(client, db, { workflowId, workflowName, nodeId: node, nodeLabel, documentPhase: agentNode.supervision.phase }, to);
      setResult({ tone: 'ok', text: `Applied: the ${nodeLabel} node of ${workflowName} now runs in phase ${to} (${PHASE_LABELS[to]}), saved as ${saved.name} · v${saved.version}. Its next run records this version; the workflow’s other nodes keep theirs.` });
      setReloads((n) => n + 1);
    } catch (err) {
      setResult({ tone: 'error', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setApplying(false);
    }
  };

  return (
    <section className="card promotion" aria-labelledby={id} data-testid="promotion-card" data-workflow-id={workflowId} data-node={node}>
      <header className="promotion__head">
        <h3 id={id} className="promotion__title">
          <a href={routeHref({ name: 'workflow-edit', workflowId, run: false })}>{workflowName}</a> <span className="muted">›</span> {nodeLabel} <span className="muted">(agent node)</span>
        </h3>
        {deployment && (
          <Chip tone="accent">
            <span data-testid="promotion-phase" data-phase={deployment.deployment.phase}>
              Phase {deployment.deployment.phase} · {PHASE_LABELS[deployment.deployment.phase]}
            </span>
          </Chip>
        )}
        <span className="round__spacer" />
        {deployment && (
          <span className="muted" data-testid="promotion-profile">
            {deployment.profile ? `${deployment.profile.name} · v${deployment.profile.version}` : 'the phase in its workflow file'} · window: last {deployment.deployment.promotion.window} reviewed rounds
          </span>
        )}
      </header>
      {loadError ? (
        <p className="error" role="alert">
          Could not read this node’s deployment from the host: {loadError}
        </p>
      ) : !figures && asked.problem !== undefined ? (
        <PromotionProblem problem={asked.problem} />
      ) : !held || !figures ? (
        <p className="muted">
          <Spinner /> Computing from the trace…
        </p>
      ) : (
        <>
          {figures.outcomes > 0 && deployment && <PromotionChart id={`chart-${workflowId}-${node}`} series={figures.series} promote={deployment.deployment.promotion.promote_agreement} demote={deployment.deployment.promotion.demote_block_rate} />}
          <Metrics metrics={figures.metrics} />
          {!agentNode ? (
            <p className="muted" data-testid="promotion-node-gone">
              {held.graph ? `${workflowName} has no agent node “${node}” any more` : `The workflow “${workflowId}” is no longer stored on the host`}: these figures are its recorded history, and there is no phase to change.
            </p>
          ) : (
            <>
              {suggestion && <PromotionSuggestion suggestion={suggestion} subject="this node" applying={applying} onApply={(to) => void apply(to)} />}
              {deployment && figures.outcomes > 0 && (
                <TrialPanel target={{ kind: 'node', workflow_id: workflowId, node_id: node }} phase={deployment.deployment.phase} promotion={deployment.deployment.promotion} applying={applying} onApply={(to) => void apply(to)} />
              )}
            </>
          )}
          <PromotionResult result={result} />
        </>
      )}
    </section>
  );
}
