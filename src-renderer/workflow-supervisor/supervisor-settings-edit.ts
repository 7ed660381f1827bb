import type { ProviderStatus } from '@shared/contracts/host-api';
import { ModelRef, modelLabel } from '@shared/contracts/model';
import { localityOf } from '@shared/policy/privacy';
import { SupervisorSettings, SupervisorWho, type ModelPrice } from '@shared/supervisor/contracts';
import type { WorkflowNode } from '@shared/workflow/document';

/**
 * The editor's changes to a workflow's `supervisor` settings, as pure functions: every result is
 * parsed by the document's own schema, so the editor can never hold settings the host would refuse.
 * Turning supervision off keeps the rest, so turning it on again gives back what was chosen.
 */

/** A local model by default: the first model Ollama lists, else the replay model. */
export function defaultSupervisorModel(providers: ProviderStatus | undefined): ModelRef {
  const first = providers?.ollama.reachable ? providers.ollama.models[0] : undefined;
  return first ? ModelRef.parse({ provider: 'ollama', model: first.name }) : { provider: 'script' };
}

export function setEnabled(current: SupervisorSettings | undefined, enabled: boolean, providers: ProviderStatus | undefined): SupervisorSettings {
  if (current) return SupervisorSettings.parse({ ...current, enabled });
  return SupervisorSettings.parse({ enabled, who: { kind: 'model', model: defaultSupervisorModel(providers) } });
}

export function setWhoKind(current: SupervisorSettings, kind: SupervisorWho['kind'], providers: ProviderStatus | undefined): SupervisorSettings {
  if (current.who.kind === kind) return current;
  const who: SupervisorWho = kind === 'person' ? { kind: 'person' } : SupervisorWho.parse({ kind: 'model', model: defaultSupervisorModel(providers) });
  return SupervisorSettings.parse({ ...current, who });
}

export function setModel(current: SupervisorSettings, model: ModelRef): SupervisorSettings {
  if (current.who.kind !== 'model') return current;
  // A replay script answers for the replay model only: another model drops it.
  const { script, ...rest } = current.who;
  return SupervisorSettings.parse({ ...current, who: model.provider === 'script' && script ? { ...rest, model, script } : { ...rest, model } });
}

/** `text` as typed: empty = no cap; anything not a non-negative number leaves the settings as they were. */
export function setCostCap(current: SupervisorSettings, text: string): SupervisorSettings {
  const trimmed = text.trim();
  const { cost_cap_usd: _old, ...rest } = current;
  if (trimmed === '') return SupervisorSettings.parse(rest);
  const n = Number(trimmed);
  if (!Number.isFinite(n) || n < 0) return current;
  return SupervisorSettings.parse({ ...rest, cost_cap_usd: n });
}

export function setBound(current: SupervisorSettings, bound: 'max_decisions' | 'max_retries', value: number): SupervisorSettings {
  const parsed = SupervisorSettings.safeParse({ ...current, [bound]: value });
  return parsed.success ? parsed.data : current;
}

/** The model's price per million tokens (the pricing table is keyed by its label); `undefined` removes it. */
export function setPrice(current: SupervisorSettings, model: ModelRef, price: ModelPrice | undefined): SupervisorSettings {
  const label = modelLabel(model);
  const { [label]: _old, ...others } = current.pricing;
  return SupervisorSettings.parse({ ...current, pricing: price ? { ...others, [label]: price } : others });
}

export function priceOf(settings: SupervisorSettings, model: ModelRef): ModelPrice | undefined {
  const label = modelLabel(model);
  return Object.hasOwn(settings.pricing, label) ? settings.pricing[label] : undefined;
}

/** Whether the model supervisor sends failure details off this machine (the consent text is shown then). */
export function isRemoteSupervisor(settings: SupervisorSettings): boolean {
  return settings.who.kind === 'model' && !localityOf(settings.who.model).local;
}

/**
 * The host refuses an unpriced cloud model while a cap is set (its cost cannot be bounded): the run
 * then goes on unsupervised and says so. Said here first, while it can still be fixed.
 */
export function costCapProblem(settings: SupervisorSettings): string | undefined {
  if (settings.who.kind !== 'model' || settings.cost_cap_usd === undefined || !isRemoteSupervisor(settings)) return undefined;
  if (priceOf(settings, settings.who.model)) return undefined;
  return `${modelLabel(settings.who.model)} has no price here, so with a cost cap of $${settings.cost_cap_usd} it is refused and the run goes unsupervised: add its price below, or remove the cap.`;
}

/**
 * How long the supervisor may take, in seconds as typed. A model: 1 s to 10 min (its default verdict,
 * fail, after that). A person: at least a minute; empty = they have until the run is stopped.
 * Anything else leaves the settings as they were.
 */
export function setDecisionTimeout(current: SupervisorSettings, seconds: string): SupervisorSettings {
  const trimmed = seconds.trim();
  const who = current.who;
  if (who.kind === 'person' && trimmed === '') return SupervisorSettings.parse({ ...current, who: { kind: 'person' } });
  const n = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(n)) return current;
  const parsed = SupervisorWho.safeParse({ ...who, decision_timeout_ms: Math.round(n * 1000) });
  return parsed.success ? SupervisorSettings.parse({ ...current, who: parsed.data }) : current;
}

/**
 * The cloud models the workflow's agent nodes call, each once, the supervisor's own model left out
 * (it has its own price field). A failed agent node's spend is its calls at these prices; a model
 * with no price is "unpriced", and the supervisor never retries that node (docs/workflow-supervisor.md).
 */
export function agentCloudModels(nodes: readonly WorkflowNode[], settings: SupervisorSettings): ModelRef[] {
  const own = settings.who.kind === 'model' ? modelLabel(settings.who.model) : undefined;
  const found = new Map<string, ModelRef>();
  for (const node of nodes) {
    if (node.kind !== 'agent') continue;
    for (const ref of [node.models.student, node.models.teacher]) {
      const label = modelLabel(ref);
      if (label !== own && !found.has(label) && !localityOf(ref).local) found.set(label, ref);
    }
  }
  return [...found.values()];
}
