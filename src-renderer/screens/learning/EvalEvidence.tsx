import { useEffect, useState } from 'react';
import type { BoundaryEvalReport, EvalReport, LatestEvalReports, SupervisorEvalReport } from '@shared/eval/report';
import { useHost } from '../../app/HostProvider';
import { formatDateTime } from '../../view/format';
import { InjectionEvidence } from './InjectionEvidence';
import { Gates } from './EvalGates';

/**
 * The latest eval reports (`steward eval supervisor|boundary`, kept in the host's data folder) as
 * promotion evidence: read-only, the gates first. The injection check (InjectionEvidence) can be run
 * from here too; the other suites run from the CLI and CI.
 */

const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;

function Figure({ label, value, bad }: { label: string; value: string; bad?: boolean }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={bad ? 'is-bad' : undefined}>{value}</dd>
    </div>
  );
}

function SupervisorFigures({ report }: { report: SupervisorEvalReport }) {
  const m = report.metrics;
  return (
    <dl className="metrics">
      <Figure label="Recovery" value={`${pct(m.recovery_rate)} (${m.recovered}/${m.recoverable_cases})`} />
      <Figure label="Incorrect skips" value={pct(m.incorrect_skip_rate)} bad={m.incorrect_skips > 0} />
      <Figure label="Poisoned repairs" value={String(m.poisoned_repairs)} bad={m.poisoned_repairs > 0} />
      <Figure label="Duplicate effects" value={String(m.duplicate_effects)} bad={m.duplicate_effects > 0} />
      <Figure label="Cost overruns" value={String(m.cost_overruns)} bad={m.cost_overruns > 0} />
    </dl>
  );
}

function BoundaryFigures({ report }: { report: BoundaryEvalReport }) {
  const m = report.metrics;
  return (
    <dl className="metrics">
      <Figure label="Unsafe executions" value={String(m.unsafe_executions)} bad={m.unsafe_executions > 0} />
      <Figure label="Missed protected effects" value={String(m.missed_protected_effects)} bad={m.missed_protected_effects > 0} />
      <Figure label="False blocks" value={String(m.false_blocks)} />
      <Figure label="Recovered by replacement" value={pct(m.replacement_recovery_rate)} />
      <Figure label="Phase 3 / phase 2 teacher calls" value={pct(m.phase3_teacher_call_ratio)} />
    </dl>
  );
}

const TITLES = { supervisor: 'Workflow supervisor eval', boundary: 'Decision boundary eval' } as const;

function ReportCard({ report }: { report: EvalReport }) {
  return (
    <section className="card promotion" aria-labelledby={`eval-${report.suite}`} data-testid={`eval-report-${report.suite}`} data-passed={report.passed}>
      <div className="promotion__head">
        <h3 id={`eval-${report.suite}`} className="promotion__title">
          {TITLES[report.suite]}
        </h3>
        {report.passed ? <span className="tag">all gates hold</span> : <span className="tag tag--bad">{report.gates.filter((g) => !g.passed).length} gate(s) failed</span>}
      </div>
      <p className="muted">
        {formatDateTime(report.generated_at)} · {report.cases.length} cases · {report.supervisor}
      </p>
      {report.suite === 'supervisor' ? <SupervisorFigures report={report} /> : <BoundaryFigures report={report} />}
      <Gates gates={report.gates} suite={report.suite} />
    </section>
  );
}

/** The reports as given (absent ones say how to make them). */
export function EvalReportPanel({ reports }: { reports: LatestEvalReports | undefined }) {
  const shown = [reports?.supervisor, reports?.boundary].filter((r): r is EvalReport => r !== undefined);
  return (
    <div className="eval-evidence" data-testid="eval-evidence">
      {shown.length === 0 ? (
        <p className="muted" data-testid="eval-none">
          No eval report yet. Run <code>steward eval supervisor</code> or <code>steward eval boundary</code> on this data folder to add supervision evidence here.
        </p>
      ) : (
        shown.map((r) => <ReportCard key={r.suite} report={r} />)
      )}
    </div>
  );
}

/** Asks the host for the latest reports once it is connected. */
export function EvalEvidence() {
  const { client, connection } = useHost();
  const [reports, setReports] = useState<LatestEvalReports>();
  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    client
      .request('eval.latest', {})
      .then((latest) => {
        if (live) setReports(latest);
      })
      // A host without the reports (or an older host): the panel says there are none.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [client, connection]);
  return (
    <>
      <EvalReportPanel reports={reports} />
      <InjectionEvidence />
    </>
  );
}
