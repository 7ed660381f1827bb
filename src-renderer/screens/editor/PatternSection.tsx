import { useId } from 'react';
import { EXHAUSTION_POLICIES, PATTERN_TYPES, type ExhaustionPolicy, type PatternType } from '@shared/pattern/contracts';
import { PATTERN_PRESETS } from '@shared/pattern/presets';
import type { PatternMemberAgent } from '@shared/workflow/document';
import { useHost } from '../../app/HostProvider';
import { NumberField, SelectField, TextField } from '../../components/Form';
import { ModelSelect } from '../../components/ModelSelect';
import { PatternJudgmentFields } from './PatternJudgmentFields';
import { addMember, removeMember, renameMember, withPreset, type Pattern } from './pattern-edit';
import { PortListEditor } from './PortListEditor';

const EXHAUSTION_LABELS = {
  fail: 'Fail the node',
  escalate: 'Escalate (the node fails as escalated)',
  best_unapproved: 'Return the best output, marked unapproved',
} satisfies Record<ExhaustionPolicy, string>;

/**
 * A pattern node's inspector after its Settings (issue 12): the type (each starts from its preset),
 * the task and input args, the member agents with their models, the iteration bound and what
 * happens when it runs out, then the judgment.
 */
export function PatternSection({ node, onChange }: { node: Pattern; onChange: (next: Pattern, group?: string) => void }) {
  const id = useId();
  const set = (patch: Partial<Pattern>, group?: string) => onChange({ ...node, ...patch }, group);
  return (
    <>
      <TextField id={`${id}-name`} label="Name" value={node.name ?? ''} onChange={(v) => set({ name: v === '' ? undefined : v }, `${node.id}-name`)} testId="inspector-pattern-name" />
      <section className="wf-inspector__section" data-testid="inspector-pattern">
        <h3 className="wf-inspector__heading">Pattern</h3>
        <SelectField<PatternType>
          id={`${id}-type`}
          label="Type"
          value={node.type}
          options={PATTERN_TYPES.map((t) => ({ value: t, label: t }))}
          onChange={(t) => onChange(withPreset(node, t))}
          hint={`${PATTERN_PRESETS[node.type].summary} Another type starts from its preset members and judgment.`}
          testId="inspector-pattern-type"
        />
        <button type="button" className="button button--small" onClick={() => onChange(withPreset(node, node.type))} title="Members and judgment as the preset has them" data-testid="inspector-pattern-preset">
          Reset to the {node.type} preset
        </button>
        <NumberField id={`${id}-iters`} label="Max iterations" value={node.max_iterations} min={1} max={20} onChange={(n) => set({ max_iterations: n }, `${node.id}-iters`)} hint="Dispatches per judged unit (the pattern, or each PIPELINE step)." testId="inspector-pattern-max-iterations" />
        <SelectField<ExhaustionPolicy>
          id={`${id}-exhaust`}
          label="When no output is approved"
          value={node.on_exhaustion}
          options={EXHAUSTION_POLICIES.map((p) => ({ value: p, label: EXHAUSTION_LABELS[p] }))}
          onChange={(p) => set({ on_exhaustion: p })}
          testId="inspector-pattern-exhaustion"
        />
      </section>
      <PortListEditor title="Input Args" ports={node.inputs} onChange={(inputs, group) => set({ inputs }, group)} testId="inspector-inputs" />
      <TextField id={`${id}-task`} label="Task" multiline value={node.task} onChange={(v) => set({ task: v }, `${node.id}-task`)} hint="Every member gets it; use an input arg as {{name}}." testId="inspector-task" />
      <MembersEditor node={node} onChange={onChange} />
      <PatternJudgmentFields node={node} onChange={onChange} />
    </>
  );
}

function MembersEditor({ node, onChange }: { node: Pattern; onChange: (next: Pattern, group?: string) => void }) {
  const id = useId();
  const { providers } = useHost();
  const setMember = (i: number, patch: Partial<PatternMemberAgent>, group?: string) => onChange({ ...node, members: node.members.map((m, j) => (j === i ? { ...m, ...patch } : m)) }, group);
  return (
    <fieldset className="wf-ports" data-testid="inspector-pattern-members">
      <legend className="wf-ports__title">Members</legend>
      {node.members.map((m, i) => (
        <div key={i} className="wf-pattern-member" data-testid="inspector-pattern-member" data-member={m.id}>
          <TextField id={`${id}-m${i}-id`} label="Id" value={m.id} onChange={(v) => onChange(renameMember(node, m.id, v), `${node.id}-m${i}-id`)} testId="inspector-member-id" />
          <TextField id={`${id}-m${i}-role`} label="Role" value={m.role} onChange={(v) => setMember(i, { role: v }, `${node.id}-m${i}-role`)} testId="inspector-member-role" />
          <TextField id={`${id}-m${i}-instr`} label="Instructions" multiline value={m.instructions} onChange={(v) => setMember(i, { instructions: v }, `${node.id}-m${i}-instr`)} testId="inspector-member-instructions" />
          <div className="workflow__models">
            <ModelSelect role="Student" label={`${m.id}: model`} value={m.models.student} providers={providers} onChange={(ref) => setMember(i, { models: { ...m.models, student: ref } })} testId="inspector-member-student" />
            <ModelSelect role="Teacher" label={`${m.id}: its teacher`} value={m.models.teacher} providers={providers} onChange={(ref) => setMember(i, { models: { ...m.models, teacher: ref } })} testId="inspector-member-teacher" />
          </div>
          <button type="button" className="button button--small button--danger" disabled={node.members.length <= 1} onClick={() => onChange(removeMember(node, m.id))} aria-label={`Remove member ${m.id}`} data-testid="inspector-member-remove">
            Remove member
          </button>
        </div>
      ))}
      <button type="button" className="button button--small" disabled={node.members.length >= 12} onClick={() => onChange(addMember(node))} data-testid="inspector-member-add">
        Add a member
      </button>
    </fieldset>
  );
}
