import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import { FINAL_INVOCATION_STATUSES, INVOCATION_STATUSES } from '@shared/workflow/invocation';
import type { RowInvocationStatus } from '@shared/history/run-summary';
import { NODE_KIND_LABELS } from '@shared/workflow/ports';
import { STORED_TEXT_LIMIT_BYTES } from '@shared/util/trim-text';
import type { RunRow } from '../../db/db';
import { deriveInvocations, invocationLabel, nodeStates, type InvocationView } from '../../db/derive-invocations';
import { deriveRounds } from '../../db/derive-rounds';
import { deriveRunFacts } from '../../db/run-facts';
import { describeModelUsage, modelUsageByInvocation, type ModelUsageTotals } from '../../db/model-usage';
import { Spinner } from '../../components/Icons';
import { formatDuration, plural } from '../../view/format';
import { InterventionCard } from '../InterventionCard';
import { RoundCard } from '../RoundCard';
import { InvocationStatusChip } from './InvocationStatusChip';
import { MessageText } from './MessageText';
import { TakenRouteLine, TakenRouteTag } from './TakenRoute';
import { PatternTimeline } from './PatternTimeline';
import { ValuesList } from './ValueView';
import { focusTarget, stoppedByHostStop, workflowPending, type PendingQuestion } from './run-nodes';
import { ChildRuns } from './ChildRuns';
import { failureCodeWords } from '@shared/contracts/code-words';

/**
 * A workflow run's node invocations: each item under its iterate, a status per invocation, and on
 * opening one its inputs, outputs, failure and (for an agent node) its rounds. Questions a node
 * waits on come first, answerable here. `focusNode`: opened on that node (the editor's link).
 */
export function NodesPanel({ runId, run, events, hostPending, focusNode }: { runId: string; run: RunRow | undefined; events: RunEvent[]; hostPending: Intervention[] | undefined; focusNode?: string }) {
  const invocations = useMemo(() => deriveInvocations(events), [events]);
  const facts = useMemo(() => deriveRunFacts(events), [events]);
  const usage = useMemo(() => modelUsageByInvocation(events), [events]);
  const pending = workflowPending(invocations, hostPending, runId, facts.answeredIds, facts.finished);
  const stopped = useMemo(() => stoppedByHostStop(events), [events]);
  // A node a host stop stopped is not running: it waits to start again on the answer (said above the question).
  const shown = useMemo(() => (stopped.size === 0 ? invocations : invocations.map((v) => (stopped.has(v.id) ? { ...v, status: 'pending' as const } : v))), [invocations, stopped]);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const listRef = useRef<HTMLOListElement>(null);
  const focusedFor = useRef<string | undefined>(undefined);

  /** Opens an invocation and moves the keyboard focus to it. */
  const reveal = useCallback((id: string) => {
    setOpen((prev) => new Set(prev).add(id));
    const button = listRef.current?.querySelector<HTMLElement>(`[data-invocation-id="${CSS.escape(id)}"] .node-inv__toggle`);
    button?.scrollIntoView({ block: 'center' });
    button?.focus({ preventScroll: true });
  }, []);

  // Opened on a node: once its invocations are in (the events arrive live), open the one to look at.
  const target = focusNode === undefined ? undefined : focusTarget(invocations, focusNode);
  useEffect(() => {
    if (focusNode === undefined || target === undefined || focusedFor.current === focusNode) return;
    focusedFor.current = focusNode;
    reveal(target);
  }, [focusNode, target, reveal]);

  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const live = !run || run.status === 'running' || run.status === 'waiting';

  return (
    <div className="nodes-panel" data-testid="nodes-panel">
      {pending.map((p) => (
        <PendingNode
          key={p.intervention.id}
          question={p}
          events={events}
          othersRunning={shown.some((v) => v.status === 'running')}
          stopped={invocations.filter((v) => stopped.has(v.id))}
          onShow={p.invocation ? () => reveal(p.invocation?.id ?? '') : undefined}
        />
      ))}
      {focusNode !== undefined && target === undefined && invocations.length > 0 && (
        <p className="muted" role="note" data-testid="nodes-focus-missing">
          The node <code>{focusNode}</code> has not run in this run.
        </p>
      )}
      <NodeCounts invocations={shown} />
      {invocations.length === 0 ? (
        live ? (
          <div className="empty empty--inline" data-testid="nodes-waiting">
            <Spinner /> Waiting for the first node…
          </div>
        ) : (
          <p className="muted" data-testid="nodes-empty">
            This run recorded no node invocations.
          </p>
        )
      ) : (
        <ol className="node-invs" ref={listRef} data-testid="nodes-list" aria-label="Node invocations">
          {shown.map((view) => (
            <InvocationRow key={view.id} view={view} open={open.has(view.id)} focused={view.node === focusNode} onToggle={() => toggle(view.id)} events={events} usage={usage.get(view.id)} />
          ))}
        </ol>
      )}
    </div>
  );
}

/** "9 invocations: 8 done · 1 failed". */
function NodeCounts({ invocations }: { invocations: readonly InvocationView[] }) {
  if (invocations.length === 0) return null;
  const counts = new Map(SHOWN_STATUSES.map((s) => [s, invocations.filter((v) => shownStatus(v) === s).length]));
  const nodes = Object.keys(nodeStates(invocations)).length;
  return (
    <p className="node-counts" data-testid="node-counts">
      <span className="muted">
        {plural(nodes, 'node')} · {plural(invocations.length, 'invocation')}:
      </span>{' '}
      {SHOWN_STATUSES.filter((s) => (counts.get(s) ?? 0) > 0).map((s) => (
        <InvocationStatusChip key={s} status={s} count={counts.get(s)} />
      ))}
    </p>
  );
}

const SHOWN_STATUSES: readonly RowInvocationStatus[] = [...INVOCATION_STATUSES, 'declined'];

/** A cut-off invocation counts as cancelled (as nodeStates counts it for the editor); a call the person declined as declined, not failed (as the Runs row counts it). */
function shownStatus(view: InvocationView): RowInvocationStatus {
  if (view.cut_off) return 'cancelled';
  return view.status === 'failed' && view.failure?.code === 'declined_by_person' ? 'declined' : view.status;
}

function PendingNode({ question, events, othersRunning, stopped, onShow }: { question: PendingQuestion; events: RunEvent[]; othersRunning: boolean; stopped: readonly InvocationView[]; onShow?: () => void }) {
  const { intervention, invocation } = question;
  const tools = useMemo(() => {
    const rounds = deriveRounds(events, invocation?.id);
    return (rounds.find((r) => r.round === intervention.round) ?? rounds.at(-1))?.snapshot?.tools ?? lastSnapshot(events, invocation?.id);
  }, [events, invocation?.id, intervention.round]);
  return (
    <div className="pending-node" data-testid="pending-node" data-invocation-id={invocation?.id}>
      <p className="pending-node__who">
        {invocation ? (
          <>
            <strong>{invocationLabel(invocation)}</strong> asks you
            {onShow && (
              <>
                {' '}
                ·{' '}
                <button type="button" className="link-button" onClick={onShow}>
                  Show the node
                </button>
              </>
            )}
          </>
        ) : (
          <strong>A node of this workflow asks you</strong>
        )}
      </p>
      {othersRunning && (
        <p className="muted" role="note" data-testid="pending-node-others-running">
          Other nodes of this run are still running; your answer does not wait for them.
        </p>
      )}
      {stopped.length > 0 && (
        <p className="muted" role="note" data-testid="pending-node-stopped">
          The host stopped while this run waited for you, and {stopped.map(invocationLabel).join(', ')} {stopped.length === 1 ? 'was' : 'were'} stopped with it: {stopped.length === 1 ? 'it starts' : 'they start'} again once you answer (a tool call already made is not made again).
        </p>
      )}
      <InterventionCard intervention={intervention} tools={tools} />
    </div>
  );
}

/** A tool node has no rounds: its one call was validated against the run's snapshot. */
function lastSnapshot(events: readonly RunEvent[], invocation: string | undefined) {
  const snapshots = events.filter((e) => e.type === 'tools.snapshot');
  const mine = snapshots.filter((e) => e.invocation_id === invocation);
  const last = (mine.length > 0 ? mine : snapshots).at(-1);
  return last?.type === 'tools.snapshot' ? last.tools : undefined;
}

function InvocationRow({ view, open, focused, onToggle, events, usage }: { view: InvocationView; open: boolean; focused: boolean; onToggle: () => void; events: RunEvent[]; usage?: ModelUsageTotals }) {
  const bodyId = useId();
  const modelUse = usage ? describeModelUsage(usage) : undefined;
  const took = view.started_at ? formatDuration(view.started_at, view.finished_at) : undefined;
  const kind = view.kind && view.kind in NODE_KIND_LABELS ? NODE_KIND_LABELS[view.kind as keyof typeof NODE_KIND_LABELS] : view.kind;
  return (
    <li
      className={`node-inv node-inv--${shownStatus(view)} ${open ? 'node-inv--open' : ''} ${focused ? 'node-inv--focused' : ''}`}
      style={{ ['--depth' as string]: view.depth }}
      data-testid="node-invocation"
      data-invocation-id={view.id}
      data-node={view.node}
      data-status={view.status}
    >
      <button type="button" className="node-inv__toggle" aria-expanded={open} aria-controls={bodyId} onClick={onToggle} title={view.id}>
        <span className="accordion__chevron" aria-hidden="true">
          ▸
        </span>
        <span className="node-inv__label">{invocationLabel(view)}</span>
        {kind && <span className="tag">{kind}</span>}
        {view.cut_off ? (
          <span className="chip chip--neutral chip--status" data-status="cut_off" title={`It was ${view.status} when the run ended`}>
            Cut off
          </span>
        ) : (
          <InvocationStatusChip status={shownStatus(view)} />
        )}
        {view.agent?.route && <TakenRouteTag route={view.agent.route} />}
        <span className="round__spacer" />
        {view.kind === 'agent' && <span className="muted">{plural(view.rounds, 'round')}</span>}
        {/* A streaming tool node calls its tool once per element, each call its own round. */}
        {view.kind === 'tool' && view.rounds > 1 && (
          <span className="muted" data-testid="node-tool-calls">
            {plural(view.rounds, 'call')}
          </span>
        )}
        {modelUse && (
          <span className="muted nowrap" data-testid="node-model-usage" title="Tokens the model servers reported for this node, and the time spent waiting for their answers">
            {modelUse}
          </span>
        )}
        {took && <span className="muted nowrap">{took}</span>}
      </button>
      {open && (
        <div id={bodyId} className="node-inv__body" data-testid="node-invocation-body">
          <InvocationDetails view={view} events={events} />
        </div>
      )}
    </li>
  );
}

export function InvocationDetails({ view, events }: { view: InvocationView; events: RunEvent[] }) {
  // A tool node's call went through the boundary as one round (validation, review, execution).
  const isAgent = view.kind === 'agent';
  // A pattern node shows its iterations and judgments instead (its answered judgments are not a round's).
  const hasRounds = view.kind !== 'pattern' && (isAgent || view.rounds > 0);
  const rounds = useMemo(() => (hasRounds ? deriveRounds(events, view.id) : []), [hasRounds, events, view.id]);
  const dryRun = useMemo(() => events.some((e) => e.type === 'agent.started' && e.invocation_id === view.id && e.dry_run), [events, view.id]);
  // Ended (final, or cut off when the run ended around it): nothing of it shows as still going on (issue 28).
  const ended = view.cut_off === true || FINAL_INVOCATION_STATUSES.some((s) => s === view.status);
  return (
    <div className="steps">
      {view.failure && (
        <div className="step">
          <div className="step__label">Why it {view.status === 'skipped' ? 'was skipped' : view.status === 'cancelled' ? 'was cancelled' : view.failure.code === 'declined_by_person' ? 'did not run' : 'failed'}</div>
          <div className="step__body" data-testid="node-failure">
            {/* A declined call's message says it all ("you declined fs/write_file: …"): no tag repeating it. */}
            {view.failure.code === 'declined_by_person' ? null : (
              <>
                <span className={view.failure.code === 'route_not_taken' ? 'tag' : 'tag tag--bad'} title={view.failure.code} data-code={view.failure.code}>
                  {failureCodeWords(view.failure.code)}
                </span>{' '}
              </>
            )}
            <MessageText text={view.failure.message} />
          </div>
        </div>
      )}
      {view.trimmed && (
        <div className="step">
          <div className="step__label">Stored trimmed</div>
          <div className="step__body" data-testid="node-trimmed">
            The host keeps the first {STORED_TEXT_LIMIT_BYTES / 1024} KiB of each long text:{' '}
            {view.trimmed.map((t) => (
              <span key={t.path} className="tag">
                {t.path} was {t.original_bytes.toLocaleString()} bytes
              </span>
            ))}
          </div>
        </div>
      )}
      {view.status === 'waiting' && !ended && (
        <div className="step">
          <div className="step__label">Waiting</div>
          <div className="step__body">This node waits for your answer: see “Waiting for you” at the top.</div>
        </div>
      )}
      {view.agent?.route && (
        <div className="step">
          <div className="step__label">Route</div>
          <div className="step__body">
            <TakenRouteLine route={view.agent.route} />
          </div>
        </div>
      )}
      <div className="step">
        <div className="step__label">Inputs</div>
        <div className="step__body">{view.inputs ? <ValuesList values={view.inputs} testId="node-inputs" /> : <span className="muted">Not started yet.</span>}</div>
      </div>
      {(view.outputs || view.status === 'done') && (
        <div className="step">
          <div className="step__label">Outputs</div>
          <div className="step__body">
            <ValuesList values={view.outputs ?? {}} testId="node-outputs" />
          </div>
        </div>
      )}
      <ChildRuns events={events} invocationId={view.id} />
      {view.kind === 'pattern' && (
        <div className="step">
          <div className="step__label">Iterations</div>
          <div className="step__body">
            <PatternTimeline events={events} invocationId={view.id} />
          </div>
        </div>
      )}
      {hasRounds && (
        <div className="step">
          <div className="step__label">{isAgent ? 'Rounds' : 'The call'}</div>
          <div className="step__body rounds" data-testid="node-rounds">
            {view.agent?.message && <p className="muted">The agent ended {view.agent.status}: {view.agent.message}</p>}
            {rounds.length === 0 ? (
              <p className="muted">{view.status === 'running' && !ended ? 'Waiting for the first round…' : 'No rounds recorded.'}</p>
            ) : (
              rounds.map((round) => <RoundCard key={round.round} view={round} dryRun={dryRun} ended={ended} />)
            )}
          </div>
        </div>
      )}
    </div>
  );
}
