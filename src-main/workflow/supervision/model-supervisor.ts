import type { ChatMessage, ModelReply } from '@shared/contracts/model';
import type { SupervisorSettings } from '@shared/supervisor/contracts';
import { estimatePromptTokens, reserveTurn, type SupervisorIdentity } from '@shared/supervisor/cost';
import type { DecideInput, DecideOutput } from '@shared/supervisor/machine';
import type { ModelProvider } from '../../providers/provider';
import { recordCalls, type ModelPlace } from '../../providers/record-calls';
import { dataCategories, type DataCategory } from '@shared/contracts/model-call';
import { firstMessages, readStep, stepJsonSchema, type SupervisorStep } from './model-supervisor-prompt';
import { getRunState, readNodeOutput } from './model-supervisor-tools';
import type { SupervisedRunView, WorkflowSupervisor } from './supervise-failure';

/**
 * A model as the workflow supervisor (issue 11, seed 004 PR 3), through the provider layer (replay
 * script, Ollama, OpenAI-compatible). One decision is a short loop: each model call answers one
 * step bound to a JSON schema — a read-only tool (`get_run_state`, `read_node_output`) whose result
 * goes back into the conversation, or the verdict — at most MAX_SUPERVISOR_CALLS calls. A malformed
 * answer ends the decision with no verdict, which the kernel turns into `fail` (decided_by kernel).
 * The kernel's signal (its decision timeout, a cancel) aborts the call in flight.
 *
 * Cost: the kernel reserved the first call; every further call of the loop is reserved here the
 * same way (worst case from the pricing table against the cap) and the loop stops when refused.
 * What a call cost is its reported tokens at the table's price, or its whole reservation when the
 * server reported no usage.
 */

export const MAX_SUPERVISOR_CALLS = 4;

type ModelIdentity = Extract<SupervisorIdentity, { kind: 'model' }>;

export interface ModelSupervisorOptions {
  provider: ModelProvider;
  identity: ModelIdentity;
  settings: Pick<SupervisorSettings, 'who' | 'cost_cap_usd' | 'pricing'>;
  /** What the run's supervisor already spent (a resumed run's ledger), for the loop's own reservations. */
  spentUsd?: number;
  /** Where its prompts go, for the run's privacy log (every call a `model.called`). */
  place?: ModelPlace;
}

/** The tokens × price of one call; the worst case when the server said nothing. Local models cost 0. */
export function callCost(options: ModelSupervisorOptions, promptChars: number, reply: ModelReply): number {
  const { identity, settings } = options;
  if (identity.local || !Object.hasOwn(settings.pricing, identity.label)) return 0;
  const price = settings.pricing[identity.label];
  if (!price) return 0;
  const maxOutput = settings.who.kind === 'model' ? settings.who.max_output_tokens : 0;
  const input = reply.usage?.input_tokens ?? estimatePromptTokens(promptChars);
  const output = reply.usage?.output_tokens ?? maxOutput;
  return (input * price.input_per_mtok_usd + output * price.output_per_mtok_usd) / 1_000_000;
}

const promptChars = (messages: readonly ChatMessage[]): number => messages.reduce((n, m) => n + m.content.length, 0);

/** A malformed answer: no verdict, so the kernel's Verdict schema refuses it (fail, decided by the kernel). */
const noVerdict = (problem: string): { malformed: string } => ({ malformed: problem });

export function createModelSupervisor(options: ModelSupervisorOptions): WorkflowSupervisor {
  const { provider, identity } = options;
  let run: SupervisedRunView | undefined;
  let spent = options.spentUsd ?? 0;

  /** The provider, its calls recorded in the run's privacy log once the run is attached. */
  function logged(): ModelProvider {
    return run?.onModelCall && options.place ? recordCalls(provider, options.place, run.onModelCall) : provider;
  }

  function toolResult(step: Extract<SupervisorStep, { kind: 'tool' }>, input: DecideInput): string {
    return step.tool === 'get_run_state' ? getRunState(run) : readNodeOutput(run, input.escalation, step.node);
  }

  return {
    identity,
    attach(view) {
      run = view;
    },
    ...(provider.position ? { position: () => provider.position?.() ?? 0 } : {}),
    async decide(input: DecideInput, signal: AbortSignal): Promise<DecideOutput> {
      const messages = firstMessages(input);
      const format = stepJsonSchema(input.allowed);
      let cost = 0;
      try {
        for (let call = 1; call <= MAX_SUPERVISOR_CALLS; call++) {
          if (call > 1) {
            const reservation = reserveTurn(options.settings, identity, spent + cost, estimatePromptTokens(promptChars(messages)));
            if (!reservation.ok) throw new Error(reservation.reason);
          }
          const chars = promptChars(messages);
          const data: DataCategory[] = ['instructions', 'escalation', ...(input.feedback !== undefined ? ['feedback' as const] : []), ...(call > 1 ? ['tool_results' as const] : [])];
          const reply = await logged().complete({ role: 'teacher', messages: [...messages], format, signal, call: { caller: 'supervisor', purpose: 'review', data: dataCategories(data) } });
          cost += callCost(options, chars, reply);
          const step = readStep(reply);
          if (step.kind === 'verdict') return { verdict: step.verdict, cost_usd: cost };
          if (step.kind === 'malformed') return { verdict: noVerdict(step.problem), cost_usd: cost };
          messages.push(
            { role: 'assistant', content: reply.text.trim() || JSON.stringify(step.tool === 'read_node_output' ? { step: step.tool, node: step.node } : { step: step.tool }) },
            { role: 'user', content: `Result of ${step.tool}: ${toolResult(step, input)}` },
          );
        }
        return { verdict: noVerdict(`no verdict within ${MAX_SUPERVISOR_CALLS} model calls`), cost_usd: cost };
      } finally {
        spent += cost;
      }
    },
  };
}
