import { useCallback, useId, useState } from 'react';
import { INTERVENTION_KIND_LABELS } from '@shared/contracts/intervention';
import { Chip } from '../../components/Chip';
import { InterventionCard } from '../InterventionCard';
import { ServerAsks } from '../asks/ServerAskCard';
import { formatDateTime } from '../../view/format';
import { routeHref } from '../../app/routing';
import { useWaiting } from './use-waiting';
import { waitingHref, waitingLabel, type WaitingItem, type WaitingKind } from './waiting';

const KIND_LABELS = { ...INTERVENTION_KIND_LABELS, question: 'Question' } satisfies Record<WaitingKind, string>;

function InterventionRow({ item, openIn, onToggle }: { item: WaitingItem; openIn: ReadonlySet<string>; onToggle: (runId: string, open: boolean) => void }) {
  // A question that comes after one the person had open in the same run (a refused substitute, a
  // rejection's next question) opens where they left off, rather than as a closed row to find and
  // open again. Decided when the row appears, by its run (always known; its node may come later).
  const [open, setOpenState] = useState(() => openIn.has(item.run_id));
  const setOpen = (next: boolean) => {
    setOpenState(next);
    onToggle(item.run_id, next);
  };
  const panelId = useId();
  return (
    <li className="waiting-row" data-testid="intervention-row" data-run-id={item.run_id} data-kind={item.kind} data-node={item.node} data-member={item.member}>
      <div className="waiting-row__head">
        <span className="waiting-row__workflow">{item.workflow_name}</span>
        {item.node !== undefined && (
          <span className="waiting-row__node">
            node <code>{item.node}</code>
            {item.member !== undefined && (
              <>
                {' › '}member <code>{item.member}</code> asks
              </>
            )}
          </span>
        )}
        <Chip tone="escalated">{KIND_LABELS[item.kind]}</Chip>
        <span className="round__spacer" />
        <time className="muted" dateTime={item.since} title={item.since}>
          since {formatDateTime(item.since)}
        </time>
      </div>
      <p className="waiting-row__asks">{item.asks}</p>
      <div className="waiting-row__actions">
        {item.intervention && (
          <button type="button" className="button button--primary" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)} data-testid="intervention-answer-here">
            Answer here
          </button>
        )}
        <a className="button" href={waitingHref(item)} data-testid="intervention-open">
          {item.node !== undefined ? 'Open the node in its run' : 'Open the run'}
        </a>
      </div>
      {/* Always there, so the button's aria-controls names an element; the card is built when opened. */}
      <div id={panelId} className="waiting-row__card" hidden={!open}>
        {open && item.intervention && <InterventionCard intervention={item.intervention} />}
      </div>
    </li>
  );
}

/** Every question waiting for a person, oldest first. `asks`: server questions shown above it (then it is not "nothing"). */
export function InterventionsList({ items, asks = 0 }: { items: readonly WaitingItem[]; asks?: number }) {
  // The runs whose question the person last had open here.
  const [openIn, setOpenIn] = useState<ReadonlySet<string>>(() => new Set());
  const onToggle = useCallback((runId: string, open: boolean) => {
    setOpenIn((was) => {
      const next = new Set(was);
      if (open) next.add(runId);
      else next.delete(runId);
      return next;
    });
  }, []);
  if (items.length === 0 && asks > 0) return null;
  if (items.length === 0) {
    return (
      <div className="empty" data-testid="interventions-empty">
        <h2>Nothing waits for you.</h2>
        <p>
          When a teacher escalates a decision, a tool asks for input or a workflow’s supervisor needs you, the question appears here and its run pauses until you answer. Run the Ask a human demo
          on <a href={routeHref({ name: 'workflows' })}>Workflows</a> to see one.
        </p>
      </div>
    );
  }
  return (
    <ul className="waiting-list" aria-label="Questions waiting for you">
      {items.map((item) => (
        <InterventionRow key={item.key} item={item} openIn={openIn} onToggle={onToggle} />
      ))}
    </ul>
  );
}

/** "Waiting for you" across all runs: answer here, or open the run (or the node) that asks. */
export function InterventionsScreen() {
  const { items, asks, count } = useWaiting();
  return (
    <div className="page" data-testid="interventions-view">
      <header className="page__head">
        <div>
          <h1 className="page__title">Waiting for you</h1>
          <p className="page__subtitle" role="status">
            {waitingLabel(count)}. A run stays paused at its question, also across restarts, until you answer.
          </p>
        </div>
      </header>
      <ServerAsks />
      <InterventionsList items={items} asks={asks.length} />
    </div>
  );
}
