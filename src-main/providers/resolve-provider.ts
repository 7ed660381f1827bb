import type { CredentialRef } from '@shared/contracts/credentials';
import type { ModelRef, ModelRole } from '@shared/contracts/model';
import type { ModelScript } from '@shared/contracts/script';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { allowedEndpoint, type ModelEndpoint, type RemoteModelRef } from './endpoint';
import type { FetchFn } from './http-call';
import { createOllamaProvider } from './ollama-provider';
import { createOpenAICompatibleProvider } from './openai-compatible-provider';
import type { ModelProvider } from './provider';
import { createScriptProvider } from './script-provider';

export interface ProviderDeps {
  /** The spec's replay script (inline or loaded from `script_file`). */
  script?: ModelScript;
  fetch?: FetchFn;
  /** The app's Ollama address, for refs that name no host. */
  ollamaHost?: string;
  /**
   * API keys already read from the OS keychain, by reference (`keychain:NAME` → value). The
   * engine fills it from `credentialRefsOf(...)` before resolving; each key goes only to the
   * provider whose ref names it.
   */
  apiKeys?: ReadonlyMap<string, string>;
  /** Where each role's replay script resumes (a run resumed from a checkpoint). */
  scriptStart?: Partial<Record<ModelRole, number>>;
  /** The workspace's privacy policy; local only when absent. */
  privacy?: PrivacyPolicy;
  /** Endpoints the caller already checked with `allowedEndpoint` (so the URL is built once). */
  endpoints?: Partial<Record<ModelRole, ModelEndpoint>>;
}

/**
 * The one place a model ref becomes a provider. Resolve once per run and role: a replay
 * provider keeps its position in the script, so resolving again starts the script over.
 * Throws (a ProviderError `credential_missing` for an absent key) on a configuration error, and
 * when the privacy policy does not allow the model's host: decided here, on the URL the provider
 * then sends every request to.
 */
export function resolveProvider(ref: ModelRef, role: ModelRole, deps: ProviderDeps = {}): ModelProvider {
  switch (ref.provider) {
    case 'script':
      if (!deps.script) throw new Error('the replay (script) provider needs a `script` or `script_file` in the spec');
      return createScriptProvider(deps.script, role, { startAt: deps.scriptStart?.[role] });
    case 'ollama':
      return createOllamaProvider(ref, role, { fetch: deps.fetch, endpoint: checkedEndpoint(ref, role, deps) });
    case 'openai_compatible':
      // The provider itself refuses a named key that is absent, with the reference and the fix.
      return createOpenAICompatibleProvider(ref, role, {
        apiKey: ref.api_key === undefined ? undefined : deps.apiKeys?.get(ref.api_key),
        fetch: deps.fetch,
        endpoint: checkedEndpoint(ref, role, deps),
      });
  }
}

function checkedEndpoint(ref: RemoteModelRef, role: ModelRole, deps: ProviderDeps): ModelEndpoint {
  const given = deps.endpoints?.[role];
  if (given) return given;
  const allowed = allowedEndpoint(ref, role, deps.privacy ?? LOCAL_ONLY, deps.ollamaHost);
  if (!allowed.ok) throw new Error(allowed.message);
  return allowed.endpoint;
}

/** The keychain references these models need resolved before `resolveProvider` (each once). */
export function credentialRefsOf(...refs: readonly ModelRef[]): CredentialRef[] {
  const names = refs.flatMap((ref) => (ref.provider === 'openai_compatible' && ref.api_key !== undefined ? [ref.api_key] : []));
  return [...new Set(names)];
}
