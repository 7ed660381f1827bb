import { modelLabel, type ModelRef } from '@shared/contracts/model';
import { isHostAllowed, LOCAL_ONLY, localityOf, type PrivacyPolicy } from '@shared/policy/privacy';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { mergedPricing, type PriceList } from '@shared/accounting/price-list';
import type { CredentialStore } from '../../credentials/credential-store';
import { resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { FetchFn } from '../../providers/http-call';
import type { ModelProvider } from '../../providers/provider';
import { modelPlace } from '../../providers/record-calls';
import { credentialRefsOf, resolveProvider } from '../../providers/resolve-provider';
import { createScriptProvider } from '../../providers/script-provider';
import type { WorkflowCheckpoint } from '../workflow-checkpoint';
import { createModelSupervisor } from './model-supervisor';
// A person's escalations wait in the app (and `steward answer`), persisted with the run.
import { personSupervisor } from './person-supervisor';
import type { WorkflowSupervisor } from './supervise-failure';
import type { WorkflowSupervisionOptions } from './workflow-supervision';

/**
 * The one place a workflow's supervision is decided (issue 11), for the app (RunManager) and the
 * CLI alike: the document's `supervisor` settings, the caller's overrides (CLI flags) on top, or —
 * for a resumed run — exactly the settings it started with (kept in its checkpoint). Returns
 * undefined when the run does not ask for supervision: then nothing is constructed and the run's
 * events are an unsupervised run's. A run that asks and cannot have it gets `{ unavailable }` with
 * the reason: it runs unsupervised and says so.
 */

/** What a caller may set over the document's settings (the CLI's flags). */
export interface SupervisionOverrides {
  supervise?: boolean;
  max_decisions?: number;
  max_retries?: number;
  cost_cap_usd?: number;
  model?: ModelRef;
}

export interface SupervisionHost {
  privacy?: PrivacyPolicy;
  ollamaHost?: string;
  credentials?: CredentialStore;
  fetch?: FetchFn;
  /** Tests: the provider a model supervisor calls, instead of one resolved from its ref. */
  provider?: ModelProvider;
  /** The app's price list (issue 31): the cost cap prices with it; the workflow's own older entries win. */
  prices?: PriceList;
}

/** The document's settings with the overrides on top; invalid combinations are refused by the schema (a message that names the flag's field). */
export function supervisionSettings(saved: SupervisorSettings | undefined, overrides: SupervisionOverrides = {}): SupervisorSettings {
  const base = saved ?? SupervisorSettings.parse({});
  const savedModel = base.who.kind === 'model' ? base.who : undefined;
  const who = overrides.model
    ? {
        kind: 'model' as const,
        model: overrides.model,
        // The document's replay script and limits stay with a replay model named on the command line.
        ...(overrides.model.provider === 'script' && savedModel?.script ? { script: savedModel.script } : {}),
        ...(savedModel ? { max_output_tokens: savedModel.max_output_tokens, decision_timeout_ms: savedModel.decision_timeout_ms } : {}),
      }
    : base.who;
  return SupervisorSettings.parse({
    ...base,
    who,
    ...(overrides.supervise ? { enabled: true } : {}),
    ...(overrides.max_decisions !== undefined ? { max_decisions: overrides.max_decisions } : {}),
    ...(overrides.max_retries !== undefined ? { max_retries: overrides.max_retries } : {}),
    ...(overrides.cost_cap_usd !== undefined ? { cost_cap_usd: overrides.cost_cap_usd } : {}),
  });
}

/** A model supervisor's identity (its pricing label, and whether it runs on this machine). */
export function modelIdentity(ref: ModelRef, ollamaHost?: string): { kind: 'model'; label: string; local: boolean } {
  return { kind: 'model', label: modelLabel(ref), local: localityOf(ref, ollamaHost).local };
}

/**
 * A run's supervision: from its checkpoint when it resumes (the same settings, the same ledger
 * and replay position), else from the document and the overrides.
 */
export async function resolveSupervision(
  source: { graph: { supervisor?: SupervisorSettings | undefined }; overrides?: SupervisionOverrides; checkpoint?: WorkflowCheckpoint },
  host: SupervisionHost,
): Promise<WorkflowSupervisionOptions | undefined> {
  const { checkpoint } = source;
  const own = checkpoint ? checkpoint.supervisor_settings : asked(source.graph.supervisor, source.overrides);
  if (!own?.enabled) return undefined;
  // A resumed run keeps the prices it started with (its checkpoint holds them merged).
  const settings = !checkpoint && host.prices ? { ...own, pricing: mergedPricing(host.prices, own.pricing) } : own;
  const resumed = { spentUsd: checkpoint?.supervisor_ledger?.spent_usd ?? 0, scriptAt: checkpoint?.supervisor_script_at ?? 0 };
  try {
    return { settings, supervisor: await supervisorFor(settings, host, resumed) };
  } catch (error) {
    // Whatever went wrong setting the supervisor up, the run still runs, unsupervised, and says why.
    return { settings, supervisor: { unavailable: `the supervisor could not be set up: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

function asked(saved: SupervisorSettings | undefined, overrides: SupervisionOverrides | undefined): SupervisorSettings | undefined {
  const any = overrides && Object.values(overrides).some((v) => v !== undefined);
  if (!saved && !any) return undefined;
  return supervisionSettings(saved, overrides);
}

type Unavailable = { unavailable: string };

async function supervisorFor(settings: SupervisorSettings, host: SupervisionHost, resumed: { spentUsd: number; scriptAt: number }): Promise<WorkflowSupervisor | Unavailable> {
  const { who } = settings;
  switch (who.kind) {
    case 'person':
      return personSupervisor(who);
    case 'model':
      return modelSupervisor(settings, who, host, resumed);
  }
}

async function modelSupervisor(
  settings: SupervisorSettings,
  who: Extract<SupervisorSettings['who'], { kind: 'model' }>,
  host: SupervisionHost,
  resumed: { spentUsd: number; scriptAt: number },
): Promise<WorkflowSupervisor | Unavailable> {
  const ref = who.model;
  const identity = modelIdentity(ref, host.ollamaHost);
  const label = identity.label;
  // The privacy policy first: a disallowed host's key is never even read.
  const where = localityOf(ref, host.ollamaHost);
  if (!where.local) {
    if (where.invalid !== undefined) return { unavailable: `the supervisor model ${label} is not called: its address ${where.invalid}` };
    const policy = host.privacy ?? LOCAL_ONLY;
    if (!isHostAllowed(policy, where.host)) {
      return {
        unavailable: `the supervisor model ${label} would send failure details to ${where.host}, which the workspace privacy policy does not allow (local only${policy.allowed_hosts.length ? `, plus ${policy.allowed_hosts.join(', ')}` : ''}); allow that host or choose a local supervisor model`,
      };
    }
  }
  if (!identity.local && settings.cost_cap_usd !== undefined && !Object.hasOwn(settings.pricing, label)) {
    return { unavailable: `the supervisor model ${label} has no price, so the cost cap of $${settings.cost_cap_usd} cannot be kept; add its price or remove the cap` };
  }
  let provider = host.provider;
  try {
    provider ??= await providerFor(ref, who.script, host, resumed.scriptAt);
  } catch (error) {
    return { unavailable: `the supervisor model ${label} cannot be used: ${error instanceof Error ? error.message : String(error)}` };
  }
  return createModelSupervisor({ provider, identity, settings, spentUsd: resumed.spentUsd, place: modelPlace(ref, host.ollamaHost) });
}

async function providerFor(ref: ModelRef, script: Extract<SupervisorSettings['who'], { kind: 'model' }>['script'], host: SupervisionHost, scriptAt: number): Promise<ModelProvider> {
  // A replay supervisor answers from its script's `teacher` list (the supervisor judges, as a teacher does).
  if (ref.provider === 'script') {
    if (!script) throw new Error('a replay supervisor needs a `script` in the workflow’s supervisor settings');
    return createScriptProvider(script, 'teacher', { startAt: scriptAt });
  }
  const refs = credentialRefsOf(ref);
  let apiKeys = new Map<string, string>();
  if (refs.length > 0) {
    if (!host.credentials) throw new Error('its API key is a keychain credential, and no credential store is available');
    // The key goes in a request header only, never into a prompt or an event.
    apiKeys = await resolveCredentials(refs, host.credentials, new SecretRegistry(), new Map(refs.map((r) => [r, `the API key of the supervisor model ${ref.model}`])));
  }
  return resolveProvider(ref, 'teacher', { ollamaHost: host.ollamaHost, privacy: host.privacy, apiKeys, ...(host.fetch ? { fetch: host.fetch } : {}) });
}

/** Whether a run asks for supervision at all (checked without awaiting anything, so a run that does not ask starts exactly as before). */
export function supervisionAsked(source: { graph: { supervisor?: SupervisorSettings | undefined }; overrides?: SupervisionOverrides; checkpoint?: WorkflowCheckpoint }): boolean {
  if (source.checkpoint) return source.checkpoint.supervisor_settings?.enabled === true;
  return source.overrides?.supervise === true || source.graph.supervisor?.enabled === true;
}
