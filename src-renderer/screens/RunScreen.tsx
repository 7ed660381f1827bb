import { Fragment, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import { PHASE_LABELS } from '@shared/contracts/spec';
import { PROFILE_KIND_LABELS, ProfileKind } from '@shared/contracts/profiles';
import { useHost } from '../app/HostProvider';
import { routeHref, useRoute } from '../app/routing';
import { runEvents, type RunRow } from '../db/db';
import { deriveRounds, type RoundView } from '../db/derive-rounds';
import { deriveRunFacts, pendingInterventions, type RunFacts } from '../db/run-facts';
import { RunCostPanel } from './costs/RunCostPanel';
import { describeModelUsage, modelUsageTotals } from '../db/model-usage';
import { deriveScsTimeline, evidenceIndex, type ScsTimeline } from '../db/derive-scs';
import { Chip, StatusBadge } from '../components/Chip';
import { Spinner } from '../components/Icons';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatDateTime, formatDuration, plural } from '../view/format';
import { RoundCard } from './RoundCard';
import { TraceList } from './TraceList';
import { InterventionCard } from './InterventionCard';
import { ServerAsks } from './asks/ServerAskCard';
import { ScsTimelineView, type ScsNavigation } from './scs/ScsTimeline';
import { ScsStatus } from './scs/ScsStatus';
import { useAlignTimeline } from './scs/align-timeline';
import { workflowStartOf } from '../db/derive-invocations';
import { NodesPanel } from './run/NodesPanel';
import { ValuesList } from './run/ValueView';
import { ExportOtlpButton } from './run/ExportOtlpButton';
import { SendOtlpButton } from './run/SendOtlpButton';
import { ReplayButton } from './run/ReplayButton';
import { DifferencesPanel } from './run/DifferencesPanel';
import { NodeDifferencesPanel } from './run/NodeDifferencesPanel';
import { TrialRunPanel } from './run/TrialRunPanel';
import { PrivacyPanel } from './privacy/PrivacyPanel';
import { deriveSupervision } from '../workflow-supervisor/derive-supervision';
import { InterventionFeed } from '../workflow-supervisor/InterventionFeed';
import { SupervisionReport } from '../workflow-supervisor/SupervisionReport';
import { supervisionFact } from '../workflow-supervisor/supervisor-fact';
import { ToolProgressBars } from './run/ToolProgressBars';
import { useHeldRun } from './run/use-held-run';
import { HeldRunNotice } from './run/HeldRunNotice';
import { RunNotFound } from './run/RunNotFound';
import { PartialOutcome } from './run/PartialOutcome';
import { RestartedAs } from './run/RestartedAs';
import { MessageText } from './run/MessageText';
// "3 · the 3rd was interrupted": the words Runs and `steward runs` use for the same row (issue 28).
import { roundsText } from '@shared/history/rounds-words';
import { RecordedLimitsView } from './run/RecordedLimits';
import { RunSpeechControl } from '../speech/RunSpeechControl';

const NO_EVENTS: RunEvent[] = [];

/**
 * `roundsSeen`: an agent run's rounds as its Rounds tab counts them (a round under way, or one the run
 * left unfinished, included), so the header and the tab never disagree.
 */
export function RunHeader({ run, facts, scs, usage, events = NO_EVENTS, roundsSeen }: { run: RunRow; facts: RunFacts; scs: ScsTimeline; usage?: string; events?: readonly RunEvent[]; roundsSeen?: number }) {
  const { client, connection } = useHost();
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<string>();
  const cancel = async () => {
    setCancelling(true);
    setError(undefined);
    try {
      await client.request('run.cancel', { run_id: run.run_id });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setCancelling(false);
    }
  };
  const duration = formatDuration(run.started_at, run.finished_at);
  const supervision = supervisionFact(run, events);
  const finished = events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished');
  return (
    <header className="run-head">
      <div className="run-head__title">
        <a className="crumb" href={routeHref({ name: 'runs' })}>
          Runs
        </a>
        <h1 className="page__title">{run.spec_name}</h1>
        {run.parent && (
          // A child run (issue 29): the run it is part of, at the node that ran it.
          <a className="muted" href={routeHref({ name: 'run', runId: run.parent.run_id, tab: 'nodes', node: run.parent.invocation_id })} data-testid="run-parent-link">
            part of run {run.parent.run_id.slice(0, 8)}…, node {run.parent.invocation_id}
          </a>
        )}
        <RestartedAs run={run} />
        {/* A polite live region: a screen reader hears the run start waiting, complete or fail. */}
        <span role="status" className="run-head__status">
          <span className="visually-hidden">Run status: </span>
          <StatusBadge status={run.status} testId="run-status" supervised={run.workflow?.supervised} partial={run.partial} />
        </span>
        {run.dry_run && (
          <Chip tone="accent" title="Models were called; no tool was executed">
            Dry run
          </Chip>
        )}
        {run.imported && (
          <Chip tone="neutral" title="This run came from an imported trace file: it never ran on this machine">
            Imported
          </Chip>
        )}
        <span className="round__spacer" />
        {run.workflow_id && run.workflow && (
          <a className="button" href={routeHref({ name: 'workflow-edit', workflowId: run.workflow_id, run: false, showRun: run.run_id })} data-testid="open-in-editor" title="The workflow's graph with this run's node states and supervisor verdicts">
            Open in editor
          </a>
        )}
        {run.workflow_id && !run.workflow && (
          <a className="button" href={routeHref({ name: 'workflow', workflowId: run.workflow_id })}>
            Workflow settings
          </a>
        )}
        <ExportOtlpButton runId={run.run_id} />
        <SendOtlpButton runId={run.run_id} />
        {run.status !== 'running' && run.status !== 'waiting' && <ReplayButton runId={run.run_id} workflowId={run.workflow_id} graph={run.workflow !== undefined} />}
        {(run.status === 'running' || run.status === 'waiting') && (
          <ConfirmButton
            label={cancelling ? 'Cancelling…' : 'Cancel run'}
            question="Cancel this run? The round under way ends; nothing more runs."
            confirmLabel="Cancel run"
            keepLabel="Keep the run"
            danger
            testId="cancel-button"
            disabled={cancelling || connection !== 'open'}
            onConfirm={cancel}
          />
        )}
      </div>
      <dl className="run-head__facts">
        <div>
          <dt>Student</dt>
          <dd>
            <code>{run.models.student}</code>
          </dd>
        </div>
        <div>
          <dt>Teacher</dt>
          <dd>
            <code>{run.models.teacher}</code>
          </dd>
        </div>
        {facts.started?.replay_of && (
          <div>
            <dt>Replay of</dt>
            <dd data-testid="replay-of">
              <a href={routeHref({ name: 'run', runId: facts.started.replay_of, tab: 'rounds' })} title={facts.started.replay_of}>
                run {facts.started.replay_of.slice(0, 8)}
              </a>
            </dd>
          </div>
        )}
        <div>
          <dt>{supervision.term}</dt>
          <dd data-testid="run-supervision">{supervision.value}</dd>
        </div>
        {facts.started && (
          <div>
            {/* "Lifecycle": an SCS run shows its own phases beside this one. */}
            <dt>Lifecycle phase</dt>
            <dd data-testid="run-phase" data-phase={facts.started.supervision.phase}>
              {facts.started.supervision.enabled ? `${facts.started.supervision.phase} · ${PHASE_LABELS[facts.started.supervision.phase]}` : '—'}
            </dd>
          </div>
        )}
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(run.started_at)}</dd>
        </div>
        <div>
          <dt>Rounds</dt>
          <dd data-testid="run-rounds">{roundsText(run, roundsSeen)}</dd>
        </div>
        {duration && (
          <div>
            <dt>Took</dt>
            <dd>{duration}</dd>
          </div>
        )}
        {usage && (
          <div>
            <dt>Model use</dt>
            <dd data-testid="run-model-usage" title="Tokens the model servers reported, and the time spent waiting for their answers">
              {usage}
            </dd>
          </div>
        )}
      </dl>
      {run.status === 'completed_with_failures' && finished?.partial && <PartialOutcome runId={run.run_id} partial={finished.partial} />}
      <ScsStatus timeline={scs} />
      {facts.started && <RunSetup started={facts.started} />}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </header>
  );
}

/** The profiles the run recorded and who saw which data (the run's privacy record). */
function RunSetup({ started }: { started: RunEventOf<'run.started'> }) {
  const profiles = ProfileKind.options.flatMap((kind) => {
    const ref = started.profiles[kind];
    return ref ? [{ kind, ref }] : [];
  });
  return (
    <details className="run-setup" data-testid="run-setup">
      <summary>
        Setup and data exposure
        <span className="muted">
          {' '}
          · {profiles.length > 0 ? plural(profiles.length, 'profile') : 'the workflow file’s own settings'} ·{' '}
          {started.exposure.every((x) => x.local) ? 'nothing left this machine' : `seen by ${started.exposure.filter((x) => !x.local).map((x) => x.host ?? x.model).join(', ')}`}
        </span>
      </summary>
      <div className="run-setup__body">
        {profiles.length > 0 && (
          <div>
            <h3 className="run-setup__heading">Profiles</h3>
            <ul className="plain-list">
              {profiles.map(({ kind, ref }) => (
                <li key={kind}>
                  <span className="muted">{PROFILE_KIND_LABELS[kind]}:</span> {ref.name} · v{ref.version}
                </li>
              ))}
            </ul>
          </div>
        )}
        <RecordedLimitsView limits={started.limits} />
        <div>
          <h3 className="run-setup__heading">Who saw what</h3>
          {started.exposure.length === 0 ? (
            <p className="muted">This run recorded no exposure (it was started by an older Steward).</p>
          ) : (
            <ul className="plain-list" data-testid="run-exposure">
              {started.exposure.map((x) => (
                <li key={x.role} data-role={x.role} data-local={x.local}>
                  <strong>{x.role === 'student' ? 'Student' : 'Teacher'}</strong> <code>{x.model}</code> · {x.local ? 'on this machine' : <Chip tone="escalated">{x.host ?? 'another host'}</Chip>}: {x.data.join(', ')}
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </details>
  );
}

/** `outputs`: a workflow run's output fields, shown whole (the row keeps a cut summary). */
function FinalPanel({ run, outputs, held }: { run: RunRow; outputs?: Record<string, unknown>; held: number }) {
  if (run.status === 'running' || run.status === 'waiting') return null;
  // What this page shows of the run (its own events, or those loaded from the host), against what the run emitted.
  const shown = Math.max(held, run.stored_events);
  const complete = run.event_count !== undefined && shown >= run.event_count;
  return (
    <section className={`card final final--${run.status}`} data-testid="run-final" aria-label="Run result">
      <header className="final__head">
        <h2 className="final__title">Result</h2>
        <StatusBadge status={run.status} supervised={run.workflow?.supervised} partial={run.partial} />
        <span className="round__spacer" />
        <span className="muted" title="Events stored in this browser / events the run emitted">
          {complete ? `trace complete · ${plural(shown, 'event')}` : `${shown} of ${run.event_count ?? '?'} events stored`}
        </span>
      </header>
      {outputs && Object.keys(outputs).length > 0 ? (
        <ValuesList values={outputs} testId="run-outputs" />
      ) : (
        run.output && (
          <pre className="final__output" data-testid="run-output">
            {run.output}
          </pre>
        )
      )}
      {run.message && (
        <div className="final__message" data-testid="run-message">
          <MessageText text={run.message} />
        </div>
      )}
      {!run.output && !run.message && <p className="muted">The run ended without output.</p>}
    </section>
  );
}

/** Requests the host reports waiting (the authority after a restart); undefined when unknown. */
function useHostPending(runId: string, status: RunRow['status'] | undefined): Intervention[] | undefined {
  const { client, connection } = useHost();
  const [pending, setPending] = useState<Intervention[]>();
  useEffect(() => {
    // Unknown here (a fresh browser after a restart) or not finished: the host may be holding a question.
    if (connection !== 'open' || (status !== undefined && status !== 'waiting' && status !== 'running')) return;
    let live = true;
    client.request('interventions.pending', {}).then(
      (r) => live && setPending(r.interventions.filter((i) => i.run_id === runId)),
      (err: unknown) => console.warn('[steward] interventions.pending', err),
    );
    return () => {
      live = false;
    };
  }, [client, connection, runId, status]);
  return pending;
}

function HandoverNote({ event }: { event: RunEventOf<'handover'> }) {
  const text =
    event.to === 'teacher'
      ? `Teacher took over${event.rounds ? ` for ${plural(event.rounds, 'round')}` : ''}${event.reason === 'escalation' ? ' after an escalation' : ''}`
      : 'Back to the student: the takeover ended';
  return (
    <div className="handover" role="note" data-testid="handover" data-to={event.to}>
      <span className="handover__line" aria-hidden="true" />
      <span className="handover__text">⇄ {text}</span>
      <span className="handover__line" aria-hidden="true" />
    </div>
  );
}

/** Handover notes go before the first round the new proposer proposes (live: at the end until it starts). */
function placeHandovers(rounds: readonly RoundView[], handovers: readonly RunEventOf<'handover'>[]): Map<number, RunEventOf<'handover'>[]> {
  const placed = new Map<number, RunEventOf<'handover'>[]>();
  for (const h of handovers) {
    const before = rounds.find((r) => r.round >= h.round && r.proposer === h.to)?.round ?? Infinity;
    placed.set(before, [...(placed.get(before) ?? []), h]);
  }
  return placed;
}

/** Scrolls to an element inside `root`, focuses it (keyboard users land there) and flashes it. */
function reveal(root: HTMLElement | null, selector: string): void {
  const el = root?.querySelector<HTMLElement>(selector);
  if (!el) return;
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
  el.classList.remove('flash');
  // Restart the animation when the same element is revealed twice in a row.
  void el.offsetWidth;
  el.classList.add('flash');
  window.setTimeout(() => el.classList.remove('flash'), 1600);
}

/**
 * A run's rounds as they happen, with its pending question, handovers and result (also used by
 * Dry-run); when SCS gated the run, its timeline beside them (above them when narrow).
 */
export function RunRounds({ runId, run, events }: { runId: string; run: RunRow | undefined; events: RunEvent[] }) {
  const rounds = useMemo(() => deriveRounds(events), [events]);
  const facts = useMemo(() => deriveRunFacts(events), [events]);
  const scs = useMemo(() => deriveScsTimeline(events), [events]);
  const evidence = useMemo(() => evidenceIndex(events), [events]);
  const hostPending = useHostPending(runId, run?.status);
  const pending = pendingInterventions(facts, hostPending, runId);
  const handovers = placeHandovers(rounds, facts.handovers);
  const dryRun = facts.started?.dry_run ?? run?.dry_run ?? false;
  const lastTools = rounds.at(-1)?.snapshot?.tools;
  const bodyRef = useRef<HTMLDivElement>(null);
  const goToRound = useCallback((round: number) => reveal(bodyRef.current, `[data-testid="round-card"][data-round="${round}"]`), []);
  const goToEntry = useCallback((id: string) => reveal(bodyRef.current, `[data-testid="scs-entry"][data-entry-id="${CSS.escape(id)}"]`), []);
  const nav = useMemo<ScsNavigation>(() => ({ runId, evidence, goToRound, goToEntry }), [runId, evidence, goToRound, goToEntry]);
  useAlignTimeline(bodyRef, scs.active);

  const list = (
    <div className="rounds" data-testid="rounds">
      {dryRun && (
        <div className="banner-inline banner-inline--accent" role="note" data-testid="dry-run-banner">
          <strong>Dry run: no tool was executed.</strong> The models were really called; each round shows what would have been executed, reviewed, replaced or blocked.
        </div>
      )}
      {rounds.map((view) => {
        const gate = scs.finishGates.get(view.round);
        return (
          <Fragment key={view.round}>
            {(handovers.get(view.round) ?? []).map((h) => (
              <HandoverNote key={h.id} event={h} />
            ))}
            <RoundCard view={view} dryRun={dryRun} gate={gate} onShowGate={gate ? () => goToEntry(gate.id) : undefined} ended={run !== undefined && run.status !== 'running' && run.status !== 'waiting'} />
          </Fragment>
        );
      })}
      {(handovers.get(Infinity) ?? []).map((h) => (
        <HandoverNote key={h.id} event={h} />
      ))}
      {pending.map((i) => (
        <InterventionCard key={i.id} intervention={i} tools={rounds.find((r) => r.round === i.round)?.snapshot?.tools ?? lastTools} />
      ))}
      <ServerAsks runId={runId} />
      {rounds.length === 0 && (!run || run.status === 'running') && (
        <div className="empty empty--inline" data-testid="rounds-waiting">
          <Spinner /> {scs.awaiting ? 'The phase plan comes first: no round runs before it is approved…' : 'Waiting for the first round…'}
        </div>
      )}
      {(!run || run.status === 'running') && <ToolProgressBars events={events} />}
      {(!run || run.status === 'running') && <LiveNotice events={events} />}
      {run && <FinalPanel run={run} held={events.length} />}
    </div>
  );
  if (!scs.active) return list;
  return (
    <div className="run-body" ref={bodyRef}>
      <div className="run-body__grid">
        <aside className="run-body__side" aria-label="SCS task gates">
          <ScsTimelineView timeline={scs} nav={nav} live={!run || run.status === 'running'} />
        </aside>
        <div className="run-body__main">{list}</div>
      </div>
    </div>
  );
}

/** A workflow run: its node invocations (with the questions they wait on), its inputs and its result. */
function WorkflowRunBody({ runId, run, events, focusNode }: { runId: string; run: RunRow | undefined; events: RunEvent[]; focusNode?: string }) {
  const hostPending = useHostPending(runId, run?.status);
  const started = useMemo(() => workflowStartOf(events), [events]);
  const finished = useMemo(() => events.find((e) => e.type === 'run.finished'), [events]);
  const supervision = useMemo(() => deriveSupervision(events), [events]);
  return (
    <div className="rounds">
      {started?.replay_of && <NodeDifferencesPanel runId={runId} replayOf={started.replay_of} events={events} live={!run || run.status === 'running' || run.status === 'waiting'} />}
      {started && Object.keys(started.inputs).length > 0 && (
        <details className="run-setup" data-testid="run-inputs">
          <summary>
            Run inputs <span className="muted">· {plural(Object.keys(started.inputs).length, 'value')}</span>
          </summary>
          <div className="run-setup__body">
            <ValuesList values={started.inputs} />
          </div>
        </details>
      )}
      <InterventionFeed view={supervision} ended={run !== undefined && run.status !== 'running' && run.status !== 'waiting'} />
      <ServerAsks runId={runId} />
      <NodesPanel runId={runId} run={run} events={events} hostPending={hostPending} focusNode={focusNode} />
      {(!run || run.status === 'running') && <ToolProgressBars events={events} />}
      {(!run || run.status === 'running') && <LiveNotice events={events} />}
      {run && <FinalPanel run={run} outputs={finished?.type === 'run.finished' ? finished.outputs : undefined} held={events.length} />}
      {finished && <SupervisionReport view={supervision} />}
    </div>
  );
}

export function RunScreen({ runId, tab, focusEvent }: { runId: string; tab: 'rounds' | 'trace' | 'nodes' | 'privacy'; focusEvent?: number }) {
  const { db } = useHost();
  // `#/runs/RUN/nodes/NODE` (the editor's link to a clicked node): read here, so App passes only the tab.
  const route = useRoute();
  const focusNode = route.name === 'run' && route.runId === runId ? route.node : undefined;
  const run = useLiveQuery(() => db.runs.get(runId), [db, runId]);
  const stored = useLiveQuery(() => runEvents(db, runId), [db, runId], NO_EVENTS);
  // A run this browser does not keep (issue 26) comes from the host's history as it is opened: shown as it arrives.
  const held = useHeldRun(runId);
  const events = held.arrived && held.arrived.length > stored.length ? held.arrived : stored;
  const facts = useMemo(() => deriveRunFacts(events), [events]);
  const usage = useMemo(() => describeModelUsage(modelUsageTotals(events)), [events]);
  // A workflow run shows its nodes where an agent run shows its rounds (opened on `nodes`, it is one before its first event is in).
  const isWorkflow = tab === 'nodes' || run?.workflow !== undefined || workflowStartOf(events) !== undefined;
  // The run's own SCS gates: an agent node's are its own (its events carry an invocation_id).
  const scs = useMemo(() => deriveScsTimeline(isWorkflow ? events.filter((e) => e.invocation_id === undefined) : events), [events, isWorkflow]);
  const roundCount = useMemo(() => new Set(events.flatMap((e) => ('round' in e ? [e.round] : []))).size, [events]);
  const modelCalls = useMemo(() => events.reduce((n, e) => n + (e.type === 'model.called' ? 1 : 0), 0), [events]);
  const invocationCount = useMemo(() => new Set(events.flatMap((e) => (e.type === 'node.invocation' && e.invocation_id !== undefined ? [e.invocation_id] : []))).size, [events]);

  // The host has no such run and this browser holds nothing of it: say so, rather than "Starting run…".
  // After a moment only: a run started a moment ago may not be in the host's history yet (its first
  // events are committed with the next window), while its live events are on their way.
  const seemsMissing = run === undefined && held.state.kind === 'unknown' && events.length === 0;
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    if (!seemsMissing) return;
    const timer = setTimeout(() => setMissing(true), 1500);
    return () => clearTimeout(timer);
  }, [seemsMissing]);
  if (missing && seemsMissing) return <RunNotFound runId={runId} />;

  return (
    <div className={`page page--run ${scs.active ? 'page--run-scs' : ''}`}>
      {run ? (
        <RunHeader run={run} facts={facts} scs={scs} usage={usage} events={events} roundsSeen={isWorkflow ? undefined : roundCount} />
      ) : (
        <header className="run-head">
          <div className="run-head__title">
            <a className="crumb" href={routeHref({ name: 'runs' })}>
              Runs
            </a>
            <h1 className="page__title">Starting run…</h1>
          </div>
        </header>
      )}

      <RunSpeechControl key={runId} runId={runId} running={run?.status === 'running' || run?.status === 'waiting'} events={events} />

      {run?.task && (
        <section className="task" aria-label="Task">
          <span className="task__label">Task</span>
          <p className="task__text">{run.task}</p>
        </section>
      )}

      <div className="tabs" role="tablist" aria-label="Run views">
        {isWorkflow ? (
          <a role="tab" aria-selected={tab === 'nodes' || tab === 'rounds'} className="tab" href={routeHref({ name: 'run', runId, tab: 'nodes' })} data-testid="nodes-tab">
            Nodes <span className="tab__count">{invocationCount}</span>
          </a>
        ) : (
          <a role="tab" aria-selected={tab === 'rounds'} className="tab" href={routeHref({ name: 'run', runId, tab: 'rounds' })}>
            Rounds <span className="tab__count">{roundCount}</span>
          </a>
        )}
        <a role="tab" aria-selected={tab === 'trace'} className="tab" href={routeHref({ name: 'run', runId, tab: 'trace' })} data-testid="trace-tab">
          Trace <span className="tab__count">{events.length}</span>
        </a>
        <a role="tab" aria-selected={tab === 'privacy'} className="tab" href={routeHref({ name: 'run', runId, tab: 'privacy' })} data-testid="privacy-tab" title="Which model saw which data, call by call">
          Privacy <span className="tab__count">{modelCalls}</span>
        </a>
      </div>

      <HeldRunNotice state={held.state} expected={run?.event_count} retry={held.retry} />

      {tab !== 'trace' && tab !== 'privacy' && <RunCostPanel events={events} />}

      {tab === 'privacy' ? (
        <PrivacyPanel events={events} />
      ) : tab === 'trace' ? (
        <TraceList events={events} focusSeq={focusEvent} />
      ) : events.some((e) => e.type === 'trial.started') ? (
        <TrialRunPanel events={events} {...(facts.started?.replay_of ? { replayOf: facts.started.replay_of } : {})} />
      ) : isWorkflow ? (
        <WorkflowRunBody runId={runId} run={run} events={events} focusNode={focusNode} />
      ) : (
        <>
          {facts.started?.replay_of && <DifferencesPanel replayOf={facts.started.replay_of} events={events} live={!run || run.status === 'running' || run.status === 'waiting'} />}
          <RunRounds runId={runId} run={run} events={events} />
        </>
      )}
    </div>
  );
}

/**
 * While nothing else has happened since, the run's latest notice (a server still listing its tools,
 * a model call retried after a 429) says why it seems quiet.
 */
function LiveNotice({ events }: { events: RunEvent[] }) {
  const last = events.at(-1);
  if (!last || (last.type !== 'run.notice' && last.type !== 'model.retry')) return null;
  const text = last.type === 'run.notice' ? last.message : `The ${last.role} model is asked again (retry ${last.attempt}, in ${Math.round(last.delay_ms / 100) / 10} s): ${last.reason}`;
  return (
    <div className="empty empty--inline" role="status" data-testid="run-notice">
      <Spinner /> {text}
    </div>
  );
}
