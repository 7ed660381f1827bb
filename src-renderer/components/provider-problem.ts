import type { ProviderStatus } from '@shared/contracts/host-api';
import type { ModelRef } from '@shared/contracts/model';

/** A model a run calls: who calls it (a node, the supervisor, the workflow) and as what. */
export interface UsedModel {
  ref: ModelRef;
  /** `agent “Writer”`, `the workflow supervisor`, `“Notes assistant”`… */
  node: string;
  /** `student`, `member critic’s teacher`…; empty when the caller is the role (the supervisor). */
  role: string;
}

const list = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** `agent “Writer” (its student and teacher), the workflow supervisor`: who calls these models, caller by caller. */
function callers(uses: readonly UsedModel[]): string {
  const byNode = new Map<string, string[]>();
  for (const u of uses) byNode.set(u.node, [...(byNode.get(u.node) ?? []), ...(u.role ? [u.role] : [])]);
  return list([...byNode].map(([node, roles]) => (roles.length > 0 ? `${node} (its ${list(roles)})` : node)));
}

type OllamaUse = UsedModel & { ref: Extract<ModelRef, { provider: 'ollama' }> };

/**
 * Why a run of these models cannot start with the providers as the host found them, in words a
 * person acts on (`elsewhere`: where they choose another model); undefined when nothing it needs is
 * known to be down. Ollama is the provider the host watches: unreachable, or reachable without a
 * model named. Unknown status (not asked, or the host could not say) never blocks.
 */
export function providerProblem(uses: readonly UsedModel[], providers: ProviderStatus | undefined, elsewhere = 'in the editor'): string | undefined {
  if (!providers) return undefined;
  const ollama = uses.filter((u): u is OllamaUse => u.ref.provider === 'ollama');
  if (ollama.length === 0) return undefined;
  const status = providers.ollama;
  const models = (of: readonly OllamaUse[]) => [...new Set(of.map((u) => u.ref.model))];
  if (!status.reachable) {
    return `Ollama is not answering at ${status.host}, and this run needs it: ${list(models(ollama))} for ${callers(ollama)}. Start Ollama (ollama serve) and try again, or choose another model ${elsewhere}.`;
  }
  // Ollama lists a model named without a tag under `:latest`.
  const missing = ollama.filter((u) => !status.models.some((m) => m.name === u.ref.model || m.name === `${u.ref.model}:latest`));
  if (missing.length === 0) return undefined;
  const absent = models(missing);
  return `Ollama at ${status.host} does not have ${list(absent)}, which this run needs for ${callers(missing)}. Pull ${absent.length === 1 ? 'it' : 'them'} (ollama pull ${absent[0]}) and try again, or choose another model ${elsewhere}.`;
}
