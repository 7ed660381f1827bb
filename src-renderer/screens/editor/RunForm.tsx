import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { ProviderStatus } from '@shared/contracts/host-api';
import type { ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import type { InputField } from '@shared/workflow/document';
import { useHost } from '../../app/HostProvider';
import { Spinner } from '../../components/Icons';
import type { ProfileRow } from '../../db/db';
import { latestOfEach, profileLabel, refOf } from '../../db/profiles';
import { runInputs, type RawInput } from './run-inputs';
import { runFieldLabel } from './run-field-label';

/** The trace profile a run gets: none chosen here means the one the workflow's own choices name on the host. */
export interface RunTrace {
  trace: TraceSettings;
  trace_profile: ProfileVersionRef;
}

const retentionText = (t: TraceSettings) =>
  [t.retention_days !== undefined ? `deleted ${t.retention_days} days after it ends` : '', t.retention_runs !== undefined ? `newest ${t.retention_runs} runs kept` : ''].filter(Boolean).join(', ') || 'kept forever';

/** The Run form's trace profile choices: each trace profile at its newest version, saying what it keeps and for how long. */
export function traceChoices(rows: readonly ProfileRow[]): Array<{ key: string; label: string; chosen: RunTrace }> {
  return latestOfEach(rows).flatMap((p) =>
    p.kind === 'trace' ? [{ key: `${p.id}@${p.version}`, label: `${profileLabel(p)} — ${retentionText(p.trace)}`, chosen: { trace: p.trace, trace_profile: refOf(p) } }] : [],
  );
}

const initial = (f: InputField): RawInput => (f.type === 'boolean' ? f.default === true : f.default === undefined ? '' : typeof f.default === 'string' && f.type === 'text' ? f.default : JSON.stringify(f.default));

/** A field's label: its name, and in brackets only what helps (see runFieldLabel). */
function RunFieldLabel({ field }: { field: InputField }) {
  const { name, note } = runFieldLabel(field);
  return (
    <>
      {name}
      {note && <span className="muted"> ({note})</span>}
    </>
  );
}

/** The model providers as the host finds them now: asked when the form opens and on "Check again". */
function useProvidersNow(): { providers?: ProviderStatus; checking: boolean; check: () => void } {
  const { client, refreshProviders } = useHost();
  const [state, setState] = useState<{ providers?: ProviderStatus; checking: boolean }>({ checking: true });
  // A host that cannot say leaves nothing known to be down: the run's own start says the rest.
  const ask = useCallback(
    () =>
      client.request('providers.status', {}).then(
        (providers) => setState({ providers, checking: false }),
        () => setState((s) => ({ ...s, checking: false })),
      ),
    [client],
  );
  // The sidebar's Model providers is asked again too: it says the same as the form.
  useEffect(() => {
    void ask();
    refreshProviders();
  }, [ask, refreshProviders]);
  const check = () => {
    setState((s) => ({ ...s, checking: true }));
    void ask();
    refreshProviders();
  };
  return { ...state, check };
}

/**
 * The run's inputs, one control per field of the input node by its type: text, a number, a
 * checkbox, JSON for lists and objects. `start` saves and runs; it answers an error to show, if any.
 * `blockedBy` says why the workflow cannot run as it is (its problems: opened by a Run link before
 * the editor's check said so), `providerProblem` why its models cannot answer now (Ollama down): the form
 * says so before anything starts, and Start waits for "Check again". Escape closes it.
 */
export function RunForm({
  fields,
  start,
  close,
  providerProblem,
  blockedBy,
}: {
  fields: readonly InputField[];
  start: (inputs: Record<string, unknown>, trace?: RunTrace) => Promise<string | undefined>;
  close: () => void;
  providerProblem?: (providers: ProviderStatus | undefined) => string | undefined;
  blockedBy?: string;
}) {
  const id = useId();
  const { db } = useHost();
  const now = useProvidersNow();
  // While it checks again, what the last answer said stays (and its Check again button keeps the focus).
  const providersDown = now.checking && now.providers === undefined ? undefined : providerProblem?.(now.providers);
  const down = blockedBy ?? providersDown;
  const blocked = now.checking || down !== undefined;
  const traceProfiles = traceChoices(useLiveQuery(() => db.profiles.where('kind').equals('trace').toArray(), [db]) ?? []);
  const [traceKey, setTraceKey] = useState('');
  const [raw, setRaw] = useState<Record<string, RawInput>>(() => Object.fromEntries(fields.map((f) => [f.name, initial(f)])));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // Escape closes the form wherever the focus is (a dialog's way).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape' && !busy) close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy, close]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (blocked || busy) return;
    const out = runInputs(fields, raw);
    if (!out.ok) {
      setErrors(out.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    setError(await start(out.inputs, traceProfiles.find((p) => p.key === traceKey)?.chosen));
    setBusy(false);
  };

  return (
    <div className="wf-dialog-backdrop">
      <form className="wf-dialog card" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)} data-testid="run-form">
        <h2 id={`${id}-title`} className="wf-dialog__title">
          Run the workflow
        </h2>
        {fields.length === 0 && <p className="muted">It has no input node: it runs without inputs.</p>}
        {fields.map((f, i) => {
          const fid = `${id}-${f.name}`;
          const value = raw[f.name];
          const set = (v: RawInput) => setRaw((r) => ({ ...r, [f.name]: v }));
          return (
            <div key={f.name} className={`form-row ${errors[f.name] ? 'form-row--issue' : ''}`}>
              <label className="form-row__label" htmlFor={fid}>
                <RunFieldLabel field={f} />
              </label>
              <div className="form-row__control">
                {f.type === 'boolean' ? (
                  <input id={fid} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} data-testid={`run-input-${f.name}`} autoFocus={i === 0} />
                ) : f.type === 'text' || f.type === 'number' ? (
                  <input id={fid} className="input" inputMode={f.type === 'number' ? 'decimal' : undefined} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.target.value)} data-testid={`run-input-${f.name}`} autoFocus={i === 0} aria-invalid={errors[f.name] !== undefined} />
                ) : (
                  <textarea id={fid} className="input input--area wf-json" rows={3} spellCheck={false} placeholder={f.type === 'list' ? '["a", "b"]' : f.type === 'object' ? '{"key": "value"}' : 'JSON: "text", 3, [..], {..}'} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.target.value)} data-testid={`run-input-${f.name}`} autoFocus={i === 0} aria-invalid={errors[f.name] !== undefined} />
                )}
                {f.description && <p className="form-row__hint">{f.description}</p>}
                {errors[f.name] && <p className="form-row__issue">{errors[f.name]}</p>}
              </div>
            </div>
          );
        })}
        <div className="form-row">
          <label className="form-row__label" htmlFor={`${id}-trace`}>
            Trace profile
          </label>
          <div className="form-row__control">
            <select id={`${id}-trace`} className="select" value={traceKey} onChange={(e) => setTraceKey(e.target.value)} data-testid="run-trace-profile">
              <option value="">The workflow’s own choice</option>
              {traceProfiles.map((p) => (
                <option key={p.key} value={p.key}>
                  {p.label}
                </option>
              ))}
            </select>
            <p className="form-row__hint">What the run’s trace keeps, and when the host deletes it (never while it runs or waits for you).</p>
          </div>
        </div>
        {down !== undefined && (
          <div className="notice notice--error wf-run-provider" role="alert" data-testid="run-provider-problem">
            <p id={`${id}-down`}>Not started: {down}</p>
            {blockedBy === undefined && (
              <button type="button" className="button button--small" onClick={() => !now.checking && now.check()} aria-busy={now.checking} data-testid="run-check-again">
                {now.checking ? 'Checking…' : 'Check again'}
              </button>
            )}
          </div>
        )}
        {error && (
          <p className="error" role="alert" data-testid="run-error">
            {error}
          </p>
        )}
        <div className="wf-dialog__actions">
          <button type="button" className="button" onClick={close} data-testid="run-form-cancel">
            Cancel
          </button>
          <button
            type="submit"
            className="button button--primary"
            disabled={busy}
            aria-disabled={blocked}
            aria-describedby={down !== undefined ? `${id}-down` : undefined}
            title={down ?? (now.checking ? 'Checking that its models answer…' : undefined)}
            // With no input to type, the focus starts here (inside the dialog, not behind it).
            autoFocus={fields.length === 0}
            data-testid="run-start"
          >
            {busy || now.checking ? <Spinner /> : <span aria-hidden="true">▶</span>}
            {busy ? 'Starting…' : now.checking ? 'Checking its models…' : 'Save and run'}
          </button>
        </div>
      </form>
    </div>
  );
}
