import type { Intervention } from '@shared/contracts/intervention';
import type { ServerInputWait } from '@shared/contracts/server-input';
import { maskArguments } from '@shared/util/mask';
import { redactToolArguments } from '@shared/util/redact';
import type { SchedulerEvent } from '@shared/workflow/scheduler';
import { sensitiveArgumentsOf } from '@shared/workflow/sensitive-flow';
import { SecretRegistry } from '../credentials/secret-registry';
import type { RunCheckpoint } from '../engine/checkpoint';
import { FlowSecrets } from './flow-secrets';
import type { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * The questions of waiting runs as a page is shown them (`interventions.pending`): a checkpoint keeps
 * the call itself, to make it once a person approves it, and the page gets it masked as the trace
 * has it — sensitive arguments, and in a workflow every value bound for one (issue 27). The ids stay
 * as they are: they are how the answer finds its question.
 */
export function shownAgentIntervention(checkpoint: Pick<RunCheckpoint, 'intervention' | 'tool_snapshot'>): Intervention {
  return sameIds(checkpoint.intervention, redactToolArguments(checkpoint.intervention, checkpoint.tool_snapshot ?? { tools: [] }));
}

export function shownWorkflowInterventions(checkpoint: Pick<WorkflowCheckpoint, 'graph' | 'scheduler_events' | 'invocations' | 'waiting'>): Intervention[] {
  const { graph } = checkpoint;
  const secrets = new SecretRegistry();
  const flow = new FlowSecrets(graph, secrets);
  const nodeOf = new Map(checkpoint.invocations.map((r) => [r.id, r.node] as const));
  flow.replayed(checkpoint.scheduler_events as SchedulerEvent[], (id) => nodeOf.get(id));
  const found = (value: string): void => void secrets.registerSensitive(value);
  return Object.entries(checkpoint.waiting).map(([id, waiting]) => {
    const asked = waiting.intervention;
    const node = graph.nodes.find((n) => n.id === (nodeOf.get(id) ?? id));
    let shown = asked;
    // An agent node's call: its own round's tools say what is sensitive; a tool node's: the effect registry.
    if (waiting.checkpoint?.tool_snapshot) shown = redactToolArguments(asked, waiting.checkpoint.tool_snapshot, found);
    else if (node?.kind === 'tool' && asked.decision?.decision_type === 'tool_call') {
      shown = { ...asked, decision: { ...asked.decision, arguments: maskArguments(asked.decision.arguments, sensitiveArgumentsOf(node, graph), found) } };
    }
    return sameIds(asked, secrets.mask(shown));
  });
}

function sameIds(asked: Intervention, shown: Intervention): Intervention {
  return { ...shown, id: asked.id, run_id: asked.run_id };
}

/** What of a paused call stays in the clear beside a sealed box: which call asks what (as a page is shown it), never the answers the host gave (a sampled model reply may repeat a value) or the server's opaque state. */
export function clearServerInput(wait: ServerInputWait): ServerInputWait {
  const { request_state: _state, ...shown } = wait;
  return { ...shown, responses: {} };
}
