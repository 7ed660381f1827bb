import { createActor, fromPromise, waitFor, type Actor } from 'xstate';
import { parseJsonText } from '@shared/boundary/parse-candidate';
import type { RunEventPayload } from '@shared/contracts/events';
import type { ChatMessage, ModelRole, ModelUsage } from '@shared/contracts/model';
import type { ModelCallInfo } from '@shared/contracts/model-call';
import { OUTPUT_TOKEN_BOUNDS } from '@shared/contracts/output-bound';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { PhasePlan, RoundFact, ScsRecord, ScsSettings } from '@shared/scs/contracts';
import { changedFiles, scsMachine, type CommitteeInput, type MonitorInput } from '@shared/scs/machine';
import type { RequiredAction } from '@shared/scs/required-action';
import { uncheckedConditions } from '@shared/scs/stop-conditions';
import { budgetTranscript, transcriptText, type TranscriptEntry } from '@shared/scs/transcript-budget';
import type { ModelProvider } from '../providers/provider';
import type { RecentEvent } from './evidence';
import { buildCommitteePrompt, buildMonitorPrompt, committeeDraftJsonSchema, monitorDecisionJsonSchema, phasePlanJsonSchema, type PromptContext } from './scs-prompts';
import { roundNumber } from '@shared/contracts/round-number';

export interface ScsControllerDeps {
  settings: ScsSettings;
  budget: number;
  writeWork: boolean;
  /** The node's model that plays committee and monitor (which role's model it is). */
  role: ModelRole;
  committee: ModelProvider;
  monitor: ModelProvider;
  context: () => { task: string; instructions: string; snapshot: ToolSnapshot; recent: RecentEvent[] };
  emit: (payload: RunEventPayload) => void;
  /** Masks secrets and sensitive arguments in what goes to the committee and the monitor (the run's redaction). */
  mask?: <T>(value: T) => T;
  /** A persisted machine snapshot (a run resumed after waiting for a person). */
  restore?: unknown;
  signal?: AbortSignal;
}

export type ScsState = 'executing' | 'finished' | 'blocked';

/** A model reply as the machine validates it: the parsed JSON, or the text when it is not JSON. */
async function askJson(
  provider: ModelProvider,
  role: ModelRole,
  messages: ChatMessage[],
  format: Record<string, unknown>,
  signal: AbortSignal,
  call: ModelCallInfo,
  transcript: (said: { reply: string; usage?: ModelUsage; latency_ms?: number }) => void,
): Promise<unknown> {
  // The caller's bound (committee or monitor): never unset, so a priced model's answer has a ceiling.
  const reply = await provider.complete({ role, messages, format, max_output_tokens: OUTPUT_TOKEN_BOUNDS[call.caller === 'committee' ? 'committee' : 'monitor'], signal, call });
  transcript({ reply: reply.text, ...(reply.usage ? { usage: reply.usage } : {}), ...(reply.latency_ms !== undefined ? { latency_ms: reply.latency_ms } : {}) });
  const parsed = parseJsonText(reply.text);
  return parsed.ok ? parsed.value : reply.text;
}

/** One executor round as a transcript line. */
function factEntry(fact: RoundFact): TranscriptEntry {
  return { who: 'executor', kind: fact.tool ?? fact.outcome, text: `round ${roundNumber(fact.round)}: ${fact.summary}${fact.failed ? ' — FAILED' : ''}`, failed: fact.failed };
}

/** Which stop conditions the runtime checks after every round (stop-conditions.ts), so the executor knows it is stopped on them. */
function stopNote(plan: PhasePlan): string {
  if (plan.stop_conditions.length === 0) return '';
  const checked = plan.stop_conditions.length - uncheckedConditions(plan.stop_conditions).length;
  return checked > 0 ? `The runtime stops this phase for the monitor's review when a round's result matches a stop condition (${checked} of ${plan.stop_conditions.length} are checked).` : '';
}

/**
 * The host side of SCS: runs the phase-controller machine with the node's model as committee and
 * monitor, and gives the run loop what it needs — the approved plan (allowed tools, the
 * supervisor's brief), the step budget, the finish gate, and a verdict after every round.
 */
export class ScsController {
  private readonly actor: Actor<typeof scsMachine>;
  /** The decisions so far, oldest first: the executor's rounds and the monitor's gates (the transcript). */
  private readonly log: TranscriptEntry[] = [];

  constructor(private readonly deps: ScsControllerDeps) {
    const mask = deps.mask ?? (<T>(value: T): T => value);
    const machine = scsMachine.provide({
      actors: {
        committee: fromPromise<unknown, CommitteeInput>(({ input, signal }) => {
          const prompt = buildCommitteePrompt(this.promptContext(), input);
          const messages = mask(prompt.messages);
          const { data } = prompt;
          const format = deps.settings.alternatives > 1 ? committeeDraftJsonSchema() : phasePlanJsonSchema();
          return askJson(deps.committee, deps.role, messages, format, signal, { caller: 'committee', purpose: 'plan', data, phase: input.phase }, (said) =>
            deps.emit({ type: 'scs.transcript', role: 'committee', phase: input.phase, messages, ...said }),
          );
        }),
        monitor: fromPromise<unknown, MonitorInput>(({ input, signal }) => {
          const prompt = buildMonitorPrompt(this.promptContext(), input);
          const messages = mask(prompt.messages);
          const { data } = prompt;
          return askJson(deps.monitor, deps.role, messages, monitorDecisionJsonSchema(), signal, { caller: 'monitor', purpose: 'gate', data, phase: input.phase }, (said) =>
            deps.emit({ type: 'scs.transcript', role: 'monitor', phase: input.phase, trigger: input.trigger, messages, ...said }),
          );
        }),
      },
    });
    this.actor = deps.restore
      ? createActor(machine, { snapshot: deps.restore as never, input: { settings: deps.settings, budget: deps.budget, writeWork: deps.writeWork } })
      : createActor(machine, { input: { settings: deps.settings, budget: deps.budget, writeWork: deps.writeWork } });
    this.actor.on('*', (event) => {
      if ('decision' in event && 'trigger' in event) {
        this.log.push({ who: 'monitor', kind: event.decision.decision, text: `phase ${event.phase} ${event.trigger} review → ${event.decision.decision}: ${event.decision.reason}` });
      }
      deps.emit(event);
    });
    this.actor.start();
  }

  /** What the prompts are built from: the run's context, the decisions within the transcript budget, the phase's changed files. */
  private promptContext(): PromptContext {
    const context = this.actor.getSnapshot().context;
    // A resumed controller has no log of its own yet: the rounds it kept are the transcript.
    const entries = this.log.length > 0 ? this.log : context.facts.map(factEntry);
    const { stop } = context;
    return {
      ...this.deps.context(),
      transcript: transcriptText(budgetTranscript(entries, this.deps.settings.transcript_budget)),
      changed: changedFiles(context),
      alternatives: this.deps.settings.alternatives,
      ...(stop ? { note: `The phase stopped: its stop condition "${stop.condition}" matched — ${stop.matched} (evidence: ${stop.evidence.join(', ')}).` } : {}),
    };
  }

  /** Waits until the controller rests: the executor may run, the task is finished, or it is blocked. */
  async settle(): Promise<ScsState> {
    const snapshot = await waitFor(this.actor, (s) => s.matches('executing') || s.status === 'done', { timeout: Infinity, signal: this.deps.signal });
    if (snapshot.matches('finished')) return 'finished';
    if (snapshot.matches('blocked')) return 'blocked';
    return 'executing';
  }

  async roundDone(fact: RoundFact): Promise<ScsState> {
    if (this.actor.getSnapshot().matches('executing')) {
      this.log.push(factEntry(fact));
      this.actor.send({ type: 'ROUND_DONE', fact });
    }
    return this.settle();
  }

  /** The finish gate: a `complete` is delivered only after the monitor allowed it. */
  async requestFinish(round: number): Promise<{ allowed: boolean }> {
    if (this.actor.getSnapshot().matches('executing')) this.actor.send({ type: 'FINISH_REQUESTED', round });
    const state = await this.settle();
    return { allowed: state === 'finished' };
  }

  get plan(): PhasePlan | undefined {
    return this.actor.getSnapshot().context.plan;
  }

  get phase(): number {
    return this.actor.getSnapshot().context.phase;
  }

  get budget(): number {
    return this.actor.getSnapshot().context.budget;
  }

  get blockedReasons(): string[] {
    return this.actor.getSnapshot().context.blockedReasons;
  }

  /** What the executor's next decision must be (next_required_action), for the boundary to enforce. */
  get required(): RequiredAction | undefined {
    return this.actor.getSnapshot().context.required;
  }

  /** The monitor's reason for refusing the last finish, for the executor's next prompt. */
  get finishRejection(): string | undefined {
    return this.actor.getSnapshot().context.finishRejection;
  }

  /** The supervisor's (executor's) standing instruction for the approved phase (seed 001). */
  brief(): string | undefined {
    const plan = this.plan;
    if (!plan) return undefined;
    return [
      `SCS phase ${this.phase} — execute only this approved phase plan. You may choose exact tools and paths, but you may not invent a new strategic plan. If tool results invalidate the plan, say so and finish nothing until the monitor has reviewed it.`,
      `Goal: ${plan.phase_goal}`,
      `Steps:\n${plan.plan.map((s, i) => `${i + 1}. ${s}`).join('\n')}`,
      `Acceptance criteria:\n${plan.acceptance_criteria.map((c) => `- ${c}`).join('\n')}`,
      `Allowed tools: ${plan.allowed_tools.join(', ') || '(none)'}`,
      plan.stop_conditions.length ? `Stop when: ${plan.stop_conditions.join('; ')}` : '',
      stopNote(plan),
      this.required ? `Next required action (enforced): ${this.required.kind === 'tool' ? `call ${this.required.tool}` : this.required.kind === 'finish' ? 'complete' : 'a step of the plan, not complete'} — ${this.required.why}.` : '',
    ]
      .filter(Boolean)
      .join('\n');
  }

  record(base: Pick<ScsRecord, 'mode' | 'active' | 'reason' | 'model'>): ScsRecord {
    const snapshot = this.actor.getSnapshot();
    const value = snapshot.value;
    const status: ScsRecord['status'] =
      value === 'finished' ? 'finished' : value === 'blocked' ? 'blocked' : value === 'executing' ? 'executing' : snapshot.matches('monitoring') ? 'monitoring' : 'planning';
    return {
      ...base,
      phase: snapshot.context.phase,
      plan: snapshot.context.plan,
      decision: snapshot.context.decision?.decision,
      status,
      blocked_reasons: snapshot.context.blockedReasons,
      extensions: snapshot.context.extensions,
    };
  }

  /** The machine's state for a checkpoint (only taken while it rests between rounds). */
  persist(): unknown {
    return this.actor.getPersistedSnapshot();
  }

  stop(): void {
    this.actor.stop();
  }
}
