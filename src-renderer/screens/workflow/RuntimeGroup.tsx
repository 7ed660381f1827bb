import { useState } from 'react';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { OUTPUT_TOKEN_BOUNDS, PROPOSAL_OUTPUT_TOKENS } from '@shared/contracts/output-bound';
import { useHost } from '../../app/HostProvider';
import { fieldDomId, FieldRow } from '../../components/Form';
import { runtimeLimitsOf, setRuntimeLimits } from '../../db/workflow-runtime';
import { parseRuntimeTexts, runtimeTextsOf, type RuntimeField, type RuntimeTexts } from '../../supervision/runtime-edit';

const FIELD_IDS = {
  max_rounds: fieldDomId('limits.max_rounds'),
  decision_timeout_s: fieldDomId('limits.decision_timeout_ms'),
  max_output_tokens: fieldDomId('limits.max_output_tokens'),
} satisfies Record<RuntimeField, string>;

const FIELDS = [
  {
    field: 'max_rounds',
    label: 'Round limit',
    unit: 'rounds',
    placeholder: '12',
    hint: 'The run stops after this many model rounds without completing (1–200).',
  },
  {
    field: 'decision_timeout_s',
    label: 'Decision timeout',
    unit: 'seconds',
    placeholder: 'none',
    hint: 'A model that takes longer over one decision (or one review) is stopped and the round fails (1–600 s). Empty: only each model’s own call timeout.',
  },
  {
    field: 'max_output_tokens',
    label: 'Model reply bound',
    unit: 'output tokens',
    placeholder: `Steward’s own (${PROPOSAL_OUTPUT_TOKENS.toLocaleString('en')} / ${OUTPUT_TOKEN_BOUNDS.teacher.toLocaleString('en')})`,
    hint: `Output tokens one reply may use, sent with every proposal and review so the model’s server stops there (256–32,768). A reply cut at the bound is never used. Empty: ${PROPOSAL_OUTPUT_TOKENS.toLocaleString('en')} for a proposal, ${OUTPUT_TOKEN_BOUNDS.teacher.toLocaleString('en')} for a review.`,
  },
] as const satisfies readonly { field: RuntimeField; label: string; unit: string; placeholder: string; hint: string }[];

/**
 * The agent's runtime limits (issue 29): round limit, decision timeout and model reply bound,
 * edited here and validated by the spec's own schema (the one `steward validate` and the host use),
 * stored in the workflow's document; the next run uses them and records them on its start.
 */
export function RuntimeGroup({ doc }: { doc: HostedWorkflow }) {
  const { db } = useHost();
  const stored = runtimeLimitsOf(doc);
  const storedTexts = runtimeTextsOf(stored);
  const storedKey = JSON.stringify(storedTexts);
  // What was typed, against the stored limits it started from: a change elsewhere (another tab) shows through.
  const [typed, setTyped] = useState<{ base: string; texts: RuntimeTexts }>();
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string }>();
  const [saving, setSaving] = useState(false);
  const texts = typed && typed.base === storedKey ? typed.texts : storedTexts;
  const parsed = parseRuntimeTexts(texts, stored);
  const changed = JSON.stringify(texts) !== storedKey;
  const issues = parsed.ok ? {} : parsed.issues;

  const change = (field: RuntimeField, value: string) => {
    setResult(undefined);
    setTyped({ base: storedKey, texts: { ...texts, [field]: value } });
  };
  const save = async () => {
    if (!parsed.ok) return;
    setSaving(true);
    try {
      await setRuntimeLimits(db, doc.id, parsed.limits);
      setTyped(undefined);
      setResult({ tone: 'ok', text: 'Saved in the workflow: the next run uses these limits and records them in its report.' });
    } catch (err) {
      setResult({ tone: 'error', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setSaving(false);
    }
  };

  const script = doc.script;
  return (
    <div className="form-grid" id={fieldDomId('runtime')} tabIndex={-1} data-testid="runtime-group">
      {FIELDS.map(({ field, label, unit, placeholder, hint }) => {
        const id = FIELD_IDS[field];
        const issue = issues[field];
        return (
          <FieldRow key={field} label={label} htmlFor={id} hint={hint} issue={issue}>
            <span className="input-with-unit">
              <input
                id={id}
                className="input input--number"
                inputMode="decimal"
                value={texts[field]}
                placeholder={placeholder}
                data-testid={`runtime-${field}`}
                onChange={(e) => change(field, e.target.value)}
                {...(issue ? { 'aria-invalid': true, 'aria-describedby': `${id}-issue` } : {})}
              />{' '}
              <span className="muted">{unit}</span>
            </span>
          </FieldRow>
        );
      })}
      <div className="form-row">
        <span className="form-row__label" aria-hidden="true">
          {'\u00a0'}
        </span>
        <div className="form-row__control">
          <div>
            <button type="button" className="button button--primary" disabled={!changed || !parsed.ok || saving} onClick={() => void save()} data-testid="runtime-save">
              Save runtime limits
            </button>{' '}
            {changed && (
              <button type="button" className="button" disabled={saving} onClick={() => setTyped(undefined)} data-testid="runtime-discard">
                Discard
              </button>
            )}
          </div>
          {changed && !parsed.ok && (
            <p className="form-row__issue" role="alert" data-testid="runtime-refused">
              Not saved: fix the {Object.keys(issues).length === 1 ? 'value' : 'values'} above first.
            </p>
          )}
          {result && (
            <p className={result.tone === 'error' ? 'error' : 'ok-text'} role={result.tone === 'error' ? 'alert' : 'status'} data-testid="runtime-result">
              {result.text}
            </p>
          )}
        </div>
      </div>
      <dl className="meta meta--wide">
        <div className="meta__row">
          <dt>Failures</dt>
          <dd>the run fails after {stored.max_consecutive_failures} failed rounds in a row</dd>
        </div>
        <div className="meta__row">
          <dt>Workspace</dt>
          <dd>{doc.workspace ? <code title="A folder registered on the host">{doc.workspace}</code> : <span className="muted">none</span>}</dd>
        </div>
        <div className="meta__row">
          <dt>Replay script</dt>
          <dd>{script ? `${script.student.length} student and ${script.teacher.length} teacher responses` : <span className="muted">none</span>}</dd>
        </div>
      </dl>
    </div>
  );
}

/** The accordion's one-line summary of the stored limits. */
export function runtimeSummary(doc: HostedWorkflow): string {
  const limits = runtimeLimitsOf(doc);
  const timeout = limits.decision_timeout_ms === undefined ? 'no decision timeout' : `${limits.decision_timeout_ms / 1000} s per decision`;
  return `${limits.max_rounds} rounds · ${timeout}${limits.max_output_tokens === undefined ? '' : ` · ${limits.max_output_tokens.toLocaleString('en')} tokens per reply`}`;
}
