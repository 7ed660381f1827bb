import { useState, type FormEvent } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../../app/HostProvider';
import { BUDGET_LIMITS, heldFacts, openRuns, readBudget, trimToBudget, writeBudget } from '../../db/history-budget';
import { count, plural } from '../../view/format';

/** About what a demo event takes in IndexedDB with its indexes: for the size a person reads beside the number. */
const BYTES_PER_EVENT = 1_000;
const size = (events: number) => (events * BYTES_PER_EVENT >= 1e9 ? `${((events * BYTES_PER_EVENT) / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round((events * BYTES_PER_EVENT) / 1e6))} MB`);

/**
 * What this browser keeps of the host's history (issue 26): every run's row, and the events of recent and
 * opened runs up to a budget. Lowering it drops the events of the runs used longest ago at once.
 */
export function HistorySection() {
  const { db } = useHost();
  const budget = useLiveQuery(() => readBudget(db), [db]);
  const facts = useLiveQuery(() => heldFacts(db), [db]);
  const [input, setInput] = useState<string>();
  const [status, setStatus] = useState<{ kind: 'info' | 'error'; text: string }>();
  const [busy, setBusy] = useState(false);
  const value = input ?? (budget ? String(budget.events) : '');

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const events = Number(value.replace(/[\s,_]/g, ''));
    if (!Number.isInteger(events) || events < BUDGET_LIMITS.min || events > BUDGET_LIMITS.max) {
      setStatus({ kind: 'error', text: `Enter a whole number of events from ${count(BUDGET_LIMITS.min)} to ${count(BUDGET_LIMITS.max)}.` });
      return;
    }
    setBusy(true);
    // This browser may be indexing a large history: its writes go in turn, so say that it is under way.
    setStatus({ kind: 'info', text: 'Saving…' });
    try {
      await writeBudget(db, { events });
      // Kept at once; making room can wait behind this browser's indexing of a large history.
      setStatus({ kind: 'info', text: 'Saved. Making room for it in this browser…' });
      const dropped = await trimToBudget(db, { events }, openRuns());
      setInput(undefined);
      setStatus({
        kind: 'info',
        text: dropped.length > 0 ? `Saved. The events of ${plural(dropped.length, 'run')} used longest ago left this browser; they stay in the host's history and load when opened.` : 'Saved. Nothing had to leave this browser.',
      });
    } catch (err) {
      setStatus({ kind: 'error', text: `Not saved: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card settings-section" aria-labelledby="history-title" data-testid="history-section">
      <h2 id="history-title" className="settings-section__title">
        History in this browser
      </h2>
      <p className="settings-section__intro">
        The host's history database keeps every event of every run. This browser keeps a row for every run (the Runs list, its filters and search are always whole) and the events of the
        runs that ran recently or that you opened, up to the budget below. Opening any other run loads its events from the host.
      </p>
      <p data-testid="history-held">
        {facts === undefined
          ? 'Counting…'
          : `Now: ${plural(facts.runs, 'run')} listed; ${plural(facts.events, 'event')} kept here (about ${size(facts.events)}), of ${plural(facts.heldRuns, 'recent or opened run')}.`}
      </p>
      <form className="cred-form history-form" onSubmit={(e) => void save(e)}>
        <div className="field">
          <label className="field__label" htmlFor="history-budget">
            Keep at most this many events
          </label>
          <input
            id="history-budget"
            className="input"
            inputMode="numeric"
            value={value}
            onChange={(e) => setInput(e.target.value)}
            aria-describedby="history-budget-size"
            data-testid="history-budget"
          />
          <span id="history-budget-size" className="muted">
            {Number.isFinite(Number(value)) && Number(value) > 0 ? `about ${size(Number(value))}` : ''}
          </span>
        </div>
        <button type="submit" className="button" disabled={busy || input === undefined}>
          Save
        </button>
      </form>
      {status && (
        <p className={status.kind === 'error' ? 'error' : 'notice'} role={status.kind === 'error' ? 'alert' : 'status'} data-testid="history-budget-status">
          {status.text}
        </p>
      )}
    </section>
  );
}
