import { useState } from 'react';
import { previewValue } from './run-nodes';
import { ScrollPre } from '../../components/ScrollPre';

/** A node's input or output value: long ones cut with "Show all" (a file's text can be megabytes). */
export function ValueView({ value, testId }: { value: unknown; testId?: string }) {
  const [all, setAll] = useState(false);
  const cut = previewValue(value);
  const shown = all ? previewValue(value, undefined, true) : cut;
  return (
    <div className="value-view" data-testid={testId}>
      <ScrollPre className="value-view__text">
        {shown.text}
        {shown.truncated && '…'}
      </ScrollPre>
      {cut.truncated && (
        <button type="button" className="link-button" onClick={() => setAll(!all)} aria-expanded={all}>
          {all ? 'Show less' : `Show all (${cut.length.toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}

/** Named values (a node's inputs, outputs; the run's inputs, outputs) as a definition list. */
export function ValuesList({ values, testId }: { values: Record<string, unknown>; testId?: string }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="muted">None.</p>;
  return (
    <dl className="values" data-testid={testId}>
      {entries.map(([name, value]) => (
        <div key={name} className="values__row" data-name={name}>
          <dt>
            <code>{name}</code>
          </dt>
          <dd>
            <ValueView value={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
