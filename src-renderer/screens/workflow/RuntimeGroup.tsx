import { useState } from 'react';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { useHost } from '../../app/HostProvider';
import { fieldDomId } from '../../components/Form';
import { runtimeLimitsOf, setRuntimeLimits } from '../../db/workflow-runtime';
import { parseRuntimeTexts, runtimeTextsOf, type RuntimeField, type RuntimeTexts } from '../../supervision/runtime-edit';
import { RuntimeFields } from '../../supervision/RuntimeFields';
import { GroupSaveRow } from './GroupSaveRow';
import { count } from '../../view/format';

const FIELD_IDS = {
  max_rounds: fieldDomId('limits.max_rounds'),
  decision_timeout_s: fieldDomId('limits.decision_timeout_ms'),
  max_output_tokens: fieldDomId('limits.max_output_tokens'),
} satisfies Record<RuntimeField, string>;

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
      <RuntimeFields texts={texts} issues={issues} onChange={change} idOf={(field) => FIELD_IDS[field]} testIdOf={(field) => `runtime-${field}`} />
      <GroupSaveRow
        testId="runtime"
        saveLabel="Save runtime limits"
        changed={changed}
        valid={parsed.ok}
        saving={saving}
        refusedCount={Object.keys(issues).length}
        result={result}
        onSave={() => void save()}
        onDiscard={() => setTyped(undefined)}
      />
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
  return `${limits.max_rounds} rounds · ${timeout}${limits.max_output_tokens === undefined ? '' : ` · ${count(limits.max_output_tokens)} tokens per reply`}`;
}
