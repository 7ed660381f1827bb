import { useEffect, useId, useState } from 'react';
import type { NodeOf, PortDecl } from '@shared/workflow/document';
import type { WorkflowSummary } from '@shared/workflow/hosted-graph';
import { subworkflowPorts, workflowInterface } from '@shared/workflow/subworkflow';
import { CheckField, SelectField } from '../../components/Form';
import { useHost } from '../../app/HostProvider';
import { errorText } from './use-stored-workflow';

type WorkflowRun = NodeOf<'workflow'>;

/**
 * A workflow node (issue 29): which stored workflow it runs — picking one copies its run inputs and
 * outputs as the node's ports — and whether it pins the version saved now. Its ports are listed; the
 * Problems list says when they no longer match the stored workflow.
 */
export function WorkflowRunSection({ node, current, onChange }: { node: WorkflowRun; current?: string; onChange: (next: WorkflowRun, group?: string) => void }) {
  const id = useId();
  const { client, connection } = useHost();
  const [list, setList] = useState<WorkflowSummary[]>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    client.request('workflows.list', {}).then(
      (r) => live && setList(r.workflows),
      (err: unknown) => live && setProblem(`Could not list your workflows: ${errorText(err)}`),
    );
    return () => {
      live = false;
    };
  }, [client, connection]);
  // A workflow cannot run itself: the one being edited is not offered.
  const choices = (list ?? []).filter((w) => w.id !== current);
  const pick = async (workflow: string) => {
    try {
      const { workflow: doc, updated_at } = await client.request('workflows.get', { id: workflow });
      const ports = subworkflowPorts(workflowInterface(doc, updated_at));
      onChange({ ...node, workflow, ...ports, ...(node.version !== undefined ? { version: updated_at } : {}), label: node.label ?? doc.name });
      setProblem(undefined);
    } catch (err) {
      setProblem(`Could not read that workflow: ${errorText(err)}`);
    }
  };
  const pinned = list?.find((w) => w.id === node.workflow)?.updated_at;
  return (
    <>
      <SelectField
        id={`${id}-workflow`}
        label="Workflow to run"
        value={node.workflow}
        options={[...(choices.some((w) => w.id === node.workflow) ? [] : [{ value: node.workflow, label: node.workflow === '' ? 'choose…' : `${node.workflow} (not stored)` }]), ...choices.map((w) => ({ value: w.id, label: `${w.name} (${w.id})` }))]}
        onChange={(v) => void pick(v)}
        hint="Its inputs become this node's inputs, its outputs this node's outputs. It runs as its own run, supervised as it is set up."
        testId="inspector-workflow-pick"
      />
      {problem && <p className="form-row__issue" role="alert">{problem}</p>}
      <CheckField
        id={`${id}-pin`}
        label="Pin this version"
        checked={node.version !== undefined}
        disabled={pinned === undefined}
        onChange={(on) => onChange(on && pinned !== undefined ? { ...node, version: pinned } : (({ version: _v, ...rest }) => rest)(node))}
        hint={node.version !== undefined ? `Runs it as saved ${node.version}; a later save refuses the run until you pick it again.` : 'Off: runs the workflow as it is stored when the run starts.'}
        testId="inspector-workflow-pin"
      />
      <PortList title="Inputs" ports={node.inputs} testId="inspector-workflow-inputs" />
      <PortList title="Outputs" ports={node.outputs} testId="inspector-workflow-outputs" />
    </>
  );
}

function PortList({ title, ports, testId }: { title: string; ports: readonly PortDecl[]; testId: string }) {
  return (
    <fieldset className="wf-ports" data-testid={testId}>
      <legend className="wf-ports__title">{title}</legend>
      {ports.length === 0 ? (
        <p className="muted">None{title === 'Inputs' ? '' : ' yet: pick a workflow'}.</p>
      ) : (
        <ul className="plain-list">
          {ports.map((p) => (
            <li key={p.name}>
              <code>{p.name}</code> · {p.type}
              {title === 'Inputs' && !p.required ? ' · optional' : ''}
              {p.description ? ` — ${p.description}` : ''}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
