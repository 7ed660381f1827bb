import { useId } from 'react';
import type { NodeOf } from '@shared/workflow/document';
import type { HostedServerRef } from '@shared/contracts/hosted-workflow';
import { FieldRow, SelectField } from '../../components/Form';
import { Spinner } from '../../components/Icons';
import { isRecord, JsonField } from './JsonField';
import { PortListEditor } from './PortListEditor';
import type { ServerTools } from './use-server-tools';

type Tool = NodeOf<'tool'>;

/** A tool node: which of the workflow's servers, which of its tools (as inspected), the templated arguments. */
export function ToolSection({ node, servers, tools, onChange }: { node: Tool; servers: readonly HostedServerRef[]; tools: ServerTools; onChange: (next: Tool, group?: string) => void }) {
  const id = useId();
  const set = (patch: Partial<Tool>, group?: string) => onChange({ ...node, ...patch }, group);
  const ref = servers.find((s) => s.id === node.server);
  const known = ref ? tools.byServer[ref.server]?.filter((t) => !ref.tools || ref.tools.includes(t)) : undefined;
  const inspecting = ref !== undefined && tools.inspecting === ref.server;
  return (
    <>
      {servers.length === 0 ? (
        <p className="muted" data-testid="inspector-no-servers">
          Add a server to the workflow first (click the empty canvas: Workflow panel).
        </p>
      ) : (
        <SelectField
          id={`${id}-server`}
          label="Server"
          value={node.server}
          options={[...(ref ? [] : [{ value: node.server, label: node.server === '' ? 'choose…' : `${node.server} (not in this workflow)` }]), ...servers.map((s) => ({ value: s.id, label: `${s.id} (${s.server})` }))]}
          onChange={(v) => set({ server: v })}
          testId="inspector-tool-server"
        />
      )}
      <FieldRow label="Tool" htmlFor={`${id}-tool`} hint={known ? undefined : 'Inspect the server to choose from its tools.'}>
        <input id={`${id}-tool`} className="input" list={`${id}-tools`} value={node.tool} onChange={(e) => set({ tool: e.target.value }, `${node.id}-tool`)} data-testid="inspector-tool-name" />
        {known && (
          <datalist id={`${id}-tools`}>
            {known.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        )}
        {known && known.length > 0 && (
          <select className="select" aria-label="Tools of the server" value={known.includes(node.tool) ? node.tool : ''} onChange={(e) => set({ tool: e.target.value })} data-testid="inspector-tool-select">
            <option value="" disabled>
              {known.length} tools…
            </option>
            {known.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        )}
        {ref && (
          <button type="button" className="button button--small" disabled={inspecting} onClick={() => tools.inspect(ref.server)} data-testid="inspector-inspect-tools">
            {inspecting ? <Spinner /> : null}
            {known ? 'Inspect again' : 'Inspect tools'}
          </button>
        )}
        {tools.error && <p className="form-row__issue">{tools.error}</p>}
      </FieldRow>
      <JsonField label="Arguments" value={node.arguments} check={(v) => (isRecord(v) ? undefined : 'the arguments are a JSON object, {…}')}
        onChange={(v) => isRecord(v) && set({ arguments: v }, `${node.id}-args`)} hint='A string "{{name}}" takes that input as it is (typed); inside text it is substituted.' testId="inspector-tool-arguments" />
      <PortListEditor title="Inputs" ports={node.inputs} onChange={(inputs, group) => set({ inputs }, group)} testId="inspector-inputs" />
      <SelectField
        id={`${id}-stream`}
        label="Stream"
        value={node.stream?.over ?? ''}
        options={[
          { value: '', label: 'No: one call' },
          ...node.inputs.filter((p) => p.type === 'list' || p.type === 'any' || p.name === node.stream?.over).map((p) => ({ value: p.name, label: `One call per element of ${p.name}` })),
        ]}
        onChange={(v) => onChange(v === '' ? withoutStream(node) : { ...node, stream: { over: v } })}
        hint={node.stream ? '{{item}} in the arguments is the element. Each result goes on as it arrives; an iterate after this node takes them one by one.' : 'Declare a list input to call the tool once per element, streaming the results on.'}
        testId="inspector-tool-stream"
      />
    </>
  );
}


function withoutStream(node: Tool): Tool {
  const { stream: _stream, ...rest } = node;
  return rest;
}
