import { credentialNameOf, isCredentialRef, type CredentialRef } from '@shared/contracts/credentials';
import type { ModelRef } from '@shared/contracts/model';
import type { AgentSpec } from '@shared/contracts/spec';
import { CredentialStoreError, type CredentialStore } from './credential-store';
import { MIN_MASKABLE_LENGTH, type SecretRegistry } from './secret-registry';

/**
 * Every credential a spec needs, in first-seen order without duplicates: the models' `api_key`
 * and the servers' `env` and `headers` values that are `keychain:NAME` references.
 */
export function collectCredentialRefs(spec: Pick<AgentSpec, 'models' | 'servers'>): CredentialRef[] {
  const refs = new Set<CredentialRef>();
  for (const model of [spec.models.student, spec.models.teacher]) {
    const key = apiKeyOf(model);
    if (key !== undefined) refs.add(key);
  }
  for (const server of spec.servers) {
    for (const value of [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})]) if (isCredentialRef(value)) refs.add(value);
  }
  return [...refs];
}

function apiKeyOf(model: ModelRef): CredentialRef | undefined {
  switch (model.provider) {
    case 'openai_compatible':
      return model.api_key;
    case 'ollama':
    case 'script':
      return undefined;
  }
}

/**
 * Fetches each referenced value from the store and registers it for masking before anything else
 * can see it. Fails closed: a missing credential, or one too short to be masked, stops the run
 * with a CredentialStoreError naming the reference (never the value).
 */
export async function resolveCredentials(
  refs: readonly CredentialRef[],
  store: CredentialStore,
  registry: SecretRegistry,
): Promise<Map<CredentialRef, string>> {
  const resolved = new Map<CredentialRef, string>();
  for (const ref of refs) {
    const name = credentialNameOf(ref);
    let value: string | undefined;
    try {
      value = await store.get(name);
    } catch (err) {
      if (err instanceof CredentialStoreError) throw err;
      throw new CredentialStoreError(`could not read credential ${ref} (${err instanceof Error ? err.message : String(err)})`);
    }
    if (value === undefined) {
      throw new CredentialStoreError(
        `credential ${ref} is not in the keychain — add it with \`steward credentials set ${name}\` or in Settings → Credentials`,
      );
    }
    if (!registry.register(name, value)) {
      throw new CredentialStoreError(
        `credential ${ref} is shorter than ${MIN_MASKABLE_LENGTH} characters, too short to be kept out of traces — store the full secret with \`steward credentials set ${name}\``,
      );
    }
    resolved.set(ref, value);
  }
  return resolved;
}
