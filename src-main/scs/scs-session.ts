import type { RunEventPayload } from '@shared/contracts/events';
import type { ModelRef } from '@shared/contracts/model';
import type { RoundRecord } from '@shared/contracts/round';
import type { ModelScript } from '@shared/contracts/script';
import { isProtectedEffect } from '@shared/contracts/tool-effect';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { decideActivation } from '@shared/scs/activation';
import type { ScsRecord, ScsSettings } from '@shared/scs/contracts';
import type { RequiredAction } from '@shared/scs/required-action';
import type { RunCheckpoint } from '../engine/checkpoint';
import type { ModelProvider } from '../providers/provider';
import { createScriptProvider } from '../providers/script-provider';
import type { RecentEvent } from './evidence';
import { roundFact } from './round-fact';
import { ScsController } from './scs-controller';

type ScsBase = Pick<ScsRecord, 'mode' | 'active' | 'reason' | 'model'>;

export interface ScsSessionDeps {
  settings: ScsSettings;
  maxRounds: number;
  models: Record<'student' | 'teacher', ModelRef>;
  labels: Record<'student' | 'teacher', string>;
  providers: Record<'student' | 'teacher', ModelProvider>;
  /** Records the calls of the replay committee and monitor this session makes itself (the privacy log). */
  observe?: (provider: ModelProvider, role: 'student' | 'teacher') => ModelProvider;
  /** The replay script, variables substituted (its committee and monitor queues). */
  script?: ModelScript;
  context: () => { task: string; instructions: string; snapshot: ToolSnapshot; recent: RecentEvent[] };
  emit: (payload: RunEventPayload) => void;
  /** The run's redaction (credential values, sensitive arguments): applied to every SCS prompt and round fact. */
  mask?: <T>(value: T) => T;
  signal?: AbortSignal;
  resumed?: RunCheckpoint['scs'];
}

/**
 * SCS for one run (seed 001), as the run loop uses it: decided at the first round (auto needs the
 * offered tools) and again after a failure when auto left it off; once active it gates every phase,
 * the tools a round may use, the step budget and the finish.
 */
export class ScsSession {
  private controller: ScsController | undefined;
  private roles: { committee: ModelProvider; monitor: ModelProvider } | undefined;
  private decided = false;
  private base: ScsBase;

  constructor(private readonly deps: ScsSessionDeps) {
    this.base = { mode: deps.settings.mode, active: false, reason: 'SCS is off', model: '' };
    if (deps.resumed) {
      this.decided = true;
      this.base = deps.resumed.base;
      if (deps.resumed.snapshot !== undefined) this.start(deps.resumed.snapshot);
    }
  }

  /** Before a round: activate if the mode asks for it now, and wait for an approved plan. */
  async beforeRound(snapshot: ToolSnapshot, failuresSoFar: number): Promise<'go' | 'blocked'> {
    const { settings } = this.deps;
    if (settings.mode === 'off' || this.controller || (this.decided && failuresSoFar === 0)) return 'go';
    const tools = snapshot.tools.map((t) => ({ name: t.name, effect: t.effect.effect }));
    const decision = decideActivation(settings.mode, { tools, max_rounds: this.deps.maxRounds, failures: failuresSoFar }, settings);
    if (!this.decided || decision.active) {
      this.base = { mode: settings.mode, active: decision.active, reason: decision.reason, model: this.deps.labels[settings.model] };
      this.deps.emit({ type: 'scs.enabled', ...this.base });
    }
    this.decided = true;
    if (!decision.active) return 'go';
    this.start(undefined, snapshot.tools.some((t) => isProtectedEffect(t.effect.effect)));
    return (await this.controller!.settle()) === 'blocked' ? 'blocked' : 'go';
  }

  /** After a round (except the delivered finish): the monitor may review, replan, extend or block. */
  async afterRound(record: RoundRecord, eventIds: string[]): Promise<'go' | 'blocked'> {
    if (!this.controller || (record.outcome === 'delivered' && record.selected?.decision.decision_type === 'complete')) return 'go';
    const fact = roundFact(record, eventIds, this.deps.context().snapshot);
    return (await this.controller.roundDone(this.deps.mask ? this.deps.mask(fact) : fact)) === 'blocked' ? 'blocked' : 'go';
  }

  finishGate(round: number): Promise<{ allowed: boolean }> {
    return this.controller ? this.controller.requestFinish(round) : Promise.resolve({ allowed: true });
  }

  /** The approved phase's tools and what the executor must do next: the boundary's validation constraints for the round. */
  get constraints(): { allowed_tools: string[]; required_action?: RequiredAction } | undefined {
    const plan = this.controller?.plan;
    const required = this.controller?.required;
    return plan ? { allowed_tools: plan.allowed_tools, ...(required ? { required_action: required } : {}) } : undefined;
  }

  withBrief(instructions: string): string {
    const brief = this.controller?.brief();
    return brief ? `${instructions}\n\n${brief}` : instructions;
  }

  budget(fallback: number): number {
    return this.controller?.budget ?? fallback;
  }

  get finishRejection(): string | undefined {
    return this.controller?.finishRejection;
  }

  get blockedMessage(): string {
    return `SCS blocked: ${this.controller?.blockedReasons.join('; ') ?? 'no plan'}`;
  }

  record(): ScsRecord | undefined {
    if (!this.decided) return undefined;
    return this.controller ? this.controller.record(this.base) : { ...this.base, phase: 0, status: 'off', blocked_reasons: [], extensions: 0 };
  }

  /** What a checkpoint keeps so a resumed run continues with the same SCS state. */
  checkpoint(): RunCheckpoint['scs'] {
    if (!this.decided) return undefined;
    return {
      base: this.base,
      snapshot: this.controller?.persist(),
      positions: { committee: this.roles?.committee.position?.() ?? 0, monitor: this.roles?.monitor.position?.() ?? 0 },
    };
  }

  stop(): void {
    this.controller?.stop();
  }

  private start(restore?: unknown, writeWork = true): void {
    const { settings, models, providers, script, resumed } = this.deps;
    const role = settings.model;
    const observe = this.deps.observe ?? ((provider: ModelProvider) => provider);
    // Committee and monitor are the node's model (seed: the main one); replay has queues for them.
    this.roles =
      models[role].provider === 'script' && script
        ? {
            committee: observe(createScriptProvider(script, 'committee', { startAt: resumed?.positions.committee }), role),
            monitor: observe(createScriptProvider(script, 'monitor', { startAt: resumed?.positions.monitor }), role),
          }
        : { committee: providers[role], monitor: providers[role] };
    this.controller = new ScsController({
      settings,
      budget: this.deps.maxRounds,
      writeWork,
      role,
      committee: this.roles.committee,
      monitor: this.roles.monitor,
      context: this.deps.context,
      emit: this.deps.emit,
      mask: this.deps.mask,
      restore,
      signal: this.deps.signal,
    });
  }
}
