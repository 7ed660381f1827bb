import { useEffect, useState, type ReactElement } from 'react';
import type { ModelRef } from '@shared/contracts/model';
import { PHASE_LABELS, type LifecyclePhase } from '@shared/contracts/spec';
import type { DeploymentSettings } from '@shared/contracts/profiles';
import { DEFAULT_TRIAL_ROUNDS, MAX_TRIAL_ROUNDS, type TrialStatusResult, type TrialTargetParam } from '@shared/learning/trial-api';
import type { TrialFigures, TrialReport } from '@shared/learning/trial-contract';
import { percent } from '@shared/learning/trial-report';
import type { z } from 'zod';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import { Spinner } from '../../components/Icons';

type Target = z.input<typeof TrialTargetParam>;
type ModelRefInput = z.input<typeof ModelRef>;
type Trial = { state: 'form' } | { state: 'starting' } | { state: 'refused'; text: string } | { state: 'following'; status: TrialStatusResult };

/** How often a running trial's progress is read (the host answers from memory). */
const POLL_MS = 400;

/** What a person types for a model: `ollama:NAME`, `URL#MODEL` (an OpenAI-compatible server), or a model ref as JSON. */
export function modelRefOf(text: string): { ok: true; ref: ModelRefInput } | { ok: false; problem: string } {
  const t = text.trim();
  if (t.startsWith('ollama:') && t.length > 'ollama:'.length) return { ok: true, ref: { provider: 'ollama', model: t.slice('ollama:'.length) } };
  if (/^https?:\/\//i.test(t) && t.includes('#')) {
    const at = t.lastIndexOf('#');
    return { ok: true, ref: { provider: 'openai_compatible', base_url: t.slice(0, at), model: t.slice(at + 1) } };
  }
  if (t.startsWith('{')) {
    try {
      return { ok: true, ref: JSON.parse(t) as ModelRefInput };
    } catch {
      return { ok: false, problem: 'That is not valid JSON.' };
    }
  }
  return { ok: false, problem: 'Name a model as ollama:NAME or URL#MODEL.' };
}

/**
 * "Try another student…" on a promotion card (issue 31): a candidate model replays the node's last
 * N reviewed rounds (recorded, redacted contexts; no tool executed) as a trial run of its own, and
 * its report stands beside the current student's figures. When its figures qualify for a phase
 * change the card offers to apply it; the person applies it, never the app.
 */
export function TrialPanel({
  target,
  phase,
  promotion,
  applying,
  onApply,
}: {
  target: Target;
  phase: LifecyclePhase;
  promotion: DeploymentSettings['promotion'];
  applying: boolean;
  onApply: (to: LifecyclePhase) => void;
}) {
  const { client, connection } = useHost();
  const [trial, setTrial] = useState<Trial>();
  const [model, setModel] = useState('');
  const [rounds, setRounds] = useState(String(DEFAULT_TRIAL_ROUNDS));
  const [models, setModels] = useState<string[]>([]);
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    if (trial?.state !== 'form' || connection !== 'open') return;
    let live = true;
    client.request('providers.status', {}).then(
      (status) => {
        if (live) setModels(status.ollama.models.map((m) => `ollama:${m.name}`));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, connection, trial?.state]);

  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<string>();
  const cancel = () => {
    if (trial?.state !== 'following') return;
    setCancelling(true);
    setCancelError(undefined);
    client.request('trial.cancel', { run_id: trial.status.run_id }).then(
      // Its status (polled) turns cancelled with the partial report.
      () => undefined,
      (err: unknown) => {
        setCancelling(false);
        setCancelError(`Could not cancel the trial: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  };
  const runId = trial?.state === 'following' ? trial.status.run_id : undefined;
  const running = trial?.state === 'following' && trial.status.state === 'running';
  useEffect(() => {
    if (runId === undefined || !running) return;
    let live = true;
    const timer = setInterval(() => {
      client.request('trial.status', { run_id: runId }).then(
        (status) => {
          if (live) setTrial({ state: 'following', status });
        },
        () => undefined,
      );
    }, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [client, runId, running]);

  const start = () => {
    const parsed = modelRefOf(model);
    const n = Number(rounds);
    if (!parsed.ok) return setProblem(parsed.problem);
    if (!Number.isInteger(n) || n < 1 || n > MAX_TRIAL_ROUNDS) return setProblem(`Rounds: a whole number from 1 to ${MAX_TRIAL_ROUNDS}.`);
    setProblem(undefined);
    setCancelling(false);
    setTrial({ state: 'starting' });
    client
      .request('trial.start', { target, student: parsed.ref, rounds: n, phase, promotion })
      .then((started) =>
        setTrial(started.started ? { state: 'following', status: { run_id: started.run_id, state: 'running', title: started.title, done: 0, total: started.rounds } } : { state: 'refused', text: started.message }),
      )
      .catch((err: unknown) => setTrial({ state: 'refused', text: err instanceof Error ? err.message : String(err) }));
  };

  if (!trial) {
    return (
      <div className="trial">
        <button type="button" className="button button--small" disabled={connection !== 'open'} onClick={() => setTrial({ state: 'form' })} data-testid="trial-open" title="Replay this node's recorded rounds to another model, with no tool executed, and compare">
          Try another student…
        </button>
      </div>
    );
  }
  if (trial.state === 'form' || trial.state === 'starting' || trial.state === 'refused') {
    return (
      <form
        className="trial trial__form"
        data-testid="trial-form"
        onSubmit={(e) => {
          e.preventDefault();
          start();
        }}
      >
        <p className="muted">
          Would another student have done well here? Its answers to this node’s recorded, redacted rounds are compared with the decisions finally selected; no tool is executed, and only a model the privacy policy allows is asked.
        </p>
        <label>
          Candidate model{' '}
          <input className="input trial__model" list="trial-models" value={model} onChange={(e) => setModel(e.target.value)} placeholder="ollama:qwen3:4b" data-testid="trial-model" required />
          <datalist id="trial-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>{' '}
        <label>
          Last{' '}
          <input type="number" min={1} max={MAX_TRIAL_ROUNDS} value={rounds} onChange={(e) => setRounds(e.target.value)} className="input trial__rounds" data-testid="trial-rounds" /> reviewed rounds
        </label>{' '}
        <button type="submit" className="button button--primary button--small" disabled={trial.state === 'starting' || connection !== 'open'} data-testid="trial-start">
          {trial.state === 'starting' && <Spinner />}
          Start the trial
        </button>{' '}
        <button type="button" className="button button--small" onClick={() => setTrial(undefined)}>
          Cancel
        </button>
        {problem !== undefined && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {trial.state === 'refused' && (
          <p className="error" role="alert" data-testid="trial-refused">
            {trial.text}
          </p>
        )}
      </form>
    );
  }
  const { status } = trial;
  const runLink = (
    <a href={routeHref({ name: 'run', runId: status.run_id, tab: 'rounds' })} data-testid="trial-run-link">
      {status.title}
    </a>
  );
  if (status.state === 'running') {
    return (
      <div className="trial" role="status" aria-busy="true" data-testid="trial-progress">
        <p>
          <Spinner /> {runLink}: round {Math.min(status.done + 1, status.total)} of {status.total}… (no tool is executed)
        </p>
        <progress max={status.total} value={status.done} aria-label="Rounds replayed" />{' '}
        <button type="button" className="button button--small" disabled={cancelling || connection !== 'open'} onClick={cancel} data-testid="trial-cancel" title="Stop the trial: the rounds done so far are reported, marked as partial">
          {cancelling ? 'Cancelling…' : 'Cancel the trial'}
        </button>
        {cancelError !== undefined && (
          <p className="error" role="alert">
            {cancelError}
          </p>
        )}
      </div>
    );
  }
  if (!status.report) {
    return (
      <div className="trial" data-testid="trial-failed">
        <p className="error" role="alert">
          {runLink} ended without a report: {status.message ?? 'it stopped.'}
        </p>
        <button type="button" className="button button--small" onClick={() => setTrial({ state: 'form' })}>
          Try again
        </button>
      </div>
    );
  }
  return <TrialReportView report={status.report} runLink={runLink} applying={applying} onApply={onApply} onClose={() => setTrial(undefined)} onAgain={() => setTrial({ state: 'form' })} />;
}

function Share({ f }: { f: TrialFigures }) {
  return (
    <>
      {f.agreement.count}/{f.agreement.of} · {percent(f.agreement.rate)}{' '}
      <span className="muted">
        ({percent(f.agreement.low)}–{percent(f.agreement.high)})
      </span>
    </>
  );
}

function TrialReportView({ report, runLink, applying, onApply, onClose, onAgain }: { report: TrialReport; runLink: ReactElement; applying: boolean; onApply: (to: LifecyclePhase) => void; onClose: () => void; onAgain: () => void }) {
  const { candidate: c, current: s } = report;
  const phaseText = (f: TrialFigures) => `${f.qualifies_for} · ${PHASE_LABELS[f.qualifies_for]}`;
  // A cancelled trial's figures cover only the rounds done: no phase change is offered on them.
  const change = c.qualifies_for !== report.current_phase && !report.stopped ? c.qualifies_for : undefined;
  return (
    <div className="trial trial__report" data-testid="trial-report" data-qualifies={c.qualifies_for} data-partial={report.stopped ? 'true' : undefined}>
      <p>
        <strong>{runLink}</strong>
      </p>
      {report.words.map((line, i) => (
        <p key={line} className={i === 0 && report.stopped ? 'error trial__words' : 'trial__words'} role={i === 0 && report.stopped ? 'alert' : undefined} data-testid={i === 0 && report.stopped ? 'trial-partial' : undefined}>
          {line}
        </p>
      ))}
      {report.stopped && (
        <p className="muted">
          This trial was cancelled, so no phase change is offered on its partial figures.{' '}
          <button type="button" className="link-button" onClick={onAgain}>
            Start a full trial
          </button>{' '}
          to get one.
        </p>
      )}
      <table className="table table--compact" data-testid="trial-table">
        <thead>
          <tr>
            <th scope="col">Over the last {report.rounds} reviewed rounds</th>
            <th scope="col">Candidate · {c.model}</th>
            <th scope="col">Current student · {s.model}</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Agreement with the selected decision (95% interval)</th>
            <td data-testid="trial-agreement">
              <Share f={c} />
            </td>
            <td>
              <Share f={s} />
            </td>
          </tr>
          <tr>
            <th scope="row">Protected effects proposed differently</th>
            <td className={c.protected_differences > 0 ? 'is-bad' : undefined} data-testid="trial-protected">
              {c.protected_differences}
            </td>
            <td>{s.protected_differences}</td>
          </tr>
          <tr>
            <th scope="row">Decisions that failed validation</th>
            <td>{c.invalid}</td>
            <td>{s.invalid}</td>
          </tr>
          <tr>
            <th scope="row">Blocks drawn (recorded verdicts)</th>
            <td>{c.blocks}</td>
            <td>{s.blocks}</td>
          </tr>
          <tr>
            <th scope="row">Would qualify for (now phase {report.current_phase})</th>
            <td data-testid="trial-phase">{phaseText(c)}</td>
            <td>{phaseText(s)}</td>
          </tr>
          <tr>
            <th scope="row">Per round</th>
            <td>
              {Math.round(report.latency_ms.median)} ms median
              {report.tokens.input_per_round !== null && ` · ${Math.round(report.tokens.input_per_round)} tokens in, ${Math.round(report.tokens.output_per_round ?? 0)} out`}
            </td>
            <td className="muted">as recorded</td>
          </tr>
        </tbody>
      </table>
      {change !== undefined && (
        <div className={`suggestion-box suggestion-box--${change > report.current_phase ? 'promote' : 'demote'}`} data-testid="trial-suggestion">
          <p>
            <strong>
              On this trial, {c.model} {change > report.current_phase ? 'qualifies for' : 'would be demoted to'} phase {change} ({PHASE_LABELS[change]}).
            </strong>{' '}
            Applying moves this node to that phase as a new version of its deployment profile; make {c.model} its student in its model profile for the trial to describe what runs.
          </p>
          <button type="button" className="button button--primary" disabled={applying} onClick={() => onApply(change)} data-testid="trial-apply">
            {applying && <Spinner />}
            Apply: move to phase {change}
          </button>
        </div>
      )}
      <button type="button" className="button button--small" onClick={onClose} data-testid="trial-close">
        Close the trial
      </button>
    </div>
  );
}
