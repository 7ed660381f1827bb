import { useId, useState } from 'react';
import { modelLabel, type ModelRef } from '@shared/contracts/model';
import type { WorkflowNode } from '@shared/workflow/document';
import type { SupervisorSettings, SupervisorWho } from '@shared/supervisor/contracts';
import { supervisorConsentText } from '@shared/supervisor/consent';
import { useHost } from '../app/HostProvider';
import { CheckField, FieldRow, NumberField, SelectField } from '../components/Form';
import { ModelSelect } from '../components/ModelSelect';
import { agentCloudModels, costCapProblem, isRemoteSupervisor, priceOf, setBound, setCostCap, setDecisionTimeout, setEnabled, setModel, setPrice, setWhoKind } from './supervisor-settings-edit';
import { ShieldIcon } from '../components/Icons';
import './supervision.css';

const WHO_OPTIONS = [
  { value: 'model', label: 'A model decides' },
  { value: 'person', label: 'I decide (the run waits for me)' },
] as const satisfies readonly { value: SupervisorWho['kind']; label: string }[];

/**
 * The workflow's supervisor (issue 11, seed 004), in the editor's workflow panel: off by default;
 * on, a model (local by default, from the same choices as an agent's) or a person decides what a
 * node that still fails does; bounds and a cost cap. Saved as the document's `supervisor`.
 */
export function SupervisorSettingsSection({ value, onChange, nodes = [] }: { value: SupervisorSettings | undefined; onChange: (next: SupervisorSettings, group?: string) => void; nodes?: readonly WorkflowNode[] }) {
  const { providers } = useHost();
  const id = useId();
  const on = value?.enabled ?? false;
  return (
    <section className="wf-inspector__section sv-settings" data-testid="workflow-supervisor" aria-label="Workflow supervisor">
      <h3 className="wf-inspector__heading sv-heading">
        <ShieldIcon size={14} /> Supervisor
      </h3>
      <CheckField
        id={`${id}-on`}
        label="Supervise this workflow"
        hint="When a node still fails after its own retries, a supervisor decides: retry, skip the item, substitute a value, end the stream, or fail. Off: the node fails as before."
        checked={on}
        onChange={(v) => onChange(setEnabled(value, v, providers))}
        testId="supervisor-enabled"
      />
      {on && value && <Settings value={value} onChange={onChange} nodes={nodes} />}
    </section>
  );
}

function Settings({ value, onChange, nodes }: { value: SupervisorSettings; onChange: (next: SupervisorSettings, group?: string) => void; nodes: readonly WorkflowNode[] }) {
  const { providers } = useHost();
  const id = useId();
  const who = value.who;
  const problem = costCapProblem(value);
  return (
    <>
      <SelectField id={`${id}-who`} label="Who decides" value={who.kind} options={WHO_OPTIONS} onChange={(k) => onChange(setWhoKind(value, k, providers))} testId="supervisor-who" />
      {who.kind === 'model' ? (
        <>
          <ModelSelect role="Teacher" label="Supervisor model" testId="supervisor-model" value={who.model} providers={providers} onChange={(ref) => onChange(setModel(value, ref))} />
          {isRemoteSupervisor(value) ? (
            <ConsentNote text={supervisorConsentText(modelLabel(who.model), false)} />
          ) : (
            <p className="muted" data-testid="supervisor-local">
              {modelLabel(who.model)} runs on this machine: failure details never leave it.
            </p>
          )}
        </>
      ) : (
        <p className="muted" data-testid="supervisor-person">
          A node that still fails waits for your verdict under “Waiting for you”, across restarts, until you answer or stop the run.
        </p>
      )}
      <NumberField id={`${id}-dec`} label="Max decisions" value={value.max_decisions} min={1} max={1000} onChange={(n) => onChange(setBound(value, 'max_decisions', n), 'sv-dec')} hint="Escalations per run the supervisor may decide; after that a failing node fails." testId="supervisor-max-decisions" />
      <NumberField id={`${id}-ret`} label="Max retries" value={value.max_retries} min={0} max={10} onChange={(n) => onChange(setBound(value, 'max_retries', n), 'sv-ret')} hint="Retries per node invocation the supervisor may order." testId="supervisor-max-retries" />
      <TypedSetting
        value={value}
        onChange={onChange}
        read={timeoutText}
        apply={setDecisionTimeout}
        label="Decision timeout (seconds)"
        hint={who.kind === 'model' ? 'A model that has not decided by then is stopped, and the node fails (1 to 600).' : 'Empty: the run waits for you until you answer or stop it. Otherwise at least 60; then the node fails.'}
        placeholder={who.kind === 'model' ? '60' : 'no limit'}
        group="sv-timeout"
        testId="supervisor-timeout"
      />
      <TypedSetting
        value={value}
        onChange={onChange}
        read={capText}
        apply={setCostCap}
        label="Cost cap (US$ per run)"
        hint="What the supervisor’s own model turns may cost per run; each turn’s worst case is reserved first. Local models and people cost nothing. A cloud model with no price is refused while a cap is set."
        issue={problem}
        placeholder="no cap"
        group="sv-cap"
        testId="supervisor-cost-cap"
      />
      {who.kind === 'model' && isRemoteSupervisor(value) && <PriceFields value={value} onChange={onChange} model={who.model} hint="Input, then output. Without a price this model cannot be held to a cost cap." testId="supervisor-price" />}
      {agentCloudModels(nodes, value).map((model) => (
        <PriceFields
          key={modelLabel(model)}
          value={value}
          onChange={onChange}
          model={model}
          hint="An agent node’s cloud model: a node that fails has spent its calls at this price. Without a price its cost is unknown, and the supervisor never retries it."
          testId="node-model-price"
        />
      ))}
    </>
  );
}

/** The consent text (one truth with the CLI and the docs): its lead line, its list of what is sent, its closing line. */
function ConsentNote({ text }: { text: string }) {
  const lines = text.split('\n');
  const bullet = (l: string) => l.trimStart().startsWith('•');
  return (
    <div className="banner-inline banner-inline--accent sv-consent" role="note" data-testid="supervisor-consent">
      {lines.filter((l) => !bullet(l)).slice(0, 1).map((l) => <p key="lead">{l}</p>)}
      <ul>
        {lines.filter(bullet).map((l) => (
          <li key={l}>{l.trimStart().replace(/^•\s*/, '')}</li>
        ))}
      </ul>
      {lines.filter((l) => !bullet(l)).slice(1).map((l) => <p key={l}>{l}</p>)}
    </div>
  );
}

/**
 * A number typed as text (`read` shows the saved one, `apply` takes the text; empty may mean none):
 * a half-typed number ("0.") stays in the field while it reads the same; undo, redo or a reload
 * changing it underneath shows what is saved.
 */
function TypedSetting({
  value,
  onChange,
  read,
  apply,
  label,
  hint,
  issue,
  placeholder,
  group,
  testId,
}: {
  value: SupervisorSettings;
  onChange: (next: SupervisorSettings, group?: string) => void;
  read: (s: SupervisorSettings) => string;
  apply: (s: SupervisorSettings, text: string) => SupervisorSettings;
  label: string;
  hint: string;
  issue?: string;
  placeholder: string;
  group: string;
  testId: string;
}) {
  const id = useId();
  const saved = read(value);
  const [text, setText] = useState(saved);
  const [seen, setSeen] = useState(saved);
  if (saved !== seen) {
    setSeen(saved);
    if (!readsAs(text, saved)) setText(saved);
  }
  return (
    <FieldRow label={label} htmlFor={id} hint={hint} issue={issue}>
      <input
        id={id}
        className="input input--number"
        inputMode="decimal"
        placeholder={placeholder}
        value={text}
        data-testid={testId}
        onChange={(e) => {
          setText(e.target.value);
          onChange(apply(value, e.target.value), group);
        }}
      />
    </FieldRow>
  );
}

/** A half-typed number that says the same ("0." for 0, " 5" for 5); empty says empty. */
const readsAs = (text: string, saved: string): boolean => (text.trim() === '' || saved === '' ? text.trim() === saved : Number(text) === Number(saved));
const capText = (s: SupervisorSettings) => (s.cost_cap_usd === undefined ? '' : String(s.cost_cap_usd));
const timeoutText = (s: SupervisorSettings) => (s.who.decision_timeout_ms === undefined ? '' : String(s.who.decision_timeout_ms / 1000));

/** A cloud model's price per million tokens: what the cap reserves against, and what a failed node's spend is counted at. */
function PriceFields({ value, onChange, model, hint, testId }: { value: SupervisorSettings; onChange: (next: SupervisorSettings, group?: string) => void; model: ModelRef; hint: string; testId: string }) {
  const id = useId();
  const price = priceOf(value, model);
  const set = (field: 'input_per_mtok_usd' | 'output_per_mtok_usd', text: string) => {
    const empty = text.trim() === '';
    const n = empty ? 0 : Number(text);
    if (!Number.isFinite(n) || n < 0) return;
    const next = { input_per_mtok_usd: 0, output_per_mtok_usd: 0, ...price, [field]: n };
    // Both emptied: no price (a price of 0 is typed as 0).
    const cleared = empty && next.input_per_mtok_usd === 0 && next.output_per_mtok_usd === 0;
    onChange(setPrice(value, model, cleared ? undefined : next), `sv-price:${modelLabel(model)}`);
  };
  return (
    <FieldRow label={`Price of ${modelLabel(model)} (US$ per million tokens)`} htmlFor={`${id}-in`} hint={hint}>
      <div className="wf-ports__row">
        <input id={`${id}-in`} className="input input--number" type="number" min={0} step="any" aria-label="Input price per million tokens" placeholder="input" value={price?.input_per_mtok_usd ?? ''} onChange={(e) => set('input_per_mtok_usd', e.target.value)} data-testid={`${testId}-input`} />
        <input className="input input--number" type="number" min={0} step="any" aria-label="Output price per million tokens" placeholder="output" value={price?.output_per_mtok_usd ?? ''} onChange={(e) => set('output_per_mtok_usd', e.target.value)} data-testid={`${testId}-output`} />
      </div>
    </FieldRow>
  );
}
