import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { PHASE_LABELS, type LifecyclePhase } from '@shared/contracts/spec';
import { suggestPhase, type MetricsPoint, type PromotionMetrics } from '@shared/policy/promotion';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import type { WorkflowRow } from '../../db/db';
import { profileLabel } from '../../db/profiles';
import { useHistoryAnswer } from '../../host/use-history-answer';
import { applyDeploymentPhase, resolveFromRows } from '../../db/workflow-profiles';
import { Chip } from '../../components/Chip';
import { Spinner } from '../../components/Icons';
import { chartGeometry } from '../../supervision/promotion-chart';
import { PromotionResult, PromotionSuggestion } from './PromotionSuggestion';
import { TrialPanel } from './TrialPanel';
import { formatDateTime } from '../../view/format';

export const CHART_POINTS = 60;
const pct = (r: number | null) => (r === null ? '—' : `${Math.round(r * 100)}%`);

/** The element's width in CSS pixels, so the chart draws at its real size (crisp text, round dots). */
function useWidth<E extends Element>(fallback: number): [RefObject<E | null>, number] {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry && entry.contentRect.width > 0) setWidth(Math.round(entry.contentRect.width));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

export function PromotionChart({ series, promote, demote, id }: { series: MetricsPoint[]; promote: number; demote: number; id: string }) {
  const [ref, width] = useWidth<HTMLElement>(640);
  const g = chartGeometry(series, width, 180);
  const last = series.at(-1);
  return (
    <figure className="chart" data-testid="promotion-chart" ref={ref}>
      <svg width={g.width} height={g.height} viewBox={`0 0 ${g.width} ${g.height}`} role="img" aria-labelledby={`${id}-desc`}>
        <desc id={`${id}-desc`}>
          Agreement rate and block rate over the last {series.length} points; now {pct(last?.agreement_rate ?? null)} agreement and {pct(last?.block_rate ?? null)} blocked; {g.errorMarks.length} protected-effect
          error markers.
        </desc>
        {[0, 0.5, 1].map((t) => (
          <g key={t}>
            <line className="chart__grid" x1={g.pad.left} x2={g.width - g.pad.right} y1={g.y(t)} y2={g.y(t)} />
            <text className="chart__axis" x={g.pad.left - 6} y={g.y(t) + 4} textAnchor="end">
              {t * 100}%
            </text>
          </g>
        ))}
        <line className="chart__threshold chart__threshold--promote" x1={g.pad.left} x2={g.width - g.pad.right} y1={g.y(promote)} y2={g.y(promote)} />
        <line className="chart__threshold chart__threshold--demote" x1={g.pad.left} x2={g.width - g.pad.right} y1={g.y(demote)} y2={g.y(demote)} />
        {g.agreement && <path className="chart__line chart__line--agreement" d={g.agreement} data-testid="chart-agreement" />}
        {g.block && <path className="chart__line chart__line--block" d={g.block} data-testid="chart-block" />}
        {series.length === 1 && last && (
          <>
            {last.agreement_rate !== null && <circle className="chart__dot chart__dot--agreement" cx={g.x(0)} cy={g.y(last.agreement_rate)} r={3.5} />}
            {last.block_rate !== null && <circle className="chart__dot chart__dot--block" cx={g.x(0)} cy={g.y(last.block_rate)} r={3.5} />}
          </>
        )}
        {g.errorMarks.map((m) => (
          <path key={m.ts + m.count} className="chart__error" d={`M${m.x} ${m.y - 12} l6 10 h-12 z`} data-testid="chart-error">
            <title>
              Protected-effect error ({m.count} in the window) · {formatDateTime(m.ts)}
            </title>
          </path>
        ))}
        {series[0] && (
          <text className="chart__axis" x={g.pad.left} y={g.height - 6}>
            {formatDateTime(series[0].ts)}
          </text>
        )}
        {last && series.length > 1 && (
          <text className="chart__axis" x={g.width - g.pad.right} y={g.height - 6} textAnchor="end">
            {formatDateTime(last.ts)}
          </text>
        )}
      </svg>
      <figcaption className="chart__legend">
        <span className="legend legend--agreement">Agreement rate</span>
        <span className="legend legend--block">Block rate</span>
        <span className="legend legend--error">Protected-effect error</span>
        <span className="legend legend--threshold">Thresholds (promote {pct(promote)}, demote {pct(demote)})</span>
      </figcaption>
    </figure>
  );
}

export function Metrics({ metrics }: { metrics: PromotionMetrics }) {
  return (
    <dl className="metrics" data-testid="promotion-metrics">
      <div>
        <dt>Reviewed rounds</dt>
        <dd data-testid="metric-examples">{metrics.examples}</dd>
      </div>
      <div>
        <dt>Agreement</dt>
        <dd data-testid="metric-agreement">{pct(metrics.agreement_rate)}</dd>
      </div>
      <div>
        <dt>Blocked</dt>
        <dd data-testid="metric-block">{pct(metrics.block_rate)}</dd>
      </div>
      <div>
        <dt>Protected-effect errors</dt>
        <dd data-testid="metric-errors" className={metrics.protected_errors > 0 ? 'is-bad' : undefined}>
          {metrics.protected_errors}
        </dd>
      </div>
    </dl>
  );
}

/** The host could not give a card its figures: said in words, with what to do. */
export function PromotionProblem({ problem }: { problem: string }) {
  return (
    <p className="error" role="alert" data-testid="promotion-problem">
      The promotion figures could not be read from the host’s history: {problem}. They are asked again as soon as the host answers.
    </p>
  );
}

/** Promotion for one agent workflow (its one agent node): earned from its trace, suggested here, applied only by the user. Graph nodes: NodePromotionCard. */
export function PromotionCard({ row }: { row: WorkflowRow }) {
  const { db, client } = useHost();
  const profiles = useLiveQuery(() => db.profiles.toArray(), [db]);
  const [applying, setApplying] = useState(false);
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string }>();

  const deployment = profiles ? resolveFromRows(profiles, row.profiles).deployment : undefined;
  const window = deployment?.deployment.promotion.window;
  // Kept by the host from its history (events/promotion-store.ts): a few rows read, however long the history.
  const asked = useHistoryAnswer(window === undefined ? undefined : JSON.stringify([row.id, '', window]), () =>
    client.request('promotion.figures', { workflow_id: row.id, node: '', window: window ?? 1, points: CHART_POINTS }),
  );
  const figures = asked.value;
  const computed = useMemo(() => {
    if (!figures || !deployment) return undefined;
    const settings = deployment.deployment.promotion;
    return { ...figures, suggestion: suggestPhase(deployment.deployment.phase, figures.metrics, settings) };
  }, [figures, deployment]);

  const apply = async (to: LifecyclePhase) => {
    setApplying(true);
    setResult(undefined);
    try {
      const saved = await applyDeploymentPhase(db, row.id, to);
      setResult({ tone: 'ok', text: `Applied: ${row.name} now runs in phase ${to} (${PHASE_LABELS[to]}), saved as ${profileLabel(saved)}.` });
    } catch (err) {
      setResult({ tone: 'error', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setApplying(false);
    }
  };

  return (
    <section className="card promotion" aria-labelledby={`promo-${row.id}`} data-testid="promotion-card" data-workflow-id={row.id} data-node="">
      <header className="promotion__head">
        <h3 id={`promo-${row.id}`} className="promotion__title">
          <a href={routeHref({ name: 'workflow', workflowId: row.id })}>{row.name}</a>
        </h3>
        {deployment && (
          <Chip tone="accent">
            Phase {deployment.deployment.phase} · {PHASE_LABELS[deployment.deployment.phase]}
          </Chip>
        )}
        <span className="round__spacer" />
        {deployment && <span className="muted">window: last {deployment.deployment.promotion.window} reviewed rounds</span>}
      </header>
      {!computed && asked.problem !== undefined ? (
        <PromotionProblem problem={asked.problem} />
      ) : !computed || !deployment ? (
        <p className="muted">
          <Spinner /> Computing from the trace…
        </p>
      ) : (
        <>
          {computed.outcomes === 0 ? (
            <p className="muted" data-testid="promotion-empty">
              No reviewed rounds yet: run this workflow with supervision on to start measuring its student.
            </p>
          ) : (
            <PromotionChart id={`chart-${row.id}`} series={computed.series} promote={deployment.deployment.promotion.promote_agreement} demote={deployment.deployment.promotion.demote_block_rate} />
          )}
          <Metrics metrics={computed.metrics} />
          <PromotionSuggestion suggestion={computed.suggestion} applying={applying} onApply={(to) => void apply(to)} />
          {computed.outcomes > 0 && <TrialPanel target={{ kind: 'spec', spec_id: row.id }} phase={deployment.deployment.phase} promotion={deployment.deployment.promotion} applying={applying} onApply={(to) => void apply(to)} />}
          <PromotionResult result={result} />
        </>
      )}
    </section>
  );
}
