import { useId } from 'react';
import { ESCALATION_BEHAVIOURS, LIFECYCLE_PHASES, PHASE_LABELS, type EscalationBehaviour, type LifecyclePhase } from '@shared/contracts/spec';
import { ModelScript } from '@shared/contracts/script';
import type { NodeOf } from '@shared/workflow/document';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { useHost } from '../../app/HostProvider';
import { CheckField, SelectField, TextField } from '../../components/Form';
import { ModelSelect } from '../../components/ModelSelect';
import { PortListEditor } from './PortListEditor';
import { RouteListEditor } from './RouteListEditor';
import { NodeRuntimeFields } from './NodeRuntimeFields';
import { NodeSynthesisFields } from './NodeSynthesisFields';
import { isRecord, JsonField } from './JsonField';
import { ReplayStarter } from './ReplayStarter';
import type { ServerTools } from './use-server-tools';

const ESCALATION_LABELS = {
  teacher_takeover: 'The teacher takes over',
  human: 'Ask me (the run waits for a person)',
  fail: 'Stop the node (failed)',
} satisfies Record<EscalationBehaviour, string>;

type Agent = NodeOf<'agent'>;

/**
 * An agent node's inspector after its Settings: Supervision & Learning (seed 000 puts it before the
 * Input Args), the input args, then the task and instructions that use them as {{name}}.
 */
export function AgentSection({
  node,
  serverIds,
  workflow,
  tools,
  onChange,
}: {
  node: Agent;
  serverIds: readonly string[];
  /** The workflow's servers and folder: the starter replay script reads with their tools. */
  workflow?: Pick<HostedWorkflowGraph, 'servers' | 'workspace'>;
  tools?: Pick<ServerTools, 'inspect' | 'inspecting'>;
  onChange: (next: Agent, group?: string) => void;
}) {
  const { providers } = useHost();
  const id = useId();
  const set = (patch: Partial<Agent>, group?: string) => onChange({ ...node, ...patch }, group);
  const uses = node.servers ?? serverIds;
  return (
    <>
      <TextField id={`${id}-name`} label="Name" value={node.name ?? ''} onChange={(v) => set({ name: v === '' ? undefined : v }, `${node.id}-name`)} testId="inspector-agent-name" />
      <section className="wf-inspector__section" data-testid="inspector-supervision">
        <h3 className="wf-inspector__heading">Supervision &amp; Learning</h3>
        <div className="workflow__models">
          <ModelSelect role="Student" value={node.models.student} providers={providers} onChange={(ref) => set({ models: { ...node.models, student: ref } })} />
          <ModelSelect role="Teacher" value={node.models.teacher} providers={providers} onChange={(ref) => set({ models: { ...node.models, teacher: ref } })} />
        </div>
        <CheckField id={`${id}-sup`} label="Supervision" hint="The teacher reviews what matters; protected effects are never run unreviewed" checked={node.supervision.enabled} onChange={(v) => set({ supervision: { ...node.supervision, enabled: v } })} testId="inspector-supervision-enabled" />
        <SelectField
          id={`${id}-phase`}
          label="Lifecycle phase"
          value={String(node.supervision.phase)}
          options={LIFECYCLE_PHASES.map((p) => ({ value: String(p), label: `${p} · ${PHASE_LABELS[p]}` }))}
          onChange={(v) => set({ supervision: { ...node.supervision, phase: Number(v) as LifecyclePhase } })}
          testId="inspector-phase"
        />
        <SelectField
          id={`${id}-escalate`}
          label="When the teacher escalates"
          value={node.supervision.on_escalate}
          options={ESCALATION_BEHAVIOURS.map((b) => ({ value: b, label: ESCALATION_LABELS[b] }))}
          onChange={(v) => set({ supervision: { ...node.supervision, on_escalate: v as EscalationBehaviour } })}
          testId="inspector-on-escalate"
        />
        <NodeRuntimeFields limits={node.limits} onChange={(limits) => set({ limits }, `${node.id}-runtime`)} />
        <NodeSynthesisFields synthesis={node.synthesis} onChange={(synthesis) => onChange(synthesis === undefined ? withoutSynthesis(node) : { ...node, synthesis }, `${node.id}-synthesis`)} />
      </section>
      <PortListEditor title="Input Args" ports={node.inputs} onChange={(inputs, group) => set({ inputs }, group)} testId="inspector-inputs" />
      <RouteListEditor routes={node.routes ?? []} onChange={(routes, group) => onChange(routes.length === 0 ? withoutRoutes(node) : { ...node, routes }, group)} testId="inspector-routes" />
      <TextField id={`${id}-task`} label="Task" multiline value={node.task} onChange={(v) => set({ task: v }, `${node.id}-task`)} hint="Use an input arg as {{name}}." testId="inspector-task" />
      <TextField id={`${id}-instructions`} label="Instructions" multiline value={node.instructions} onChange={(v) => set({ instructions: v }, `${node.id}-instructions`)} testId="inspector-instructions" />
      <JsonField
        label="Output schema"
        value={node.output_schema ?? null}
        check={(v) => (v === null || isRecord(v) ? undefined : 'a JSON Schema object, {…}, or null for any text')}
        onChange={(v) => {
          if (v === null) onChange(withoutSchema(node), `${node.id}-schema`);
          else if (isRecord(v)) set({ output_schema: v }, `${node.id}-schema`);
        }}
        hint="null: any text. A JSON Schema: the answer must be JSON it accepts; one it refuses fails the node, and a workflow supervisor may repair it (substitute)."
        testId="inspector-output-schema"
      />
      {workflow && tools && <ReplayStarter node={node} servers={workflow.servers} workspace={workflow.workspace} tools={tools} onChange={(next) => onChange(next)} />}
      {(node.models.student.provider === 'script' || node.models.teacher.provider === 'script') && (
        <JsonField
          label="Replay script"
          value={node.script ?? { student: [], teacher: [] }}
          check={(v) => {
            const parsed = ModelScript.safeParse(v);
            return parsed.success ? undefined : `not a replay script: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
          }}
          onChange={(v) => {
            const parsed = ModelScript.safeParse(v);
            if (parsed.success) set({ script: parsed.data }, `${node.id}-script`);
          }}
          hint="What the replay models answer, in order: { student: [{ json: … }], teacher: [{ json: … }] }."
          testId="inspector-script"
        />
      )}
      {serverIds.length > 0 && (
        <fieldset className="wf-ports" data-testid="inspector-agent-servers">
          <legend className="wf-ports__title">Servers it may use</legend>
          {serverIds.map((s) => (
            <CheckField
              key={s}
              id={`${id}-srv-${s}`}
              label={s}
              checked={uses.includes(s)}
              onChange={(on) => set({ servers: on ? [...uses, s] : uses.filter((u) => u !== s) })}
            />
          ))}
        </fieldset>
      )}
    </>
  );
}

/** No routes left: the node declares none (a reroute stops it), not an empty list that refuses every reroute. */
function withoutRoutes(node: Agent): Agent {
  const { routes: _routes, ...rest } = node;
  return rest;
}

function withoutSynthesis(node: Agent): Agent {
  const { synthesis: _synthesis, ...rest } = node;
  return rest;
}

function withoutSchema(node: Agent): Agent {
  const { output_schema: _schema, ...rest } = node;
  return rest;
}
