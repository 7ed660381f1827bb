import { useId, useState } from 'react';
import { SCS_ROLE_LABELS, ScsSettings } from '@shared/scs/contracts';
import { useHost } from '../../app/HostProvider';
import { shownValue, typeOver, type TypedOverStored } from '../../components/typed-over-stored';
import type { WorkflowRow } from '../../db/db';
import { scsSettingsOf, setScsSettings } from '../../db/workflow-scs';
import { Accordion, NumberField, SelectField, fieldDomId } from '../../components/Form';
import type { WorkflowConfig } from '../../supervision/use-workflow-config';
import { SCS_MODE_OPTIONS } from '../../view/scs-labels';

const MODEL_OPTIONS = [
  { value: 'student', label: 'The student model (the node’s main model)' },
  { value: 'teacher', label: 'The teacher model (stronger, slower)' },
] as const satisfies readonly { value: ScsSettings['model']; label: string }[];

const id = (field: keyof ScsSettings) => fieldDomId(`scs.${field}`);

/** With replay models, SCS needs committee and monitor responses in the script; a missing queue blocks at the plan. */
function replayGap(row: WorkflowRow, config: WorkflowConfig, scs: ScsSettings): string | undefined {
  if (scs.mode === 'off') return undefined;
  const model = config.resolved[scs.model]?.model ?? row.doc.models[scs.model];
  const script = row.doc.script;
  if (model.provider !== 'script' || !script) return undefined;
  const missing = [script.committee.length === 0 ? 'committee' : '', script.monitor.length === 0 ? 'monitor' : ''].filter(Boolean);
  if (missing.length === 0) return undefined;
  return `The ${scs.model}’s model is replay and this workflow’s script has no ${missing.join(' or ')} responses: an SCS run will be blocked at its first plan. Use a real model for the ${scs.model}, or turn SCS off.`;
}

/**
 * "SCS task gates" (seed 001) on the agent node: the mode and its bounds. They live in the
 * workflow's own document (its `scs`), which Run sends; a change is stored at once and the next run
 * uses it.
 */
export function ScsSection({ row, config }: { row: WorkflowRow; config: WorkflowConfig }) {
  const { db } = useHost();
  const name = useId();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string>();
  const stored = scsSettingsOf(row.doc);
  const storedKey = JSON.stringify(stored);
  // What was just typed, until the stored document catches up (Dexie answers asynchronously, and an
  // earlier keystroke's write may come back after later keystrokes: typed-over-stored.ts).
  const [typed, setTyped] = useState<TypedOverStored<ScsSettings>>();
  const scs = shownValue(typed, storedKey, stored);

  const change = (changes: Partial<ScsSettings>) => {
    const next = { ...scs, ...changes };
    const parsed = ScsSettings.safeParse(next);
    setTyped(typeOver(typed, storedKey, next, parsed.success ? JSON.stringify(parsed.data) : undefined));
    setScsSettings(db, row.id, changes).then(
      () => setError(undefined),
      (err: unknown) => {
        setTyped(undefined);
        setError(err instanceof Error ? err.message : String(err));
      },
    );
  };
  const gap = replayGap(row, config, scs);

  return (
    <div className="panel__section" data-testid="scs-section">
      <h3 className="panel__heading" id={`${name}-heading`}>
        SCS task gates
      </h3>
      <p className="form-note scs-section__intro">
        Student · Committee · Supervisor: a <strong>{SCS_ROLE_LABELS.committee}</strong> drafts each phase, the <strong>{SCS_ROLE_LABELS.monitor}</strong> approves it and gates the finish on evidence,
        the <strong>{SCS_ROLE_LABELS.executor}</strong> runs only the approved plan — every round still through the decision boundary.
      </p>
      <fieldset className="mode-options" data-testid="scs-mode" data-mode={scs.mode} aria-labelledby={`${name}-heading`} id={id('mode')}>
        <legend className="visually-hidden">SCS mode</legend>
        {SCS_MODE_OPTIONS.map((o) => (
          <label key={o.value} className={`mode-option ${scs.mode === o.value ? 'mode-option--checked' : ''}`} data-testid={`scs-mode-${o.value}`}>
            <input type="radio" name={name} value={o.value} checked={scs.mode === o.value} onChange={() => change({ mode: o.value })} />
            <span className="mode-option__text">
              <span className="mode-option__label">{o.label}</span>
              <span className="mode-option__hint">{o.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p className="form-row__hint scs-section__where">Stored in this workflow’s document; the next run uses it.</p>
      {gap && (
        <p className="notice notice--warning scs-section__gap" role="note" data-testid="scs-replay-gap">
          {gap}
        </p>
      )}
      {error && (
        <p className="error" role="alert" data-testid="scs-error">
          {error}
        </p>
      )}
      <Accordion
        title="SCS settings"
        summary={`${scs.model === 'student' ? 'student' : 'teacher'} plans and monitors · review every ${scs.monitor_every} rounds · ${scs.max_committee_retries} redrafts · ${scs.max_extensions} extensions`}
        open={open}
        onToggle={() => setOpen((o) => !o)}
        testId="group-scs"
      >
        <div className="form-grid">
          <SelectField
            id={id('model')}
            label="Committee and monitor"
            value={scs.model}
            options={MODEL_OPTIONS}
            onChange={(model) => change({ model })}
            hint="Who plans and monitors. The executor is whoever the lifecycle phase says proposes."
            testId="scs-model"
          />
          <NumberField id={id('monitor_every')} label="Monitor every" value={scs.monitor_every} min={1} max={50} onChange={(n) => change({ monitor_every: n })} hint="Executor rounds between periodic reviews. Failed rounds, loops and the finish are always reviewed." testId="scs-monitor-every" />
          <NumberField id={id('loop_guard')} label="Loop guard" value={scs.loop_guard} min={2} max={10} onChange={(n) => change({ loop_guard: n })} hint="The same failing call this many times in a row asks the monitor." />
          <NumberField id={id('file_batch')} label="File batch" value={scs.file_batch} min={0} max={50} onChange={(n) => change({ file_batch: n })} hint="After this many file-changing calls (write-effect tools) since the last review, the monitor reviews them. 0: off." testId="scs-file-batch" />
          <NumberField id={id('alternatives')} label="Alternative plans" value={scs.alternatives} min={1} max={3} onChange={(n) => change({ alternatives: n })} hint="Plans the committee drafts for each phase; the monitor chooses one, may edit it, or vetoes all. 1: a single plan." testId="scs-alternatives" />
          <NumberField id={id('max_committee_retries')} label="Committee redrafts" value={scs.max_committee_retries} min={0} max={5} onChange={(n) => change({ max_committee_retries: n })} hint="After a veto, before the phase is blocked with the reasons — never a silent approval." />
          <NumberField id={id('max_replans')} label="Replans" value={scs.max_replans} min={0} max={5} onChange={(n) => change({ max_replans: n })} hint="After a rejected phase or a rethink, before the run is blocked." />
          <NumberField id={id('max_phases')} label="Phases" value={scs.max_phases} min={1} max={20} onChange={(n) => change({ max_phases: n })} hint="After an accepted phase the committee drafts the next milestone, up to this many phases (replans count)." />
          <NumberField id={id('transcript_budget')} label="Transcript budget" value={scs.transcript_budget} min={500} max={50000} onChange={(n) => change({ transcript_budget: n })} hint="Characters of earlier decisions the committee and monitor see: the newest word for word, older ones summarised." />
          <NumberField id={id('budget_warning')} label="Budget warning" value={scs.budget_warning} min={1} max={10} onChange={(n) => change({ budget_warning: n })} hint="Rounds left when the monitor is asked whether to extend the step budget." />
          <NumberField id={id('max_extensions')} label="Budget extensions" value={scs.max_extensions} min={0} max={5} onChange={(n) => change({ max_extensions: n })} hint="Times the monitor may extend the step budget." />
          <NumberField id={id('extension_rounds')} label="Rounds per extension" value={scs.extension_rounds} min={1} max={20} onChange={(n) => change({ extension_rounds: n })} hint="The most one extension adds." />
          <NumberField
            id={id('auto_long_budget')}
            label="Auto: long budget"
            value={scs.auto_long_budget}
            min={2}
            max={200}
            onChange={(n) => change({ auto_long_budget: n })}
            hint={`Auto also turns SCS on when the round limit is at least this (this workflow: ${row.doc.limits.max_rounds}).`}
          />
        </div>
      </Accordion>
    </div>
  );
}
