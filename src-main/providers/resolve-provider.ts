import type { ModelRef, ModelRole } from '@shared/contracts/model';
import type { ModelScript } from '@shared/contracts/script';
import type { FetchFn } from './ollama-call';
import { createOllamaProvider } from './ollama-provider';
import type { ModelProvider } from './provider';
import { createScriptProvider } from './script-provider';

export interface ProviderDeps {
  /** The spec's replay script (inline or loaded from `script_file`). */
  script?: ModelScript;
  fetch?: FetchFn;
  /** The app's Ollama address, for refs that name no host. */
  ollamaHost?: string;
}

/**
 * The one place a model ref becomes a provider. Resolve once per run and role: a replay
 * provider keeps its position in the script, so resolving again starts the script over.
 */
export function resolveProvider(ref: ModelRef, role: ModelRole, deps: ProviderDeps = {}): ModelProvider {
  switch (ref.provider) {
    case 'script':
      if (!deps.script) throw new Error('the replay (script) provider needs a `script` or `script_file` in the spec');
      return createScriptProvider(deps.script, role);
    case 'ollama':
      return createOllamaProvider(ref, role, { fetch: deps.fetch, defaultHost: deps.ollamaHost });
  }
}
