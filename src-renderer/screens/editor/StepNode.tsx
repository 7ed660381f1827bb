import { memo, useEffect } from 'react';
import { Handle, Position, useUpdateNodeInternals, type NodeProps } from '@xyflow/react';
import { NODE_KIND_LABELS, portsOf } from '@shared/workflow/ports';
import { runStateText, type StepNode as StepNodeType } from './flow-convert';
import { OutputPortName } from './OutputPortName';
import { SupervisorBadges } from '../../workflow-supervisor/SupervisorBadges';

/** What a node says about itself under its kind: an agent's task, a tool's call, an assert's checks. */
function summary(node: StepNodeType['data']['node']): string | undefined {
  switch (node.kind) {
    case 'agent':
      return node.name ?? node.task;
    case 'tool':
      return node.tool ? `${node.server || '?'} · ${node.tool}${node.stream ? ` · streams each of ${node.stream.over}` : ''}` : undefined;
    case 'assert':
      return node.checks.map((c) => c.check.replace('_', ' ')).join(', ');
    case 'iterate':
      return `${node.concurrency} at a time`;
    default:
      return undefined;
  }
}

function PortProblem({ messages }: { messages?: string[] }) {
  if (!messages) return null;
  return (
    <span className="wf-node__port-problem" title={messages.join('\n')} role="img" aria-label={messages.join('; ')}>
      !
    </span>
  );
}

/**
 * A node's problems as one line of fixed height (the count, then the first in words, cut with an
 * ellipsis): a node never grows over the node placed below it. Every problem in full is in the
 * line's tooltip and accessible name, in the inspector and in the Problems list under the canvas.
 */
function NodeProblems({ id, messages }: { id: string; messages: readonly string[] }) {
  const count = messages.length === 1 ? '1 problem' : `${messages.length} problems`;
  return (
    <p className="wf-node__problems" data-testid={`problem-${id}`} title={messages.join('\n')}>
      <span aria-hidden="true">⚠ </span>
      <span className="wf-node__problems-count">{count}:</span> {messages.join(' · ')}
    </p>
  );
}

/** One workflow node on the canvas: kind, label, inputs as left handles, outputs as right handles. */
export const StepNode = memo(function StepNode({ id, data, selected }: NodeProps<StepNodeType>) {
  const { node, problems, portProblems, run } = data;
  const ports = portsOf(node);
  // A port renamed, added or removed moves the handles: React Flow measures them again.
  const updateNodeInternals = useUpdateNodeInternals();
  const handles = [...ports.inputs.map((p) => `in:${p.name}`), ...ports.outputs.map((p) => `out:${p.name}`)].join('\u0000');
  useEffect(() => updateNodeInternals(id), [handles, id, updateNodeInternals]);
  // Every problem in words on the node; a port's also marked by the port.
  const all = [...problems, ...Object.entries(portProblems).flatMap(([port, messages]) => messages.map((m) => `${port}: ${m}`))];
  const broken = all.length > 0;
  const text = summary(node);
  return (
    <div
      className={`wf-node wf-node--${node.kind} ${selected ? 'wf-node--selected' : ''} ${broken ? 'wf-node--problem' : ''} ${run ? `wf-node--run wf-node--${run.status}` : ''} ${data.supervision?.deciding ? 'wf-node--deciding' : ''}`}
      data-testid={`node-${node.id}`}
      data-kind={node.kind}
      data-status={run?.status}
    >
      <header className="wf-node__head">
        <span className="wf-node__kind">{NODE_KIND_LABELS[node.kind]}</span>
        <span className="wf-node__title">{node.label ?? node.id}</span>
      </header>
      {text && <p className="wf-node__summary">{text}</p>}
      {run && (
        <p className="wf-node__run" data-testid={`node-state-${node.id}`}>
          {data.runHref ? (
            <a className="nodrag" href={data.runHref} title="Open this node's invocations and rounds">
              {runStateText(run)} →
            </a>
          ) : (
            runStateText(run)
          )}
        </p>
      )}
      {run && <SupervisorBadges nodeId={node.id} supervision={data.supervision} />}
      <div className="wf-node__ports">
        <ul className="wf-node__inputs" aria-label="inputs">
          {ports.inputs.map((p) => (
            <li key={`in-${p.name}`} className="wf-node__port wf-node__port--in" data-testid={`port-${node.id}-in-${p.name}`} aria-label={`input ${p.name}, ${p.type}${p.required ? '' : ', optional'}${portProblems[p.name] ? `, ${portProblems[p.name]!.join('; ')}` : ''}`}>
              <Handle type="target" position={Position.Left} id={p.name} className={`wf-handle wf-handle--${p.type}`} />
              <span className="wf-node__port-name">
                {p.name}
                {p.required ? '' : '?'}
              </span>
              <span className="wf-node__port-type">{p.type}</span>
              <PortProblem messages={portProblems[p.name]} />
            </li>
          ))}
        </ul>
        <ul className="wf-node__outputs" aria-label="outputs">
          {ports.outputs.map((p) => (
            <li key={`out-${p.name}`} className="wf-node__port wf-node__port--out" data-testid={`port-${node.id}-out-${p.name}`} aria-label={`${p.route ? 'route' : 'output'} ${p.name}, ${p.scope === 'item' ? `${p.type} per item` : p.type}`} data-route={p.route ? 'true' : undefined}>
              <PortProblem messages={ports.inputs.some((i) => i.name === p.name) ? undefined : portProblems[p.name]} />
              <span className="wf-node__port-type">{p.route ? 'route' : p.scope === 'item' ? `${p.type} per item` : p.type}</span>
              <OutputPortName node={node.id} port={p.name} />
              <Handle type="source" position={Position.Right} id={p.name} className={`wf-handle wf-handle--${p.type}`} />
            </li>
          ))}
        </ul>
      </div>
      {all.length > 0 && <NodeProblems id={node.id} messages={all} />}
    </div>
  );
});

export const NODE_TYPES = { step: StepNode };
