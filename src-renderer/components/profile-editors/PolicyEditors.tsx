import { LEARNING_KINDS, type LearningKind } from '@shared/contracts/learning-export';
import { LIFECYCLE_PHASES, PHASE_LABELS, type LifecyclePhase } from '@shared/contracts/spec';
import type { ProfileOf } from '../../db/profiles';
import { CheckField, NumberField, SelectField, fieldDomId } from '../Form';

type TraceValue = ProfileOf<'trace'>['trace'];
type LearningValue = ProfileOf<'learning_data'>['learning'];
type DeploymentValue = ProfileOf<'deployment'>['deployment'];

export const LEARNING_KIND_LABELS = {
  review: 'Reviews (the teacher ruled on the student)',
  shadow: 'Shadow comparisons (phase 1)',
  demonstration: 'Teacher demonstrations (phase 0, takeovers)',
} satisfies Record<LearningKind, string>;

export const PHASE_OPTIONS = LIFECYCLE_PHASES.map((p) => ({ value: String(p) as `${LifecyclePhase}`, label: `Phase ${p} · ${PHASE_LABELS[p]}` }));

export function TraceEditor({ idPrefix, value, onChange }: { idPrefix: string; value: TraceValue; onChange: (v: TraceValue) => void }) {
  const id = (f: string) => fieldDomId(`trace.${f}`, idPrefix);
  return (
    <div className="form-grid">
      <CheckField id={id('include_tool_results')} label="Keep tool results in the trace" checked={value.include_tool_results} onChange={(include_tool_results) => onChange({ ...value, include_tool_results })} hint="Off: each result is replaced by its size." />
      <CheckField
        id={id('retention-set')}
        label="Delete runs some days after they end"
        checked={value.retention_days !== undefined}
        onChange={(on) => {
          const { retention_days: _r, ...rest } = value;
          onChange(on ? { ...rest, retention_days: 30 } : rest);
        }}
        hint="The host deletes the run's trace and learning examples from its history and from every browser (at its start and after each run ends); never a run still running or waiting for you. Off: kept until you delete it."
      />
      {value.retention_days !== undefined && <NumberField id={id('retention_days')} label="After (days)" value={value.retention_days} min={1} max={3650} onChange={(retention_days) => onChange({ ...value, retention_days })} />}
      <CheckField
        id={id('retention-runs-set')}
        label="Keep only a workflow's newest runs"
        checked={value.retention_runs !== undefined}
        onChange={(on) => {
          const { retention_runs: _r, ...rest } = value;
          onChange(on ? { ...rest, retention_runs: 100 } : rest);
        }}
        hint="When a run of the workflow ends, its older runs beyond this many are deleted the same way. Applies to runs started with this profile."
      />
      {value.retention_runs !== undefined && <NumberField id={id('retention_runs')} label="Runs kept" value={value.retention_runs} min={1} max={100000} onChange={(retention_runs) => onChange({ ...value, retention_runs })} />}
    </div>
  );
}

export function LearningEditor({ idPrefix, value, onChange }: { idPrefix: string; value: LearningValue; onChange: (v: LearningValue) => void }) {
  const id = (f: string) => fieldDomId(`learning.${f}`, idPrefix);
  return (
    <div className="form-grid">
      <CheckField id={id('record')} label="Record learning examples" checked={value.record} onChange={(record) => onChange({ ...value, record })} hint="Each reviewed round: the redacted prompt, the candidate, the verdict, the final decision." />
      {value.record &&
        LEARNING_KINDS.map((kind) => (
          <CheckField
            key={kind}
            id={id(`kinds-${kind}`)}
            label={LEARNING_KIND_LABELS[kind]}
            checked={value.kinds.includes(kind)}
            onChange={(on) => onChange({ ...value, kinds: on ? [...value.kinds, kind] : value.kinds.filter((k) => k !== kind) })}
          />
        ))}
    </div>
  );
}

export function DeploymentEditor({ idPrefix, value, onChange, showPhase }: { idPrefix: string; value: DeploymentValue; onChange: (v: DeploymentValue) => void; showPhase: boolean }) {
  const id = (f: string) => fieldDomId(`deployment.${f}`, idPrefix);
  const promotion = value.promotion;
  const setPromotion = (changes: Partial<DeploymentValue['promotion']>) => onChange({ ...value, promotion: { ...promotion, ...changes } });
  return (
    <div className="form-grid">
      {showPhase && (
        <SelectField id={id('phase')} label="Lifecycle phase" value={String(value.phase) as `${LifecyclePhase}`} options={PHASE_OPTIONS} onChange={(p) => onChange({ ...value, phase: Number(p) as LifecyclePhase })} />
      )}
      <p className="form-note">Learning computes these over the workflow’s reviewed rounds and suggests a phase change; you apply it, nothing changes by itself.</p>
      <NumberField id={id('promotion.window')} label="Window (reviewed rounds)" value={promotion.window} min={5} max={10_000} onChange={(window) => setPromotion({ window })} />
      <NumberField id={id('promotion.min_examples')} label="Fewest rounds before a suggestion" value={promotion.min_examples} min={1} max={10_000} onChange={(min_examples) => setPromotion({ min_examples })} />
      <NumberField
        id={id('promotion.promote_agreement')}
        label="Promote at agreement ≥"
        value={promotion.promote_agreement}
        min={0}
        max={1}
        step={0.01}
        onChange={(promote_agreement) => setPromotion({ promote_agreement })}
        hint="And no protected-effect errors in the window."
      />
      <NumberField
        id={id('promotion.demote_block_rate')}
        label="Demote at block rate ≥"
        value={promotion.demote_block_rate}
        min={0}
        max={1}
        step={0.01}
        onChange={(demote_block_rate) => setPromotion({ demote_block_rate })}
        hint="Any protected-effect error demotes too."
      />
    </div>
  );
}
