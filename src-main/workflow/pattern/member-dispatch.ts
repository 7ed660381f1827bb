import { AgentSpec } from '@shared/contracts/spec';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { RunCheckpoint } from '../../engine/checkpoint';
import type { MemberOutput, PatternMember } from '@shared/pattern/contracts';
import type { DispatchInput } from '@shared/pattern/machine';
import { PATTERN_PRESETS, type PatternPreset } from '@shared/pattern/presets';
import type { NodeOf, PatternMemberAgent, WorkflowGraph } from '@shared/workflow/document';
import { runAgent } from '../../engine/run-agent';
import type { ToolHost } from '../../mcp/tool-host';
import type { ModelProvider } from '../../providers/provider';
import { ReplayCursor } from './replay-cursor';
import type { RecordedPattern } from './recorded-pattern';
import { agentRunId, nestedPayload, type AgentNodeDeps } from '../agent-node';
import type { NodeRun } from '../node-outcome';
import { workflowToolsFor } from '../workflow-as-tool';
import type { SubworkflowDeps } from '../workflow-node';

/**
 * Dispatch for a pattern node: each member of the iteration runs as an agent through the same
 * loop as an agent node — its proposals cross its own decision boundary (validation, its review
 * rules, authorization), with its own models, limits and replay script. Members run in order; each
 * later member sees the earlier outputs of this iteration (the opponent answers the proponent, the
 * editor works on the draft).
 */
export type MemberDeps = Pick<
  AgentNodeDeps,
  'runId' | 'keyRunId' | 'keepToolResults' | 'graph' | 'specDir' | 'workspace' | 'ledger' | 'confirm' | 'privacy' | 'ollamaHost' | 'credentials' | 'onProgress' | 'toolHost'
> & {
  /** Call the models, execute no tool (a dry replay). */
  dryRun?: boolean;
  /** A replay of a recorded run: each member run answers as recorded (recorded-pattern.ts). */
  recorded?: { pattern: RecordedPattern; replayOf: string };
  /** The node can wait persisted: a member that waits for a person parks the loop here (pattern-node.ts) instead of failing it. */
  parkMember?: (park: MemberPark) => void;
  /**
   * The stored workflows a member offered some as tools runs them from (issue 29): a call runs the
   * workflow as a child run of this run, under the pattern's invocation. Absent: such a member fails
   * the node in words.
   */
  subworkflow?: SubworkflowDeps;
};

/** A member agent waiting for a person mid-iteration: its checkpoint and question, and what the members before it gave. */
export interface MemberPark {
  tag: string;
  checkpoint: RunCheckpoint;
  intervention: Intervention;
  outputs: MemberOutput[];
  confidences: (number | null)[];
}

/** The parked member answered: it resumes from its checkpoint, the members before it are not run again. */
export type MemberResume = Omit<MemberPark, 'intervention'> & { answer: HumanAnswer };

/**
 * A member agent stopped to wait for a person (its ask_user, a confirmation, an escalation). The
 * member's loop cannot park inside the pattern's, so the node fails closed with its own code
 * (`pattern_member_waiting`) instead of leaving a question nobody's answer could resume.
 */
export class MemberWaitsError extends Error {
  static readonly code = 'pattern_member_waiting';
  constructor(
    readonly memberId: string,
    readonly outputId: string,
    what: string,
  ) {
    super(`member ${memberId} (${outputId}) waits for a person: ${what}; a pattern member cannot wait for a person — give it a teacher to decide, let its tools run without confirmation, or make it an agent node of its own`);
  }
}

export interface DispatchResultOut {
  outputs: MemberOutput[];
  output: string;
  /** The least confident member's stated confidence in its answer; unknown when any member stated none. */
  confidence?: number;
}

/** `draft#1` (`review#2.1` in a PIPELINE's later steps): what a verdict cites. */
export const memberOutputId = (memberId: string, step: number, iteration: number): string => (step === 0 ? `${memberId}#${iteration}` : `${memberId}#${step + 1}.${iteration}`);

/** The pattern's own result: one member's output as it is; several, each under its member's heading. */
export function aggregateOutput(outputs: readonly MemberOutput[], members: readonly PatternMember[]): string {
  if (outputs.length === 1) return outputs[0]?.text ?? '';
  const roleOf = (id: string) => members.find((m) => m.id === id)?.role ?? id;
  return outputs.map((o) => `## ${roleOf(o.member_id)} (${o.id})\n${o.text}`).join('\n\n');
}

/** The pattern's own reviewer (SUPERVISOR's supervisor, DEBATE's judge), when it works as a member (post_step), goes last: it reviews the others' outputs. */
export function reviewerLast<M extends PatternMember>(node: NodeOf<'pattern'>, members: readonly M[]): M[] {
  const preset: PatternPreset = PATTERN_PRESETS[node.type];
  const { reviewer } = preset;
  const isReviewer = (m: M) => reviewer !== undefined && (m.id === reviewer || m.role === reviewer);
  return [...members.filter((m) => !isReviewer(m)), ...members.filter(isReviewer)];
}

/** The member as an agent spec: its instructions and part, the iteration's prompt as its task, the node's servers. */
function memberSpec(node: NodeOf<'pattern'>, member: PatternMemberAgent, graph: WorkflowGraph, task: string): AgentSpec {
  const servers = node.servers === undefined ? graph.servers : graph.servers.filter((s) => node.servers?.includes(s.id));
  const ids = new Set(servers.map((s) => s.id));
  const parsed = AgentSpec.safeParse({
    format: 'steward/v1',
    kind: 'agent',
    id: `${node.id}-${member.id}`.replace(/\./g, '-').slice(0, 64),
    name: `${node.name ?? node.label ?? node.id} · ${member.role}`,
    instructions: [`You are the ${member.role} in a ${node.type} pattern.`, member.instructions].filter((t) => t !== '').join('\n'),
    task,
    servers,
    models: member.models,
    supervision: member.supervision,
    limits: member.limits,
    tool_effects: Object.fromEntries(Object.entries(graph.tool_effects).filter(([key]) => ids.has(key.split('/')[0] ?? ''))),
    ...(member.script !== undefined ? { script: member.script } : {}),
  });
  if (!parsed.success) throw new Error(`member ${member.id}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * The dispatch actor's work for one node invocation. A member on replay models keeps its place in
 * its script across iterations (its providers are made once), so iteration 2 gets the next answer —
 * and across a park at a person's judgment (`replays` starts where the parked loop stood).
 */
export function createDispatch(
  node: NodeOf<'pattern'>,
  run: NodeRun,
  deps: MemberDeps,
  replays = new ReplayCursor(),
  resumeMember?: MemberResume,
): (input: DispatchInput, signal: AbortSignal) => Promise<DispatchResultOut> {
  let resuming = resumeMember;
  const replayOf = (member: PatternMemberAgent): { student: ModelProvider; teacher: ModelProvider } | undefined => {
    if (member.models.student.provider !== 'script' || member.models.teacher.provider !== 'script' || !member.script) return undefined;
    return { student: replays.provider(`member:${member.id}:student`, member.script, 'student'), teacher: replays.provider(`member:${member.id}:teacher`, member.script, 'teacher') };
  };
  return async (input, signal) => {
    const outputs: MemberOutput[] = [];
    const confidences: (number | undefined)[] = [];
    // Resumed mid-iteration (the machine re-runs this dispatch from its snapshot): the parked member's answer, once.
    const resume = resuming;
    resuming = undefined;
    for (const m of reviewerLast(node, input.members)) {
      const member = node.members.find((x) => x.id === m.id);
      if (!member) throw new Error(`no member "${m.id}"`);
      const earlier = outputs.map((o) => `[${o.id}] (${o.member_id}):\n${o.text}`).join('\n\n');
      const task = earlier === '' ? input.prompt : `${input.prompt}\n\nOutputs so far in this iteration:\n${earlier}`;
      const id = memberOutputId(member.id, input.step, input.iteration);
      const done = resume?.outputs.findIndex((o) => o.id === id) ?? -1;
      const prior = resume?.outputs[done];
      if (prior) {
        outputs.push(prior);
        confidences.push(resume?.confidences[done] ?? undefined);
        continue;
      }
      let confidence: number | undefined;
      let spec = memberSpec(node, member, deps.graph, task);
      if (deps.recorded) {
        // A replay: the member run's recorded answers and supervision, not its scripts or models.
        const recorded = deps.recorded.pattern.member(id, spec.task);
        spec = { ...spec, supervision: recorded.supervision, models: { student: { provider: 'script' }, teacher: { provider: 'script' } }, script: recorded.script };
      }
      // Stored workflows offered as tools (issue 29), as an agent node's: each call a linked child run.
      const tools = member.workflow_tools?.length ? memberWorkflowTools(member, deps, run) : undefined;
      const result = await runAgent({
        spec,
        specDir: deps.specDir,
        workspace: deps.workspace,
        script: spec.script,
        ledger: deps.ledger,
        onEvent: (event) => {
          // What the member delivered last is its answer: its confidence feeds a below_confidence trigger.
          if (event.type === 'response.delivered') confidence = event.decision.confidence;
          run.emit({ ...nestedPayload(event), pattern_member: id });
        },
        runId: agentRunId(deps.keyRunId ?? deps.runId, `${run.invocation.id}/${id}`),
        traceRunId: deps.runId,
        signal,
        confirm: deps.confirm,
        ollamaHost: deps.ollamaHost,
        privacy: deps.privacy,
        credentials: deps.credentials,
        onProgress: deps.onProgress,
        providers: deps.recorded ? undefined : replayOf(member),
        ...(deps.recorded ? { replayOf: agentRunId(deps.recorded.replayOf, `${run.invocation.id}/${id}`) } : {}),
        toolHost: node.servers === undefined ? deps.toolHost : undefined,
        ...(tools ? { wrapToolHost: tools } : {}),
        textsFinal: true,
        ...(deps.dryRun ? { dryRun: true } : {}),
        keepToolResults: deps.keepToolResults === true,
        ...(resume?.tag === id ? { resume: { checkpoint: resume.checkpoint, answer: resume.answer } } : {}),
      });
      if (result.status === 'waiting' && deps.parkMember && result.checkpoint && result.intervention) {
        deps.parkMember({ tag: id, checkpoint: result.checkpoint, intervention: result.intervention, outputs: [...outputs], confidences: confidences.map((c) => c ?? null) });
        // The loop is parked and stopped: this dispatch never settles (the resumed loop runs it again).
        return new Promise<never>(() => undefined);
      }
      if (result.status === 'waiting') throw new MemberWaitsError(member.id, id, result.intervention?.decision?.decision_type === 'ask_user' ? `it asked “${result.intervention.decision.question}”` : (result.intervention?.reason ?? 'a question'));
      if (result.status !== 'completed') throw new Error(`member ${member.id} ended ${result.status}: ${result.message ?? result.setup_error ?? ''}`);
      outputs.push({ id, member_id: member.id, text: result.output ?? '' });
      confidences.push(confidence);
    }
    const known = confidences.filter((c): c is number => c !== undefined);
    const confidence = known.length === confidences.length && known.length > 0 ? Math.min(...known) : undefined;
    return { outputs, output: aggregateOutput(outputs, input.members), ...(confidence !== undefined ? { confidence } : {}) };
  };
}

/**
 * A member's workflow tools, ready to wrap its tool host; a member whose workflow cannot be offered
 * (unknown, inside itself, no stored workflows here) fails the node, in words.
 */
function memberWorkflowTools(member: PatternMemberAgent, deps: MemberDeps, run: NodeRun): (host: ToolHost) => ToolHost {
  const ids = member.workflow_tools ?? [];
  if (!deps.subworkflow) throw new Error(`member ${member.id} is offered the workflow ${JSON.stringify(ids[0])} as a tool, but this run has no stored workflows to run it from (run it from the app or with a data folder)`);
  const offered = workflowToolsFor(ids, deps.subworkflow, run.invocation.id, run.emit);
  if (!offered.ok) throw new Error(`member ${member.id}: ${offered.message}`);
  return offered.wrap;
}
