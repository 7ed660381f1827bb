import { useId } from 'react';
import type { WorkflowNode } from '@shared/workflow/document';
import { NODE_KIND_LABELS } from '@shared/workflow/ports';
import { NumberField, SelectField, TextField } from '../../components/Form';
import { AgentSection } from './AgentSection';
import { AssertSection } from './AssertSection';
import type { Draft } from './graph-edit';
import { JsonField } from './JsonField';
import { PatternSection } from './PatternSection';
import { PortListEditor } from './PortListEditor';
import { ToolSection } from './ToolSection';
import { WorkflowRunSection } from './WorkflowRunSection';
import type { ServerTools } from './use-server-tools';
import { ProblemLines } from './ProblemsList';
import { idIssue, nameIssue, notSaidByFields } from './field-words';
import { nodeName, withFollowingId } from './id-follows-name';

/**
 * The selected node's settings. Every change goes through `onChange` as a whole new node (the
 * editor replaces it in the draft, keeping edges through renames); `group` merges typing in one
 * field into one undo step.
 */
export function Inspector({
  node,
  draft,
  tools,
  problems,
  onChange,
  onRemove,
  saved = false,
}: {
  node: WorkflowNode;
  draft: Draft;
  tools: ServerTools;
  problems: readonly string[];
  onChange: (next: WorkflowNode, group?: string) => void;
  onRemove: () => void;
  /** The node is in the stored workflow: its Id no longer follows its name. */
  saved?: boolean;
}) {
  const id = useId();
  const siblings = draft.nodes.filter((n) => n !== node).map((n) => n.id);
  // A new name (label, or an agent's name) takes the Id along while the Id is still the one the old name made.
  const edit = (next: WorkflowNode, group?: string) => {
    const renamed = nodeName(next) !== nodeName(node) ? withFollowingId(node, next, siblings, saved) : next;
    onChange(renamed, renamed.id !== next.id ? 'node-name-id' : group);
  };
  return (
    <aside className="wf-inspector" data-testid="inspector" aria-label={`${NODE_KIND_LABELS[node.kind]} node ${node.id}`}>
      <header className="wf-inspector__head">
        <h2 className="wf-inspector__title">
          {NODE_KIND_LABELS[node.kind]} <code>{node.id}</code>
        </h2>
        <button type="button" className="button button--small button--danger" onClick={onRemove} data-testid="inspector-remove">
          Remove
        </button>
      </header>
      <ProblemLines problems={notSaidByFields(problems, [idIssue(node.id, siblings), nameIssue(node.label ?? '', { required: false })])} testId="inspector-problems" />
      <section className="wf-inspector__section">
        <h3 className="wf-inspector__heading">Settings</h3>
        <TextField id={`${id}-id`} label="Id" value={node.id} onChange={(v) => onChange({ ...node, id: v }, `${node.id}-id`)} hint="Lowercase letters, digits, - and _; edges follow a rename." issue={idIssue(node.id, siblings)} testId="inspector-id" />
        <TextField id={`${id}-label`} label="Label" value={node.label ?? ''} onChange={(v) => edit({ ...node, label: v === '' ? undefined : v }, `${node.id}-label`)} issue={nameIssue(node.label ?? '', { required: false })} testId="inspector-label" />
      </section>
      <KindSection node={node} draft={draft} tools={tools} onChange={edit} />
    </aside>
  );
}

function KindSection({ node, draft, tools, onChange }: { node: WorkflowNode; draft: Draft; tools: ServerTools; onChange: (next: WorkflowNode, group?: string) => void }) {
  const id = useId();
  switch (node.kind) {
    case 'input':
      return <PortListEditor title="Fields" min={1} ports={node.fields} onChange={(fields, group) => onChange({ ...node, fields }, group)} testId="inspector-fields" />;
    case 'output':
      return <PortListEditor title="Fields" min={1} ports={node.fields} onChange={(fields, group) => onChange({ ...node, fields }, group)} testId="inspector-fields" />;
    case 'agent':
      return <AgentSection node={node} serverIds={draft.servers.map((s) => s.id)} workflow={draft} tools={tools} onChange={onChange} />;
    case 'pattern':
      return <PatternSection node={node} onChange={onChange} />;
    case 'tool':
      return <ToolSection node={node} servers={draft.servers} tools={tools} onChange={onChange} />;
    case 'assert':
      return <AssertSection node={node} onChange={onChange} />;
    case 'iterate':
      return <NumberField id={`${id}-conc`} label="Concurrency" value={node.concurrency} min={1} max={64} onChange={(n) => onChange({ ...node, concurrency: n }, `${node.id}-conc`)} hint="Items in flight at once below this node." testId="inspector-concurrency" />;
    case 'collect':
      return <p className="muted">Gathers every item of its iterate into a list, in item order.</p>;
    case 'workflow':
      return <WorkflowRunSection node={node} current={draft.id} onChange={onChange} />;
    case 'template':
      return (
        <>
          <SelectField
            id={`${id}-format`}
            label="Format"
            value={node.format}
            options={[
              { value: 'text', label: 'text' },
              { value: 'json', label: 'JSON' },
            ]}
            onChange={(format) => onChange({ ...node, format, template: format === 'json' ? (typeof node.template === 'string' ? { text: node.template } : node.template) : typeof node.template === 'string' ? node.template : JSON.stringify(node.template) })}
            testId="inspector-template-format"
          />
          {node.format === 'text' ? (
            <TextField id={`${id}-tpl`} label="Template" multiline value={typeof node.template === 'string' ? node.template : ''} onChange={(v) => onChange({ ...node, template: v }, `${node.id}-tpl`)} hint="Use an input as {{name}}." testId="inspector-template" />
          ) : (
            <JsonField label="Template" value={node.template} onChange={(v) => onChange({ ...node, template: v }, `${node.id}-tpl`)} hint='Strings inside are templated; "{{name}}" alone keeps the value typed.' testId="inspector-template" />
          )}
          <PortListEditor title="Inputs" ports={node.inputs} onChange={(inputs, group) => onChange({ ...node, inputs }, group)} testId="inspector-inputs" />
        </>
      );
  }
}
