import { ModelScript, type ModelScriptInput } from '@shared/contracts/script';
import type { AgentSpec } from '@shared/contracts/spec';
import { checkProviderAllowed, LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { substituteVars } from '@shared/util/substitute';
import type { CredentialStore } from '../credentials/credential-store';
import { collectCredentialRefs, resolveCredentials } from '../credentials/resolve-credentials';
import type { SecretRegistry } from '../credentials/secret-registry';
import type { ModelProvider } from '../providers/provider';
import { resolveProvider } from '../providers/resolve-provider';

export interface PreparedRun {
  instructions: string;
  task: string;
  /** The replay script with variables substituted. */
  script?: ModelScript;
  providers: { student: ModelProvider; teacher: ModelProvider };
  /** `keychain:NAME` → value, for MCP server env (every value is registered with the run's secrets). */
  credentials: Map<string, string>;
}

/**
 * Everything a run needs before its first round, checked in the order that leaks least: variables,
 * the privacy policy (a disallowed host's key is never even read), credentials, then providers.
 * Throws with a message a person can act on.
 */
export async function prepareRun(input: {
  spec: AgentSpec;
  vars: Record<string, string>;
  script?: ModelScriptInput;
  privacy?: PrivacyPolicy;
  ollamaHost?: string;
  credentialStore?: CredentialStore;
  secrets: SecretRegistry;
  scriptStart?: { student: number; teacher: number };
  providers?: { student: ModelProvider; teacher: ModelProvider };
}): Promise<PreparedRun> {
  const { spec, vars } = input;
  const instructions = substituteVars(spec.instructions, vars, 'instructions');
  const task = substituteVars(spec.task, vars, 'task');
  const script = input.script ? substituteVars(ModelScript.parse(input.script), vars, 'script') : undefined;
  for (const role of ['student', 'teacher'] as const) {
    const allowed = checkProviderAllowed(spec.models[role], role, input.privacy ?? LOCAL_ONLY, input.ollamaHost);
    if (!allowed.ok) throw new Error(allowed.message);
  }
  const refs = collectCredentialRefs(spec);
  let credentials = new Map<string, string>();
  if (refs.length > 0) {
    if (!input.credentialStore) throw new Error('this spec uses keychain credentials, but no credential store is available');
    credentials = await resolveCredentials(refs, input.credentialStore, input.secrets);
  }
  const deps = { script, ollamaHost: input.ollamaHost, apiKeys: credentials, scriptStart: input.scriptStart };
  const providers = input.providers ?? {
    student: resolveProvider(spec.models.student, 'student', deps),
    teacher: resolveProvider(spec.models.teacher, 'teacher', deps),
  };
  return { instructions, task, script, providers, credentials };
}
