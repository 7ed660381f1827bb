import { useId, type ReactNode } from 'react';

/** DOM id of the control for a config field (validation issues link to it), e.g. `supervision.rules.tools` → `cfg-supervision-rules-tools`. */
export function fieldDomId(field: string, prefix = 'cfg'): string {
  return `${prefix}-${field.replace(/[^A-Za-z0-9_]+/g, '-')}`;
}

export function FieldRow({ label, htmlFor, hint, children, issue }: { label: string; htmlFor: string; hint?: ReactNode; children: ReactNode; issue?: string }) {
  return (
    <div className={`form-row ${issue ? 'form-row--issue' : ''}`}>
      <label className="form-row__label" htmlFor={htmlFor}>
        {label}
      </label>
      <div className="form-row__control">
        {children}
        {hint && <p className="form-row__hint">{hint}</p>}
        {issue && (
          <p className="form-row__issue" id={`${htmlFor}-issue`}>
            {issue}
          </p>
        )}
      </div>
    </div>
  );
}

export function NumberField({
  id,
  label,
  value,
  onChange,
  min,
  max,
  step = 1,
  hint,
  disabled,
  testId,
}: {
  id: string;
  label: string;
  value: number;
  onChange: (n: number) => void;
  min?: number;
  max?: number;
  step?: number;
  hint?: ReactNode;
  disabled?: boolean;
  testId?: string;
}) {
  return (
    <FieldRow label={label} htmlFor={id} hint={hint}>
      <input
        id={id}
        className="input input--number"
        type="number"
        value={Number.isFinite(value) ? value : ''}
        min={min}
        max={max}
        step={step}
        disabled={disabled}
        data-testid={testId}
        onChange={(e) => {
          const n = e.target.valueAsNumber;
          // Out-of-range input is clamped rather than stored: a profile version is always valid.
          if (Number.isFinite(n)) onChange(Math.min(max ?? Infinity, Math.max(min ?? -Infinity, n)));
        }}
      />
    </FieldRow>
  );
}

/** `issue`: what is wrong with the value, in words, shown under it and announced with the field. */
export function TextField({ id, label, value, onChange, hint, placeholder, multiline, testId, disabled, issue }: { id: string; label: string; value: string; onChange: (v: string) => void; hint?: ReactNode; placeholder?: string; multiline?: boolean; testId?: string; disabled?: boolean; issue?: string }) {
  const invalid = issue ? { 'aria-invalid': true, 'aria-describedby': `${id}-issue` } : {};
  return (
    <FieldRow label={label} htmlFor={id} hint={hint} issue={issue}>
      {multiline ? (
        <textarea id={id} className="input input--area" value={value} placeholder={placeholder} data-testid={testId} disabled={disabled} onChange={(e) => onChange(e.target.value)} rows={2} {...invalid} />
      ) : (
        <input id={id} className="input" value={value} placeholder={placeholder} data-testid={testId} disabled={disabled} onChange={(e) => onChange(e.target.value)} {...invalid} />
      )}
    </FieldRow>
  );
}

export function SelectField<V extends string>({
  id,
  label,
  value,
  options,
  onChange,
  hint,
  testId,
  disabled,
}: {
  id: string;
  label: string;
  value: V;
  options: readonly { value: V; label: string }[];
  onChange: (v: V) => void;
  hint?: ReactNode;
  testId?: string;
  disabled?: boolean;
}) {
  return (
    <FieldRow label={label} htmlFor={id} hint={hint}>
      <select id={id} className="select" value={value} data-testid={testId} disabled={disabled} onChange={(e) => onChange(e.target.value as V)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldRow>
  );
}

export function CheckField({ id, label, checked, onChange, hint, testId, disabled }: { id: string; label: string; checked: boolean; onChange: (v: boolean) => void; hint?: ReactNode; testId?: string; disabled?: boolean }) {
  return (
    <div className="form-check">
      <input id={id} type="checkbox" checked={checked} disabled={disabled} data-testid={testId} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>
        <span className="form-check__label">{label}</span>
        {hint && <span className="form-check__hint">{hint}</span>}
      </label>
    </div>
  );
}

/** A disclosure section: a real button with aria-expanded, so Enter and Space open it. */
export function Accordion({ title, summary, open, onToggle, children, testId, badge }: { title: string; summary?: ReactNode; open: boolean; onToggle: () => void; children: ReactNode; testId?: string; badge?: ReactNode }) {
  const id = useId();
  return (
    <section className={`accordion ${open ? 'accordion--open' : ''}`} data-testid={testId} data-open={open}>
      <h3 className="accordion__heading">
        <button type="button" className="accordion__button" aria-expanded={open} aria-controls={id} onClick={onToggle}>
          <span className="accordion__chevron" aria-hidden="true">
            ▸
          </span>
          <span className="accordion__title">{title}</span>
          {badge}
          {summary && <span className="accordion__summary">{summary}</span>}
        </button>
      </h3>
      <div id={id} className="accordion__body" hidden={!open}>
        {children}
      </div>
    </section>
  );
}
