import type { AssertCheck, NodeOf } from '@shared/workflow/document';
import { isRecord, JsonField } from './JsonField';

type Assert = NodeOf<'assert'>;
const KINDS = ['non_empty', 'contains', 'regex', 'range', 'json_schema'] as const satisfies readonly AssertCheck['check'][];
const LABELS: Record<AssertCheck['check'], string> = { non_empty: 'not empty', contains: 'contains text', regex: 'matches a regex', range: 'number in range', json_schema: 'JSON Schema' };

function fresh(kind: AssertCheck['check']): AssertCheck {
  switch (kind) {
    case 'non_empty':
      return { check: kind };
    case 'contains':
      return { check: kind, text: '' };
    case 'regex':
      return { check: kind, pattern: '' };
    case 'range':
      return { check: kind };
    case 'json_schema':
      return { check: kind, schema: { type: 'object' } };
  }
}

const num = (text: string): number | undefined => (text.trim() === '' || !Number.isFinite(Number(text)) ? undefined : Number(text));

/** An assert node's checks; every one must hold for the value to pass. */
export function AssertSection({ node, onChange }: { node: Assert; onChange: (next: Assert, group?: string) => void }) {
  const setCheck = (i: number, next: AssertCheck, group?: string) => onChange({ ...node, checks: node.checks.map((c, j) => (j === i ? next : c)) }, group);
  return (
    <fieldset className="wf-ports" data-testid="inspector-checks">
      <legend className="wf-ports__title">Checks</legend>
      {node.checks.map((c, i) => (
        <div key={i} className="wf-check" data-testid={`inspector-check-${i}`}>
          <div className="wf-ports__row">
            <select className="select" aria-label={`Check ${i + 1}`} value={c.check} onChange={(e) => setCheck(i, fresh(e.target.value as AssertCheck['check']))} data-testid={`inspector-check-${i}-kind`}>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {LABELS[k]}
                </option>
              ))}
            </select>
            <button type="button" className="button button--small" aria-label={`Remove check ${i + 1}`} disabled={node.checks.length <= 1} onClick={() => onChange({ ...node, checks: node.checks.filter((_, j) => j !== i) })}>
              ✕
            </button>
          </div>
          {c.check === 'contains' && <input className="input" aria-label="Text it contains" value={c.text} onChange={(e) => setCheck(i, { ...c, text: e.target.value }, `${node.id}-check-${i}`)} data-testid={`inspector-check-${i}-text`} />}
          {c.check === 'regex' && (
            <div className="wf-ports__row">
              <input className="input" aria-label="Pattern" placeholder="^pattern$" value={c.pattern} onChange={(e) => setCheck(i, { ...c, pattern: e.target.value }, `${node.id}-check-${i}`)} data-testid={`inspector-check-${i}-pattern`} />
              <input className="input input--small" aria-label="Flags (i m s u)" placeholder="flags" value={c.flags ?? ''} onChange={(e) => setCheck(i, { check: 'regex', pattern: c.pattern, ...(e.target.value ? { flags: e.target.value } : {}) }, `${node.id}-check-${i}-flags`)} />
            </div>
          )}
          {c.check === 'range' && (
            <div className="wf-ports__row">
              <input className="input input--small" aria-label="Minimum" placeholder="min" defaultValue={c.min ?? ''} onChange={(e) => setCheck(i, { check: 'range', ...(num(e.target.value) !== undefined ? { min: num(e.target.value) } : {}), ...(c.max !== undefined ? { max: c.max } : {}) }, `${node.id}-check-${i}-min`)} />
              <input className="input input--small" aria-label="Maximum" placeholder="max" defaultValue={c.max ?? ''} onChange={(e) => setCheck(i, { check: 'range', ...(c.min !== undefined ? { min: c.min } : {}), ...(num(e.target.value) !== undefined ? { max: num(e.target.value) } : {}) }, `${node.id}-check-${i}-max`)} />
            </div>
          )}
          {c.check === 'json_schema' && (
            <JsonField label="Schema" value={c.schema} check={(v) => (isRecord(v) ? undefined : 'a schema is a JSON object')} onChange={(v) => isRecord(v) && setCheck(i, { check: 'json_schema', schema: v }, `${node.id}-check-${i}`)} testId={`inspector-check-${i}-schema`} />
          )}
        </div>
      ))}
      <button type="button" className="button button--small" onClick={() => onChange({ ...node, checks: [...node.checks, { check: 'non_empty' }] })} data-testid="inspector-check-add">
        + Add check
      </button>
    </fieldset>
  );
}
