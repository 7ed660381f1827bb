import { useId } from 'react';
import {
  AGREEMENT_RULES,
  JUDGMENT_MODES,
  VERIFICATION_FAILURE_POLICIES,
  type AgreementRule,
  type JudgmentCaller,
  type JudgmentMode,
  type JudgmentPlacement,
  type JudgmentSettings,
  type JudgmentTrigger,
  type VerificationFailurePolicy,
} from '@shared/pattern/contracts';
import { PATTERN_PRESETS } from '@shared/pattern/presets';
import { useHost } from '../../app/HostProvider';
import { CheckField, NumberField, SelectField, TextField } from '../../components/Form';
import { ModelSelect } from '../../components/ModelSelect';
import { InlineJudgeFields } from './InlineJudgeFields';
import { callerOf, judgeProfiles, triggerOf, type Pattern } from './pattern-edit';

const PLACEMENT_LABELS = { after_pattern: 'After the pattern', after_each_step: 'After each step (PIPELINE)' } satisfies Record<JudgmentPlacement, string>;
const MODE_LABELS = { default: 'The pattern’s own review is the judgment', post_step: 'A separate judgment after the pattern’s review (two levels)' } satisfies Record<JudgmentMode, string>;
const TRIGGER_LABELS = { always: 'Always', below_confidence: 'Below a confidence threshold', every_n: 'Every N iterations (and the last)' } satisfies Record<JudgmentTrigger['kind'], string>;
const AGREEMENT_LABELS = { all: 'All callers approve', any: 'Any caller approves', majority: 'A majority approves' } satisfies Record<AgreementRule, string>;
const CALLER_LABELS = {
  llm: 'A model (profile)',
  human: 'A person (waits in “Waiting for you”)',
  a2a: 'A remote agent (A2A)',
  json_schema: 'A verifier: JSON Schema',
  expression: 'A verifier: expression',
} satisfies Record<JudgmentCaller['kind'], string>;
const CALLER_KINDS = ['llm', 'human', 'a2a', 'json_schema', 'expression'] as const satisfies ReadonlyArray<JudgmentCaller['kind']>;
const VERIFY_LABELS = { retry_then_escalate: 'Ask once more, then escalate', retry_then_fail: 'Ask once more, then fail' } satisfies Record<VerificationFailurePolicy, string>;

/** The judgment of a pattern node: where and when it judges, who judges (models, people), how they agree, what a verdict must cite. */
export function PatternJudgmentFields({ node, onChange }: { node: Pattern; onChange: (next: Pattern, group?: string) => void }) {
  const id = useId();
  const { providers } = useHost();
  const j = node.judgment;
  const setJ = (patch: Partial<JudgmentSettings>, group?: string) => onChange({ ...node, judgment: { ...j, ...patch } }, group);
  const setCaller = (i: number, c: JudgmentCaller, group?: string) => setJ({ callers: j.callers.map((old, k) => (k === i ? c : old)) }, group);
  const presetPlacement = PATTERN_PRESETS[node.type].placement;
  const trigger = j.trigger;
  return (
    <section className="wf-inspector__section" data-testid="inspector-judgment">
      <h3 className="wf-inspector__heading">Judgment</h3>
      <SelectField<'preset' | JudgmentPlacement>
        id={`${id}-placement`}
        label="Placement"
        value={j.placement ?? 'preset'}
        options={[{ value: 'preset', label: `The ${node.type} default (${PLACEMENT_LABELS[presetPlacement].toLowerCase()})` }, ...(['after_pattern', 'after_each_step'] as const).map((p) => ({ value: p, label: PLACEMENT_LABELS[p] }))]}
        onChange={(p) => setJ({ placement: p === 'preset' ? undefined : p })}
        testId="inspector-judgment-placement"
      />
      <SelectField<JudgmentMode> id={`${id}-mode`} label="Mode" value={j.mode} options={JUDGMENT_MODES.map((m) => ({ value: m, label: MODE_LABELS[m] }))} onChange={(mode) => setJ({ mode })} testId="inspector-judgment-mode" />
      <SelectField<JudgmentTrigger['kind']>
        id={`${id}-trigger`}
        label="Trigger"
        value={trigger.kind}
        options={(['always', 'below_confidence', 'every_n'] as const).map((k) => ({ value: k, label: TRIGGER_LABELS[k] }))}
        onChange={(k) => setJ({ trigger: triggerOf(k, trigger) })}
        testId="inspector-judgment-trigger"
      />
      {trigger.kind === 'below_confidence' && (
        <NumberField id={`${id}-threshold`} label="Confidence threshold" value={trigger.threshold} min={0} max={1} step={0.05} onChange={(threshold) => setJ({ trigger: { ...trigger, threshold } }, `${node.id}-threshold`)} hint="An output at or above it leaves unjudged, marked accepted." testId="inspector-judgment-threshold" />
      )}
      {trigger.kind === 'every_n' && <NumberField id={`${id}-every`} label="Judge every" value={trigger.n} min={1} max={50} onChange={(n) => setJ({ trigger: { ...trigger, n } }, `${node.id}-every`)} testId="inspector-judgment-every" />}
      <fieldset className="wf-ports" data-testid="inspector-judgment-callers">
        <legend className="wf-ports__title">Callers</legend>
        {j.callers.map((c, i) => (
          <div key={i} className="wf-pattern-member" data-testid="inspector-judgment-caller" data-caller-kind={c.kind}>
            <SelectField<JudgmentCaller['kind']> id={`${id}-c${i}-kind`} label={`Caller ${i + 1}`} value={c.kind} options={CALLER_KINDS.map((k) => ({ value: k, label: CALLER_LABELS[k] }))} onChange={(k) => setCaller(i, callerOf(k, c))} testId="inspector-caller-kind" />
            {c.kind === 'llm' ? (
              <>
                <TextField id={`${id}-c${i}-profile`} label="Profile" value={c.profile} onChange={(v) => setCaller(i, { ...c, profile: v }, `${node.id}-c${i}-profile`)} hint="Its model is chosen below; the privacy policy applies." testId="inspector-caller-profile" />
                <SelectField
                  id={`${id}-c${i}-as`}
                  label="Judges as member"
                  value={c.as_member ?? ''}
                  options={[{ value: '', label: 'No member (a separate judge)' }, ...node.members.map((m) => ({ value: m.id, label: `${m.id} (${m.role})` }))]}
                  onChange={(v) => setCaller(i, v === '' ? { kind: 'llm', profile: c.profile } : { ...c, as_member: v })}
                  testId="inspector-caller-as-member"
                />
              </>
            ) : c.kind !== 'human' ? (
              <InlineJudgeFields id={`${id}-c${i}`} caller={c} onChange={(next, group) => setCaller(i, next, group && `${node.id}-c${i}-${group}`)} group="inline" />
            ) : (
              <>
                <NumberField
                  id={`${id}-c${i}-expiry`}
                  label="Expires after (minutes; 0: never)"
                  value={c.expiry_seconds === undefined ? 0 : Math.round(c.expiry_seconds / 60)}
                  min={0}
                  max={30 * 24 * 60}
                  onChange={(min) => setCaller(i, min <= 0 ? { kind: 'human', fallback: c.fallback } : { ...c, expiry_seconds: Math.max(60, min * 60) }, `${node.id}-c${i}-expiry`)}
                  testId="inspector-caller-expiry"
                />
                <SelectField<'escalate' | 'llm'>
                  id={`${id}-c${i}-fallback`}
                  label="At the expiry"
                  value={c.fallback.kind}
                  options={[
                    { value: 'escalate', label: 'Escalate' },
                    { value: 'llm', label: 'A model judges instead' },
                  ]}
                  onChange={(k) => setCaller(i, { ...c, fallback: k === 'escalate' ? { kind: 'escalate' } : { kind: 'llm', profile: 'default' } })}
                  testId="inspector-caller-fallback"
                />
                {c.fallback.kind === 'llm' && (
                  <TextField id={`${id}-c${i}-fbprofile`} label="Fallback profile" value={c.fallback.profile} onChange={(v) => setCaller(i, { ...c, fallback: { kind: 'llm', profile: v } }, `${node.id}-c${i}-fb`)} testId="inspector-caller-fallback-profile" />
                )}
              </>
            )}
            <button type="button" className="button button--small button--danger" disabled={j.callers.length <= 1} onClick={() => setJ({ callers: j.callers.filter((_, k) => k !== i) })} aria-label={`Remove caller ${i + 1}`} data-testid="inspector-caller-remove">
              Remove caller
            </button>
          </div>
        ))}
        <button type="button" className="button button--small" disabled={j.callers.length >= 7} onClick={() => setJ({ callers: [...j.callers, callerOf('human')] })} data-testid="inspector-caller-add">
          Add a caller
        </button>
      </fieldset>
      {j.callers.length > 1 && (
        <SelectField<AgreementRule> id={`${id}-agree`} label="Agreement" value={j.agreement} options={AGREEMENT_RULES.map((r) => ({ value: r, label: AGREEMENT_LABELS[r] }))} onChange={(agreement) => setJ({ agreement })} hint="An escalation from any caller escalates." testId="inspector-judgment-agreement" />
      )}
      <NumberField id={`${id}-cites`} label="Citations a verdict needs" value={j.verifier.min_citations} min={0} max={20} onChange={(n) => setJ({ verifier: { ...j.verifier, min_citations: n } }, `${node.id}-cites`)} testId="inspector-judgment-min-citations" />
      <fieldset className="wf-ports" data-testid="inspector-judgment-must-cite">
        <legend className="wf-ports__title">Every verdict must cite</legend>
        {node.members.map((m) => (
          <CheckField
            key={m.id}
            id={`${id}-cite-${m.id}`}
            label={m.id}
            checked={j.verifier.must_cite.includes(m.id)}
            onChange={(on) => setJ({ verifier: { ...j.verifier, must_cite: on ? [...j.verifier.must_cite, m.id] : j.verifier.must_cite.filter((x) => x !== m.id) } })}
          />
        ))}
      </fieldset>
      <SelectField<VerificationFailurePolicy>
        id={`${id}-verify`}
        label="A verdict that fails verification"
        value={j.on_verification_failure}
        options={VERIFICATION_FAILURE_POLICIES.map((p) => ({ value: p, label: VERIFY_LABELS[p] }))}
        onChange={(p) => setJ({ on_verification_failure: p })}
        testId="inspector-judgment-verification"
      />
      {judgeProfiles(node).map((profile) => (
        <ModelSelect
          key={profile}
          role="Teacher"
          label={`Judge model for “${profile}”`}
          value={node.judge_models[profile] ?? { provider: 'script' }}
          providers={providers}
          onChange={(ref) => onChange({ ...node, judge_models: { ...node.judge_models, [profile]: ref } })}
          testId="inspector-judge-model"
        />
      ))}
    </section>
  );
}
