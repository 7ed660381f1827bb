import { useMemo, useState, type FormEvent } from 'react';
import { MessageText } from '../run/MessageText';
import { useLiveQuery } from 'dexie-react-hooks';
import type { ModelPrice } from '@shared/supervisor/contracts';
import type { PriceList } from '@shared/accounting/price-list';
import { useHost } from '../../app/HostProvider';
import { savePriceList, usePriceList } from '../costs/use-price-list';
import '../costs/costs.css';

type Row = { label: string; input: string; output: string };

const toRows = (prices: PriceList): Row[] =>
  Object.entries(prices)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, p]) => ({ label, input: String(p.input_per_mtok_usd), output: String(p.output_per_mtok_usd) }));

/** A dollar amount a person typed, or why not. */
function amount(text: string): number | string {
  const n = Number(text.trim().replace(/^\$/, ''));
  return text.trim() === '' || !Number.isFinite(n) || n < 0 ? `“${text}” is not an amount in dollars (e.g. 2.5)` : n;
}

/**
 * The price list (issue 31): dollars per million input and output tokens for each model, by the
 * label runs record ("api.openai.com:gpt-4o", "ollama:qwen3:4b"). Runs, the run report, the Runs
 * list, `steward run --json`, OTLP and the workflow supervisor's cost cap all price with it.
 */
export function PricesSection() {
  const { client, db } = useHost();
  const { prices, loaded, problem } = usePriceList();
  // The person's edits, until saved; before any, the list as the host keeps it.
  const [draft, setDraft] = useState<Row[]>();
  const rows = useMemo(() => draft ?? toRows(prices), [draft, prices]);
  const edited = draft !== undefined;
  const [status, setStatus] = useState<{ kind: 'info' | 'error'; text: string }>();
  const [busy, setBusy] = useState(false);
  // The models this browser's runs used: offered when adding one.
  const seen = useLiveQuery(async () => {
    const labels = new Set<string>();
    await db.runs.each((r) => {
      for (const m of [r.models.student, r.models.teacher]) if (m && m !== '?' && m !== '—' && m !== 'per node') labels.add(m);
    });
    return [...labels].sort();
  }, [db]);
  const unpriced = useMemo(() => (seen ?? []).filter((m) => !rows.some((r) => r.label === m)), [seen, rows]);

  const change = (i: number, field: keyof Row, value: string) => {
    setStatus(undefined);
    setDraft(rows.map((r, j) => (j === i ? { ...r, [field]: value } : r)));
  };
  const add = (label = '') => {
    setDraft([...rows, { label, input: '', output: '' }]);
  };
  const remove = (i: number) => {
    setDraft(rows.filter((_, j) => j !== i));
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const next = new Map<string, ModelPrice>();
    for (const r of rows) {
      const label = r.label.trim();
      if (label === '') continue;
      const input = amount(r.input);
      const output = amount(r.output);
      if (typeof input === 'string' || typeof output === 'string') {
        setStatus({ kind: 'error', text: `Not saved: ${label}: ${typeof input === 'string' ? input : output}.` });
        return;
      }
      if (next.has(label)) {
        setStatus({ kind: 'error', text: `Not saved: ${label} is listed twice.` });
        return;
      }
      next.set(label, { input_per_mtok_usd: input, output_per_mtok_usd: output });
    }
    setBusy(true);
    try {
      await savePriceList(client, Object.fromEntries(next));
      setDraft(undefined);
      setStatus({ kind: 'info', text: `Saved. ${next.size === 1 ? '1 model is' : `${next.size} models are`} priced; runs and reports use the new prices now.` });
    } catch (err) {
      setStatus({ kind: 'error', text: `Not saved: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card settings-section" aria-labelledby="prices-title" data-testid="prices-section">
      <h2 id="prices-title" className="settings-section__title">
        Model prices
      </h2>
      <p className="settings-section__intro">
        What each model costs, in dollars per million tokens. The run report, the Runs list and <code>steward run --json</code> price a run’s supervision with it, and a workflow supervisor’s cost
        cap keeps to it. Models on this machine (Ollama, a local server, replay) cost $0 unless you price them here; a model on another host that is not listed is an unknown cost, never $0.
      </p>
      {problem && (
        <div className="error" role="alert" data-testid="prices-problem">
          <MessageText text={problem} />
        </div>
      )}
      {!loaded ? (
        <p className="muted">Loading…</p>
      ) : (
        <form onSubmit={(e) => void save(e)}>
          <table className="table table--compact" data-testid="prices-table">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col" className="num">
                  Input $ / M tokens
                </th>
                <th scope="col" className="num">
                  Output $ / M tokens
                </th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 && (
                <tr>
                  <td colSpan={4} className="muted">
                    No model is priced yet.
                  </td>
                </tr>
              )}
              {rows.map((r, i) => (
                <tr key={i} data-testid="price-row">
                  <td>
                    <input className="input" list="prices-known-models" aria-label="Model label" placeholder="provider:model" value={r.label} onChange={(e) => change(i, 'label', e.target.value)} data-testid="price-label" />
                  </td>
                  <td className="num">
                    <input className="input input--number" inputMode="decimal" aria-label={`Input price of ${r.label || 'this model'} per million tokens`} value={r.input} onChange={(e) => change(i, 'input', e.target.value)} data-testid="price-input" />
                  </td>
                  <td className="num">
                    <input className="input input--number" inputMode="decimal" aria-label={`Output price of ${r.label || 'this model'} per million tokens`} value={r.output} onChange={(e) => change(i, 'output', e.target.value)} data-testid="price-output" />
                  </td>
                  <td>
                    <button type="button" className="button button--small" onClick={() => remove(i)} aria-label={`Remove ${r.label || 'this row'}`}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <datalist id="prices-known-models">
            {unpriced.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          <div className="prices-actions">
            <button type="button" className="button" onClick={() => add()} data-testid="price-add">
              Add a model
            </button>
            {unpriced.slice(0, 3).map((m) => (
              <button key={m} type="button" className="button" onClick={() => add(m)} title="A model your runs used that has no price">
                Add a price for <code>{m}</code>
              </button>
            ))}
            <button type="submit" className="button button--primary" disabled={busy || !edited} data-testid="prices-save">
              Save prices
            </button>
          </div>
          {status && (
            <p className={status.kind === 'error' ? 'error' : 'muted'} role={status.kind === 'error' ? 'alert' : 'status'} data-testid="prices-status">
              {status.text}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
