import type { RunEventPayload } from '@shared/contracts/events';
import type { Escalation, SupervisorSettings } from '@shared/supervisor/contracts';
import type { ModelCallTally, SupervisorIdentity } from '@shared/supervisor/cost';
import type { ModelUsage } from '@shared/contracts/model';
import type { SubstituteCheck, ValidateInput } from '@shared/supervisor/machine';
import { checkSubstitute, validatorCoversOutput } from '@shared/supervisor/substitute-check';
import type { WorkflowGraph, WorkflowNode } from '@shared/workflow/document';
import { resolveToolEffect } from '@shared/policy/effect-registry';
import type { EffectClass } from '@shared/contracts/tool-effect';
import { retrySafe, type AttemptFacts } from '@shared/supervisor/retry-safety';
import { createdAssets, type ToolCallMade } from '@shared/supervisor/created-assets';
import type { Invocation, NodeFailure } from '@shared/workflow/invocation';
import type { SchedulerEvent } from '@shared/workflow/scheduler';
import type { FailedInvocation, NodeNext, SupervisionResult, WorkflowSupervisor } from './supervise-failure';
import { streamOutputs } from '../node-outcome';

/**
 * What run-workflow.ts needs around RunSupervision (issue 11): the run's supervision option, the
 * facts of a failed invocation, the trace events of a decision, and the scheduler event a verdict
 * becomes. An unsupervised run touches none of it.
 */

/** A workflow run's supervision: the settings (off unless `enabled`) and who supervises. */
export interface WorkflowSupervisionOptions {
  settings: SupervisorSettings;
  /** The run's supervisor, or why it could not be had (the run then goes on unsupervised). */
  supervisor: WorkflowSupervisor | { unavailable: string };
  /** Checks a substitute against the node's whole output; absent, the kernel's port check (substitute-check.ts). */
  validate?: (input: ValidateInput) => Promise<SubstituteCheck>;
}

/** The kernel's check of a substitute against the failed node's declared output ports. */
export function portValidator(nodes: ReadonlyMap<string, WorkflowNode>): (input: ValidateInput) => Promise<SubstituteCheck> {
  return ({ escalation, value }) => {
    const node = nodes.get(escalation.node);
    return Promise.resolve(node ? checkSubstitute(node, value) : { ok: false, problems: `no node ${escalation.node} in the graph` });
  };
}

/**
 * What one attempt of a node showed in its own events: every tool it was offered (an agent lists its
 * tools each round, with their effective effects) and its model calls per model label — from the
 * privacy log (`model.called`, every call that reached a provider, and where it went) and from the
 * replies that reported token usage (a proposal's, a teacher verdict's). A call whose reply carries
 * no label (SCS committee, MCP sampling) stays unmeasured: on a remote model, its cost is unknown.
 */
export class AttemptTrail {
  private offered: EffectClass[] | undefined;
  private readonly models = new Map<string, ModelCallTally>();
  /** The tool calls this attempt made (its own `tool.executed` events: one trail per attempt of one invocation). */
  private readonly calls: ToolCallMade[] = [];

  observe(payload: RunEventPayload): void {
    switch (payload.type) {
      case 'tools.snapshot':
        this.offered = [...(this.offered ?? []), ...payload.tools.map((t) => t.effect)];
        return;
      case 'tool.executed': {
        const { server, tool, arguments: args, ok, is_error } = payload.execution;
        this.calls.push({ server, tool, arguments: args, ok, is_error });
        return;
      }
      case 'model.called': {
        const t = this.tally(payload.model);
        t.calls += 1;
        // Any call of a label that left this machine makes the label remote (fail closed).
        if (!payload.local) t.local = false;
        return;
      }
      case 'candidate.proposed':
        return this.replied(payload.reply.model, payload.reply.usage);
      case 'verdict.received':
        if (payload.attempt.reply) this.replied(payload.attempt.reply.model, payload.attempt.reply.usage);
        return;
      default:
        return;
    }
  }

  /** The attempt's model calls, per label (what `attemptSpend` prices). */
  modelCalls(): ModelCallTally[] {
    return [...this.models.values()].map((t) => ({ ...t }));
  }

  private tally(label: string): ModelCallTally {
    let t = this.models.get(label);
    if (!t) {
      t = { label, local: true, calls: 0, measured: 0, input_tokens: 0, output_tokens: 0 };
      this.models.set(label, t);
    }
    return t;
  }

  /**
   * A reply counts for its model's label only when the privacy log saw a call of that label (a
   * reply under a label no call went to cannot be paired with where it went). A reply that did not
   * report both token counts leaves its call unmeasured.
   */
  private replied(label: string, usage: ModelUsage | undefined): void {
    const t = this.models.get(label);
    if (!t || usage?.input_tokens === undefined || usage.output_tokens === undefined) return;
    t.measured += 1;
    t.input_tokens += usage.input_tokens;
    t.output_tokens += usage.output_tokens;
  }

  /**
   * What this attempt created (created-assets.ts): its write calls, each by what it wrote, judged by
   * the effect registry as retry-safety is (the workflow's own setting, else Steward's metadata).
   */
  created(graph: Pick<WorkflowGraph, 'servers' | 'tool_effects'>): string[] {
    return createdAssets(this.calls, (server, tool) => effectOf(graph, server, tool));
  }

  /** The facts the kernel's retry-safety rule (retry-safety.ts) judges this attempt of `node` by. */
  facts(node: WorkflowNode | undefined, graph: Pick<WorkflowGraph, 'servers' | 'tool_effects'>): AttemptFacts {
    switch (node?.kind) {
      case 'template':
      case 'assert':
        return { kind: 'pure' };
      case 'tool':
        return { kind: 'tool', effect: effectOf(graph, node.server, node.tool) };
      case 'agent':
        return { kind: 'agent', offered: this.offered };
      default:
        return { kind: 'other' };
    }
  }
}

/** A tool's effective effect in this workflow: the workflow's own setting, else Steward's shipped metadata. */
function effectOf(graph: Pick<WorkflowGraph, 'servers' | 'tool_effects'>, serverId: string, tool: string): EffectClass {
  const server = graph.servers.find((s) => s.id === serverId);
  const packageName = server && 'package' in server ? server.package : undefined;
  return resolveToolEffect({ serverId, ...(packageName !== undefined ? { packageName } : {}), tool, overrides: graph.tool_effects }).effect.effect;
}

/**
 * The host's facts about a failed invocation. Retry-safe by the kernel's rule: a pure node, a read,
 * or an agent offered only reads (or no tools). What it spent is its model calls (`model_calls`,
 * priced by RunSupervision with the run's pricing table); what it created is what its own write calls
 * wrote (`AttemptTrail.created`: this attempt of this invocation only, so concurrent items never
 * share a list), and a retry is not offered once it is not empty. A streaming tool
 * node is `streaming`; `left.sent`: how many results it sent downstream; `left.candidate`: the malformed
 * output it left. `trail`: what the failed attempt showed.
 */
export function failedInvocation(node: WorkflowNode | undefined, graph: Pick<WorkflowGraph, 'servers' | 'tool_effects'>, invocation: Invocation, failure: NodeFailure, attempt: number, trail: AttemptTrail = new AttemptTrail(), left: { sent?: number; candidate?: Record<string, unknown> } = {}): FailedInvocation {
  return {
    invocation,
    failure,
    attempt,
    retry_safe: retrySafe(trail.facts(node, graph)),
    spent_usd: 0,
    model_calls: trail.modelCalls(),
    created_assets: trail.created(graph),
    // The malformed output the node left (an agent's answer its output schema refused): `substitute` may repair it.
    ...(left.candidate !== undefined ? { candidate_output: left.candidate } : {}),
    validator_covers_output: node !== undefined && validatorCoversOutput(node),
    // A streaming tool node: what it sent is already downstream (the kernel offers end_stream or fail).
    streaming: node?.kind === 'tool' && node.stream !== undefined,
    emitted: (left.sent ?? 0) > 0,
  };
}

/** The trace of one decision: the escalation, then the verdict with who decided it. */
export function supervisionEvents(invocation: Invocation, result: SupervisionResult): RunEventPayload[] {
  return [escalatedEvent(invocation, result.escalation), verdictEvent(invocation, result)];
}

/** The escalation in the trace: emitted before a model decides, so the node shows "deciding…" meanwhile. */
export function escalatedEvent(invocation: Invocation, escalation: Escalation): RunEventPayload {
  return { type: 'supervisor.escalated', invocation_id: invocation.id, escalation };
}

export function verdictEvent(invocation: Invocation, result: Pick<SupervisionResult, 'verdict' | 'next'>): RunEventPayload {
  return { type: 'supervisor.verdict', invocation_id: invocation.id, node: invocation.node, verdict: result.verdict, next: result.next.kind };
}

/** What the scheduler hears for a verdict other than `run_again` (which starts the invocation again). */
export function settlementOf(id: string, next: Exclude<NodeNext, { kind: 'run_again' }>, sent: ReadonlyArray<Record<string, unknown>> = []): SchedulerEvent {
  switch (next.kind) {
    case 'done':
      return { type: 'done', id, outputs: next.outputs };
    case 'skip':
      return { type: 'skipped', id, reason: next.reason };
    case 'end_stream':
      // The stream ends where it broke: done with what it sent (the iterate it feeds closes, not broken).
      return { type: 'done', id, outputs: streamOutputs(sent) };
    case 'failed':
      return { type: 'failed', id, failure: next.failure };
  }
}

/** Who supervises, as `workflow.started` names it (just these fields: the event is strict). */
export function supervisorNamed(who: SupervisorIdentity): SupervisorIdentity {
  return who.kind === 'person' ? { kind: 'person' } : { kind: 'model', label: who.label, local: who.local };
}

/** What a checkpoint keeps of the run's supervision besides its ledger: the settings, and a replay supervisor's place in its script. */
export function supervisorCheckpoint(options: WorkflowSupervisionOptions): { supervisor_settings: SupervisorSettings; supervisor_script_at?: number } {
  const position = 'unavailable' in options.supervisor ? undefined : options.supervisor.position?.();
  return { supervisor_settings: options.settings, ...(position !== undefined ? { supervisor_script_at: position } : {}) };
}
