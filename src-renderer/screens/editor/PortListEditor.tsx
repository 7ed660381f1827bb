import { PORT_TYPES, type PortDecl, type PortType } from '@shared/workflow/document';
import { uniqueId } from './graph-edit';

/**
 * A node's declared inputs (or an input/output node's fields): name, type, required. Renaming a
 * port keeps its edge (graph-edit.ts replaceNode matches ports by position).
 */
export function PortListEditor<P extends PortDecl>({
  title,
  ports,
  onChange,
  testId,
  min = 0,
}: {
  title: string;
  ports: readonly P[];
  onChange: (next: P[], group?: string) => void;
  testId: string;
  /** The schema's minimum (input and output nodes need one field). */
  min?: number;
}) {
  const set = (i: number, patch: Partial<PortDecl>, group?: string) => onChange(ports.map((p, j) => (j === i ? { ...p, ...patch } : p)), group);
  const add = () => {
    const name = uniqueId('value', ports.map((p) => p.name)).replace(/-/g, '_');
    onChange([...ports, { name, type: 'any', required: true } as P]);
  };
  return (
    <fieldset className="wf-ports" data-testid={testId}>
      <legend className="wf-ports__title">{title}</legend>
      {ports.length === 0 && <p className="muted">None yet.</p>}
      {ports.map((p, i) => (
        <div key={i} className="wf-ports__row" data-testid={`${testId}-${i}`}>
          <input
            className="input input--small"
            aria-label={`${title} ${i + 1} name`}
            value={p.name}
            onChange={(e) => set(i, { name: e.target.value }, `${testId}-${i}-name`)}
            data-testid={`${testId}-${i}-name`}
          />
          <select className="select" aria-label={`${title} ${i + 1} type`} value={p.type} onChange={(e) => set(i, { type: e.target.value as PortType })} data-testid={`${testId}-${i}-type`}>
            {PORT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <label className="wf-ports__required">
            <input type="checkbox" checked={p.required} onChange={(e) => set(i, { required: e.target.checked })} data-testid={`${testId}-${i}-required`} />
            required
          </label>
          <button type="button" className="button button--small" aria-label={`Remove ${p.name || `${title} ${i + 1}`}`} disabled={ports.length <= min} onClick={() => onChange(ports.filter((_, j) => j !== i))}>
            ✕
          </button>
        </div>
      ))}
      <button type="button" className="button button--small" onClick={add} data-testid={`${testId}-add`}>
        + Add
      </button>
    </fieldset>
  );
}
