import type { ChatMessage, ModelReply, ModelUsage } from '@shared/contracts/model';
import { DEFAULT_SUPERVISOR_OUTPUT_TOKENS, MALFORMED_ANSWER_CHARS, MAX_REPAIR_ROUNDS, type MalformedAnswer, type SupervisorSettings } from '@shared/supervisor/contracts';
import { estimatePromptTokens, reserveTurn, type SupervisorIdentity } from '@shared/supervisor/cost';
import type { DecideInput, DecideOutput } from '@shared/supervisor/machine';
import { ProviderError, type ModelProvider } from '../../providers/provider';
import { recordCalls, type ModelPlace } from '../../providers/record-calls';
import { dataCategories, type DataCategory } from '@shared/contracts/model-call';
import { answerText, firstMessages, readStep, repairMessage, stepJsonSchema, type SupervisorStep } from './model-supervisor-prompt';
import { redactForEscalation } from '@shared/supervisor/redaction';
import { getRunState, readNodeOutput } from './model-supervisor-tools';
import type { SupervisedRunView, WorkflowSupervisor } from './supervise-failure';

/**
 * A model as the workflow supervisor (issue 11, seed 004 PR 3), through the provider layer (replay
 * script, Ollama, OpenAI-compatible). One decision is a short loop: each model call answers one
 * step bound to a JSON schema — a read-only tool (`get_run_state`, `read_node_output`) whose result
 * goes back into the conversation, or the verdict — at most MAX_SUPERVISOR_CALLS steps. A malformed
 * answer (not JSON, no step of the schema, a verdict the schema refuses or outside the allowed set)
 * goes back into the same conversation as a tool error, like a refused substitute, at most
 * MAX_REPAIR_ROUNDS times; then the decision ends with that answer kept (`malformed`), and the kernel
 * applies `fail` over it (decided_by kernel). The kernel's signal (its decision timeout, a cancel)
 * aborts the call in flight.
 *
 * Cost: every call asks for at most `max_output_tokens` (issue 27), the very figure its worst case
 * is reserved from, so the cap holds against a model that pads its answer. The kernel reserved the
 * first call; every further call of the loop is reserved here the same way (worst case from the
 * pricing table against the cap) and the loop stops when refused. What a call cost is its reported
 * tokens at the table's price, or its whole reservation when the server reported no usage (a call
 * that failed or was stopped may still have been billed). A call that fails — cut at its bound
 * included — ends the decision with the default verdict, in words, costing what it cost.
 */

/** Steps one decision may take (tool calls, then the verdict); repair calls come on top of them, at most MAX_REPAIR_ROUNDS. */
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

/** Output tokens one call may use: sent with the call, and its worst case in the cost (the schema's default for a settings object without a model). */
export function maxOutputTokens(settings: Pick<SupervisorSettings, 'who'>): number {
  return settings.who.kind === 'model' ? settings.who.max_output_tokens : DEFAULT_SUPERVISOR_OUTPUT_TOKENS;
}

/** The tokens × price of one call; each count the server did not report at its worst case. Local models cost 0. */
export function callCost(options: ModelSupervisorOptions, promptChars: number, usage: ModelUsage | undefined): number {
  const { identity, settings } = options;
  if (identity.local || !Object.hasOwn(settings.pricing, identity.label)) return 0;
  const price = settings.pricing[identity.label];
  if (!price) return 0;
  const input = usage?.input_tokens ?? estimatePromptTokens(promptChars);
  const output = usage?.output_tokens ?? maxOutputTokens(settings);
  return (input * price.input_per_mtok_usd + output * price.output_per_mtok_usd) / 1_000_000;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const promptChars = (messages: readonly ChatMessage[]): number => messages.reduce((n, m) => n + m.content.length, 0);

/** The longest a repair's echo of the model's own answer may be in the conversation. */
const ECHO_CHARS = 2000;

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function createModelSupervisor(options: ModelSupervisorOptions): WorkflowSupervisor {
  const { provider, identity } = options;
  let run: SupervisedRunView | undefined;
  let spent = options.spentUsd ?? 0;

  /** The provider, its calls recorded in the run's privacy log once the run is attached. */
  function logged(): ModelProvider {
    return run?.onModelCall && options.place ? recordCalls(provider, options.place, run.onModelCall, run.onModelAnswer) : provider;
  }

  /**
   * The answer kept on the verdict (a public record, as an escalation is): masked as an escalation's
   * text is — the run's secret registry, then credential-named assignments — then cut. What it read was
   * masked already; what it wrote is checked again.
   */
  function malformedAnswer(problem: string, answer: string, repairs: number): MalformedAnswer {
    const mask = (text: string) => redactForEscalation(run?.secrets.maskText(text) ?? text, []);
    return { problem: cut(mask(problem), 1000), answer: cut(mask(answer), MALFORMED_ANSWER_CHARS), repairs };
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
    spentUsd: () => spent,
    async decide(input: DecideInput, signal: AbortSignal): Promise<DecideOutput> {
      const messages = firstMessages(input);
      const format = stepJsonSchema(input.allowed);
      const max_output_tokens = maxOutputTokens(options.settings);
      let cost = 0;
      let steps = 0;
      let repairs = 0;
      try {
        for (let call = 1; ; call++) {
          if (call > 1) {
            const reservation = reserveTurn(options.settings, identity, spent + cost, estimatePromptTokens(promptChars(messages)));
            if (!reservation.ok) return { verdict: undefined, failure: reservation.reason, cost_usd: cost };
          }
          const chars = promptChars(messages);
          const data: DataCategory[] = [
            'instructions',
            'escalation',
            ...(input.feedback !== undefined || repairs > 0 ? ['feedback' as const] : []),
            ...(steps > 0 ? ['tool_results' as const] : []),
            ...((input.memory?.length ?? 0) > 0 ? ['history' as const] : []),
          ];
          let reply: ModelReply;
          try {
            reply = await logged().complete({ role: 'teacher', messages: [...messages], format, max_output_tokens, signal, call: { caller: 'supervisor', purpose: 'review', data: dataCategories(data) } });
          } catch (error) {
            // Billed or not, the call may have reached the server: its reported tokens, else its worst case.
            cost += callCost(options, chars, error instanceof ProviderError ? error.usage : undefined);
            // Stopped by the kernel (its timeout, the run's end): the kernel decides, and the ledger is squared after (spentUsd).
            if (signal.aborted) throw error;
            return { verdict: undefined, failure: errorText(error), cost_usd: cost };
          }
          cost += callCost(options, chars, reply.usage);
          const step = readStep(reply, input.allowed);
          if (step.kind === 'verdict') return { verdict: step.verdict, cost_usd: cost };
          if (step.kind === 'malformed') {
            const answer = answerText(reply);
            if (repairs >= MAX_REPAIR_ROUNDS) return { verdict: undefined, malformed: malformedAnswer(step.problem, answer, repairs), cost_usd: cost };
            // As a refused substitute: the error goes back into this conversation, and the model answers again.
            repairs += 1;
            messages.push({ role: 'assistant', content: cut(answer, ECHO_CHARS) || '(no answer)' }, repairMessage(step.problem, input.allowed));
            continue;
          }
          steps += 1;
          messages.push(
            { role: 'assistant', content: reply.text.trim() || JSON.stringify(step.tool === 'read_node_output' ? { step: step.tool, node: step.node } : { step: step.tool }) },
            { role: 'user', content: `Result of ${step.tool}: ${toolResult(step, input)}` },
          );
          if (steps >= MAX_SUPERVISOR_CALLS) {
            return { verdict: undefined, malformed: malformedAnswer(`no verdict within ${MAX_SUPERVISOR_CALLS} steps: it kept calling tools`, answerText(reply), repairs), cost_usd: cost };
          }
        }
      } finally {
        spent += cost;
      }
    },
  };
}
