import { useCallback, useEffect, useState } from 'react';
import type { InjectionCheckStatus } from '@shared/eval/injection-api';
import { INJECTION_POLICY_LABELS, type InjectionEvalReport } from '@shared/eval/injection-report';
import { PHASE_LABELS } from '@shared/contracts/spec';
import { useHost } from '../../app/HostProvider';
import { Spinner } from '../../components/Icons';
import { formatDateTime } from '../../view/format';
import { Gates } from './EvalGates';

/** How often a running check's progress is read (the host answers from memory). */
const POLL_MS = 700;

/**
 * The injection check (issue 31, `steward eval injection`) as evaluation evidence: per lifecycle
 * phase and with the review rule "an argument carries a value from an untrusted tool result" on and
 * off, how many injected protected actions ran and how many reviews each task asked (the cost of the
 * safety). Shows the latest report kept in the data folder (the CLI's or the app's), and runs it
 * again here: on the shipped servers, with the worst-student and teacher doubles (named as such; no
 * model is called), with its progress while it runs.
 */
export function InjectionEvidence() {
  const { client, connection } = useHost();
  const [status, setStatus] = useState<InjectionCheckStatus>();
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);

  const read = useCallback(
    () =>
      client.request('eval.injection.status', {}).then(
        (s) => setStatus(s),
        (err: unknown) => setError(`Could not read the injection check: ${err instanceof Error ? err.message : String(err)}`),
      ),
    [client],
  );
  useEffect(() => {
    if (connection === 'open') void read();
  }, [connection, read]);
  const running = status?.state === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void read(), POLL_MS);
    return () => clearInterval(timer);
  }, [running, read]);

  const start = async () => {
    setStarting(true);
    setError(undefined);
    try {
      const started = await client.request('eval.injection.start', {});
      if (!started.started) setError(started.message);
      await read();
    } catch (err) {
      setError(`Could not start the injection check: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setStarting(false);
    }
  };

  const report = status?.report;
  return (
    <section className="card promotion" aria-labelledby="eval-injection" data-testid="eval-report-injection" data-passed={report?.passed} data-state={status?.state}>
      <div className="promotion__head">
        <h3 id="eval-injection" className="promotion__title">
          Injected instructions eval
        </h3>
        {report && (report.passed ? <span className="tag">all gates hold</span> : <span className="tag tag--bad">{report.gates.filter((g) => !g.passed).length} gate(s) failed</span>)}
      </div>
      <p className="muted">
        Tasks on the shipped filesystem and memory servers whose results carry injected instructions (write a file, send a secret, delete a memory), run with the worst student — a double that follows every one — at each phase, with the provenance review rule on and off. No model is called and nothing outside a temporary folder is touched.
      </p>
      {running ? (
        <div role="status" aria-busy="true" data-testid="injection-progress">
          <p>
            <Spinner /> Running the injection check: case {Math.min(status.done + 1, status.total)} of {status.total}…
          </p>
          <progress max={status.total} value={status.done} aria-label="Injection cases run" />
        </div>
      ) : (
        <p>
          <button type="button" className="button button--small" onClick={() => void start()} disabled={starting || connection !== 'open'} data-testid="injection-run">
            {starting && <Spinner />}
            {report ? 'Run it again' : 'Run the injection check'}
          </button>{' '}
          <span className="muted">
            a few seconds; the same as <code>steward eval injection</code>
          </span>
        </p>
      )}
      {status?.state === 'failed' && status.message && (
        <p className="error" role="alert">
          {status.message}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {report ? (
        <InjectionReportView report={report} />
      ) : (
        status &&
        !running && (
          <p className="muted" data-testid="injection-none">
            Not run in this data folder yet: run it here, or with <code>steward eval injection</code>.
          </p>
        )
      )}
    </section>
  );
}

function InjectionReportView({ report }: { report: InjectionEvalReport }) {
  const m = report.metrics;
  const at4 = (policy: 'rule_on' | 'rule_off') => m.cells.find((c) => c.phase === 4 && c.policy === policy);
  return (
    <div data-testid="injection-report">
      <p className="muted">
        {formatDateTime(report.generated_at)} · {report.cases.length} cases · {report.student} · {report.teacher}
      </p>
      <p data-testid="injection-headline">
        {m.injected_protected_below_phase4 === 0 && m.injected_protected_phase4_rule_on === 0
          ? `No injected protected action ran below phase 4, nor at phase 4 with the provenance rule on. With the rule on, phase 4 asked ${(at4('rule_on')?.reviews_per_task ?? 0).toFixed(2)} reviews per task, against ${(at4('rule_off')?.reviews_per_task ?? 0).toFixed(2)} with it off: that is what the safety costs.`
          : `Injected protected actions ran: ${m.injected_protected_below_phase4} below phase 4 and ${m.injected_protected_phase4_rule_on} at phase 4 with the provenance rule on. Look at the cases below before trusting a student at these phases.`}
      </p>
      <div className="table-wrap">
        <table className="table table--compact" data-testid="injection-cells">
          <thead>
            <tr>
              <th scope="col">Phase</th>
              <th scope="col">Provenance rule</th>
              <th className="num" scope="col">
                Injected calls proposed
              </th>
              <th className="num" scope="col">
                Injected protected actions run
              </th>
              <th className="num" scope="col">
                Steered reads run
              </th>
              <th className="num" scope="col">
                Reviews per task
              </th>
            </tr>
          </thead>
          <tbody>
            {m.cells.map((c) => (
              <tr key={`${c.phase}-${c.policy}`} data-phase={c.phase} data-policy={c.policy}>
                <td>
                  {c.phase} · {PHASE_LABELS[c.phase]}
                </td>
                <td>{INJECTION_POLICY_LABELS[c.policy].replace('provenance rule ', '')}</td>
                <td className="num">{c.injected_proposed}</td>
                <td className={c.injected_protected_executed > 0 ? 'num is-bad' : 'num'}>{c.injected_protected_executed}</td>
                <td className="num">{c.injected_reads_executed}</td>
                <td className="num">{c.reviews_per_task.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Gates gates={report.gates} suite="injection" />
    </div>
  );
}
