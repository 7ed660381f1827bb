import { credentialNameOf, isCredentialRef, type CredentialRef } from '@shared/contracts/credentials';
import type { ModelRef } from '@shared/contracts/model';
import type { AgentSpec } from '@shared/contracts/spec';
import { withDetails } from '@shared/contracts/code-words';
import { CredentialStoreError, type CredentialStore, type KeychainFailure } from './credential-store';
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

/**
 * What each credential of a spec is for, in words a person knows it by ("the API key of the teacher
 * model gpt-4o", "server github's GITHUB_TOKEN"): what a keychain failure names (issue 28).
 */
export function credentialUses(spec: Pick<AgentSpec, 'models' | 'servers'>): Map<CredentialRef, string> {
  const uses = new Map<CredentialRef, string>();
  for (const role of ['student', 'teacher'] as const) {
    const model = spec.models[role];
    const key = apiKeyOf(model);
    if (key !== undefined && !uses.has(key)) uses.set(key, `the API key of the ${role} model${model.provider === 'openai_compatible' ? ` ${model.model}` : ''}`);
  }
  for (const server of spec.servers) {
    for (const [where, values] of [['env', server.env], ['headers', server.headers]] as const) {
      for (const [field, value] of Object.entries(values ?? {})) if (isCredentialRef(value) && !uses.has(value)) uses.set(value, `server ${server.id}'s ${where === 'env' ? field : `${field} header`}`);
    }
  }
  return uses;
}

/**
 * A keychain that failed while a run read a credential, said as what happened and what to do; the
 * keychain's own reason (a D-Bus error…) kept as details (issue 28).
 */
export function keychainFailureWords(failure: KeychainFailure | undefined, what: string, reason: string | undefined, platform: NodeJS.Platform = process.platform): string {
  const need = `so Steward could not read ${what}`;
  const start = platform === 'linux' ? 'Start or unlock your keychain (on Linux, GNOME Keyring, KWallet or another Secret Service running in your desktop session)' : 'Unlock your system keychain';
  switch (failure) {
    case 'unreachable':
      return withDetails(`The system keychain did not answer, ${need}. ${start} and run again.`, reason);
    case 'locked':
      return withDetails(`The system keychain is locked (or has no default keyring), ${need}. Unlock your login keyring and run again.`, reason);
    case 'timeout':
      return withDetails(`The system keychain did not answer in time, ${need}. If it shows an unlock prompt, answer it, then run again.`, reason);
    case 'other':
    case undefined:
      return withDetails(`The system keychain could not be read, ${need}. Check that it is set up and unlocked, then run again.`, reason);
  }
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
  /** What each reference is for (credentialUses), named when the keychain fails. */
  uses?: ReadonlyMap<CredentialRef, string>,
): Promise<Map<CredentialRef, string>> {
  const resolved = new Map<CredentialRef, string>();
  for (const ref of refs) {
    const name = credentialNameOf(ref);
    let value: string | undefined;
    try {
      value = await store.get(name);
    } catch (err) {
      // The keychain failed (not the name, not the value): what happened and what to do, its own reason as details.
      const what = `${uses?.get(ref) ?? 'the credential'} (${ref})`;
      if (err instanceof CredentialStoreError && err.failure === undefined) throw err;
      const failure = err instanceof CredentialStoreError ? err.failure : undefined;
      const reason = err instanceof CredentialStoreError ? err.reason : err instanceof Error ? err.message.split('\n')[0] : String(err);
      const words = keychainFailureWords(failure, what, reason);
      throw new CredentialStoreError(words, words, failure, reason);
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
