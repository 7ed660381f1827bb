import { RUN_STATUSES, RUN_STATUS_LABELS, RunStatus } from '@shared/contracts/events';
import type { WorkflowChoice } from './filter-workflows';
import { NO_FILTER, ORIGIN_LABELS, PROVIDER_LABELS, RunFilter, RunSort } from './run-filter';

/** The runs list's filter bar: every control edits one field of `filter`; its state lives in RunsScreen. */
export function RunFilters({ filter, onChange, workflows }: { filter: RunFilter; onChange: (f: RunFilter) => void; workflows: readonly WorkflowChoice[] }) {
  const set = (patch: Partial<RunFilter>) => {
    const next: RunFilter = { ...filter, ...patch };
    // An emptied control removes its field, so "All …" narrows nothing.
    for (const key of ['status', 'workflowId', 'supervision', 'provider', 'origin', 'fromDay', 'toDay'] as const) if (next[key] === undefined || next[key] === '') delete next[key];
    onChange(next);
  };
  return (
    <div className="filters" role="group" aria-label="Filter runs">
      <label className="field field--wide">
        <span className="field__label">Search</span>
        <input className="input" type="search" placeholder="Task, output, explanation, argument or run id" value={filter.text} onChange={(e) => set({ text: e.target.value })} data-testid="runs-search" />
      </label>
      <label className="field">
        <span className="field__label">Status</span>
        <select className="select" value={filter.status ?? ''} onChange={(e) => set({ status: e.target.value === '' ? undefined : RunStatus.parse(e.target.value) })} data-testid="runs-filter-status">
          <option value="">All statuses</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {RUN_STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field__label">Workflow</span>
        <select className="select" value={filter.workflowId ?? ''} onChange={(e) => set({ workflowId: e.target.value || undefined })} data-testid="runs-filter-workflow">
          <option value="">All workflows</option>
          {workflows.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field__label">Supervision</span>
        <select
          className="select"
          value={filter.supervision ?? ''}
          onChange={(e) => set({ supervision: e.target.value === 'supervised' || e.target.value === 'unsupervised' ? e.target.value : undefined })}
          data-testid="runs-filter-supervision"
        >
          <option value="">Supervised or not</option>
          <option value="supervised">Supervised</option>
          <option value="unsupervised">Unsupervised</option>
        </select>
      </label>
      <ChoiceFilter label="Provider" any="Any provider" labels={PROVIDER_LABELS} value={filter.provider} onPick={(v) => set({ provider: v === '' ? undefined : RunFilter.shape.provider.parse(v) })} testId="runs-filter-provider" />
      <ChoiceFilter label="Came from" any="Anywhere" labels={ORIGIN_LABELS} value={filter.origin} onPick={(v) => set({ origin: v === '' ? undefined : RunFilter.shape.origin.parse(v) })} testId="runs-filter-origin" />
      <label className="field">
        <span className="field__label">Started from</span>
        <input className="input" type="date" value={filter.fromDay ?? ''} onChange={(e) => set({ fromDay: e.target.value || undefined })} data-testid="runs-filter-from" />
      </label>
      <label className="field">
        <span className="field__label">to</span>
        <input className="input" type="date" value={filter.toDay ?? ''} onChange={(e) => set({ toDay: e.target.value || undefined })} data-testid="runs-filter-to" />
      </label>
      <label className="field">
        <span className="field__label">Sort</span>
        <select className="select" value={filter.sort} onChange={(e) => set({ sort: RunSort.parse(e.target.value) })} data-testid="runs-sort">
          <option value="newest">Newest first</option>
          <option value="oldest">Oldest first</option>
        </select>
      </label>
      <label className="field field--check">
        <span className="field__label">Waiting for you</span>
        <span className="field__check">
          <input type="checkbox" checked={filter.waitingForYou} onChange={(e) => set({ waitingForYou: e.target.checked })} data-testid="runs-filter-waiting" />
          Only runs that wait
        </span>
      </label>
      <button type="button" className="button button--small" onClick={() => onChange({ ...NO_FILTER, sort: filter.sort })} data-testid="runs-clear-filters">
        Clear filters
      </button>
    </div>
  );
}

/** A select over a filter's labelled choices, "any" first (the empty value). */
function ChoiceFilter({ label, any, labels, value, onPick, testId }: { label: string; any: string; labels: Readonly<Record<string, string>>; value: string | undefined; onPick: (value: string) => void; testId: string }) {
  return (
    <label className="field">
      <span className="field__label">{label}</span>
      <select className="select" value={value ?? ''} onChange={(e) => onPick(e.target.value)} data-testid={testId}>
        <option value="">{any}</option>
        {Object.entries(labels).map(([choice, shown]) => (
          <option key={choice} value={choice}>
            {shown}
          </option>
        ))}
      </select>
    </label>
  );
}
