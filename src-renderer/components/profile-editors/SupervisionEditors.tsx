import { useState } from 'react';
import { BLOCK_BEHAVIOUR_LABELS, BLOCK_BEHAVIOURS, ESCALATION_BEHAVIOUR_LABELS, ESCALATION_BEHAVIOURS, SupervisionSpec } from '@shared/contracts/spec';
import type { ProfileOf } from '../../db/profiles';
import { CheckField, FieldRow, NumberField, SelectField, TextField, fieldDomId } from '../Form';

export type SupervisionSettings = ProfileOf<'supervision'>['supervision'];

const DEFAULT_SAFE_MESSAGE = SupervisionSpec.parse({}).safe_message;

const BLOCK_LABELS = BLOCK_BEHAVIOUR_LABELS;
const ESCALATE_LABELS = ESCALATION_BEHAVIOUR_LABELS;

/** Review rules of a supervision profile (docs/supervision.md). Protected effects are always reviewed: not a switch. */
export function RulesEditor({
  idPrefix,
  value,
  onChange,
  toolNames,
}: {
  idPrefix: string;
  value: SupervisionSettings;
  onChange: (next: SupervisionSettings) => void;
  /** Tools the workflow's servers offer, when known, for the "always review" list. */
  toolNames?: readonly string[];
}) {
  const id = (field: string) => fieldDomId(`supervision.${field}`, idPrefix);
  const rules = value.rules;
  const setRules = (changes: Partial<SupervisionSettings['rules']>) => onChange({ ...value, rules: { ...rules, ...changes } });
  const [newTool, setNewTool] = useState('');
  const known = [...new Set([...(toolNames ?? []), ...rules.tools])];

  return (
    <div className="form-grid">
      <p className="form-note">
        Protected effects (anything but a read, and every tool nobody described) are always reviewed while the student proposes. In phase 3 the rules below add review; phase 4 keeps only
        invalid decisions and sampled audits; phases 0–2 review everything.
      </p>
      <CheckField
        id={id('rules.validation_failed')}
        label="Send invalid decisions to the teacher"
        checked={rules.validation_failed}
        onChange={(v) => setRules({ validation_failed: v })}
        hint="After the student’s own repairs. Off: the round fails and the problem is fed back next round."
      />
      <NumberField id={id('max_repair_rounds')} label="Student repairs per round" value={value.max_repair_rounds} min={0} max={3} onChange={(n) => onChange({ ...value, max_repair_rounds: n })} hint="Times the student may fix an invalid decision, told what was wrong, before review." />
      <CheckField id={id('rules.complete')} label="Review finishes" checked={rules.complete} onChange={(v) => setRules({ complete: v })} hint="The teacher checks every “complete” decision (phase 3)." />
      <CheckField
        id={id('rules.untrusted_provenance')}
        label="Review calls carrying values from untrusted tool results"
        checked={rules.untrusted_provenance !== false}
        onChange={(v) => setRules({ untrusted_provenance: v })}
        hint="Phases 3 and 4: a tool call whose arguments copy text an untrusted server returned (a file, a page, a stored note) goes to the teacher, which sees where each value came from. Guards against injected instructions; costs a review each time."
        testId="rule-untrusted-provenance"
      />
      <CheckField
        id={`${id('rules.min_confidence')}-set`}
        label="Review low self-reported confidence"
        checked={rules.min_confidence !== undefined}
        onChange={(on) => {
          const { min_confidence: _m, ...rest } = rules;
          onChange({ ...value, rules: on ? { ...rest, min_confidence: 0.6 } : rest });
        }}
        hint="A decision without a confidence counts as low (phase 3)."
      />
      {rules.min_confidence !== undefined && (
        <NumberField id={id('rules.min_confidence')} label="Minimum confidence" value={rules.min_confidence} min={0} max={1} step={0.05} onChange={(n) => setRules({ min_confidence: n })} />
      )}
      <NumberField
        id={id('rules.sample_rate')}
        label="Audit sample rate"
        value={rules.sample_rate}
        min={0}
        max={1}
        step={0.05}
        onChange={(n) => setRules({ sample_rate: n })}
        hint="Share of otherwise unreviewed decisions the teacher audits (phases 3 and 4); 0 = none."
        testId="sample-rate"
      />
      <NumberField id={id('rules.sample_seed')} label="Sampler seed" value={rules.sample_seed} min={0} step={1} onChange={(n) => setRules({ sample_seed: Math.round(n) })} hint="The same seed, run and round always draw the same: a replay audits the same rounds." />
      <FieldRow label="Always review these tools" htmlFor={id('rules.tools')} hint="Phase 3. Names must be tools the workflow’s servers offer.">
        <div className="check-list" id={id('rules.tools')} tabIndex={-1} role="group" aria-label="Always review these tools">
          {known.length === 0 && <span className="muted">No tools known yet: inspect the servers in the MCP registry, or add a name.</span>}
          {known.map((tool) => (
            <label key={tool} className="check-list__item">
              <input type="checkbox" checked={rules.tools.includes(tool)} onChange={(e) => setRules({ tools: e.target.checked ? [...rules.tools, tool] : rules.tools.filter((t) => t !== tool) })} />
              <code>{tool}</code>
            </label>
          ))}
          <span className="inline-add">
            <input className="input input--small" aria-label="Tool name to add" placeholder="tool name" value={newTool} onChange={(e) => setNewTool(e.target.value)} />
            <button
              type="button"
              className="button button--small"
              disabled={!newTool.trim() || rules.tools.includes(newTool.trim())}
              onClick={() => {
                setRules({ tools: [...rules.tools, newTool.trim()] });
                setNewTool('');
              }}
            >
              Add
            </button>
          </span>
        </div>
      </FieldRow>
    </div>
  );
}

/** What happens after a block or an escalation, and how often a bad verdict is re-asked. */
export function HandoverEditor({ idPrefix, value, onChange }: { idPrefix: string; value: SupervisionSettings; onChange: (next: SupervisionSettings) => void }) {
  const id = (field: string) => fieldDomId(`supervision.${field}`, idPrefix);
  return (
    <div className="form-grid">
      <NumberField
        id={id('max_verdict_attempts')}
        label="Verdict attempts"
        value={value.max_verdict_attempts}
        min={1}
        max={5}
        onChange={(n) => onChange({ ...value, max_verdict_attempts: n })}
        hint="A malformed or unusable verdict is re-asked, with the problem, up to this many times; then the round is blocked."
      />
      <SelectField id={id('on_block')} label="When the teacher blocks" value={value.on_block} options={BLOCK_BEHAVIOURS.map((b) => ({ value: b, label: BLOCK_LABELS[b] }))} onChange={(on_block) => onChange({ ...value, on_block })} testId="on-block" />
      <TextField
        id={id('safe_message')}
        label="Safe message"
        value={value.safe_message}
        multiline
        onChange={(safe_message) => onChange({ ...value, safe_message: safe_message || DEFAULT_SAFE_MESSAGE })}
        hint="Delivered instead of the blocked decision when “deliver the safe message” is chosen."
        testId="safe-message"
      />
      <SelectField
        id={id('on_escalate')}
        label="When the teacher escalates"
        value={value.on_escalate}
        options={ESCALATION_BEHAVIOURS.map((b) => ({ value: b, label: ESCALATE_LABELS[b] }))}
        onChange={(on_escalate) => onChange({ ...value, on_escalate })}
        testId="on-escalate"
      />
      <NumberField
        id={id('takeover_rounds')}
        label="Takeover rounds"
        value={value.takeover_rounds}
        min={1}
        max={10}
        onChange={(n) => onChange({ ...value, takeover_rounds: n })}
        hint="Rounds the teacher decides after an escalation, then it hands back to the student."
      />
    </div>
  );
}
