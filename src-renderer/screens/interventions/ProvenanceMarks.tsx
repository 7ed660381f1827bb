import type { ReactNode } from 'react';
import { sourceWords, type ArgumentProvenance } from '@shared/boundary/provenance';
import type { Decision } from '@shared/contracts/decision';

/**
 * Where a proposed call's values came from (issue 31), on the person's approval card: per argument,
 * the value copied from an earlier tool result highlighted in the argument's text, and "from
 * fs/read_text_file in round 2 (untrusted)". Untrusted sources are said plainly: someone other than
 * the person wrote that text.
 */

/** The argument's value at a mark's path (`content`, `entities[0].name`, `["odd key"]`), read by own keys only. */
function valueAt(args: Record<string, unknown>, path: string): unknown {
  const tokens = [...path.matchAll(/\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]|\.?([A-Za-z_$][\w$]*)/gu)];
  let at: unknown = args;
  for (const t of tokens) {
    const key = t[1] !== undefined ? (JSON.parse(`"${t[1]}"`) as string) : (t[2] ?? t[3]);
    if (key === undefined || at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

const AROUND = 80;

/** The argument's text with the copied value marked; long texts cut around it. */
function highlighted(full: unknown, value: string): ReactNode {
  const clean = value.endsWith('…') ? value.slice(0, -1) : value;
  if (typeof full !== 'string') return <mark className="provenance__value">{value}</mark>;
  const at = full.toLowerCase().indexOf(clean.toLowerCase());
  if (at < 0 || clean === '') return <mark className="provenance__value">{value}</mark>;
  const start = Math.max(0, at - AROUND);
  const end = Math.min(full.length, at + clean.length + AROUND);
  return (
    <>
      {start > 0 && '…'}
      {full.slice(start, at)}
      <mark className="provenance__value">{full.slice(at, at + clean.length)}</mark>
      {full.slice(at + clean.length, end)}
      {end < full.length && '…'}
    </>
  );
}

export function ProvenanceMarks({ marks, decision }: { marks: readonly ArgumentProvenance[] | undefined; decision: Decision | undefined }) {
  if (!marks || marks.length === 0 || decision?.decision_type !== 'tool_call') return null;
  const untrusted = marks.some((m) => m.sources.some((s) => s.trust === 'untrusted'));
  return (
    <div className="provenance" data-testid="intervention-provenance">
      <p className="provenance__title">
        <strong>Where its values came from</strong>
        {untrusted && <span className="muted"> · some were written by someone other than you (an untrusted tool result): check they are what you asked for.</span>}
      </p>
      <ul className="provenance__list">
        {marks.map((m, i) => (
          <li key={`${m.path}:${i}`} data-testid="provenance-mark" data-argument={m.path} data-trust={m.sources.some((s) => s.trust === 'untrusted') ? 'untrusted' : 'trusted'}>
            <code className="provenance__argument">{m.path || 'arguments'}</code> <span className="provenance__text">{highlighted(valueAt(decision.arguments, m.path), m.value)}</span>
            <span className="provenance__source">
              {' '}
              from {m.sources.map((s, j) => (
                <span key={j} className={s.trust === 'untrusted' ? 'provenance__from provenance__from--untrusted' : 'provenance__from'}>
                  {j > 0 && ', '}
                  {sourceWords(s)}
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
