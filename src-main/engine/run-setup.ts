import { ModelScript, type ModelScriptInput } from '@shared/contracts/script';
import type { AgentSpec } from '@shared/contracts/spec';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { substituteVars } from '@shared/util/substitute';
import type { CredentialStore } from '../credentials/credential-store';
import { collectCredentialRefs, credentialUses, resolveCredentials } from '../credentials/resolve-credentials';
import type { SecretRegistry } from '../credentials/secret-registry';
import { allowedEndpoint, type ModelEndpoint } from '../providers/endpoint';
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
  /** Where each non-replay model's requests go, as the privacy check allowed them. */
  endpoints: Partial<Record<'student' | 'teacher', ModelEndpoint>>;
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
  /** Task and instructions are final (a workflow node substituted them before its inputs went in). */
  textsFinal?: boolean;
}): Promise<PreparedRun> {
  const { spec, vars } = input;
  const instructions = input.textsFinal ? spec.instructions : substituteVars(spec.instructions, vars, 'instructions');
  const task = input.textsFinal ? spec.task : substituteVars(spec.task, vars, 'task');
  const script = input.script ? substituteVars(ModelScript.parse(input.script), vars, 'script') : undefined;
  // Decided on the URL each provider will send to (built once, here), before any key is read.
  const privacy = input.privacy ?? LOCAL_ONLY;
  const endpoints: Partial<Record<'student' | 'teacher', ModelEndpoint>> = {};
  for (const role of ['student', 'teacher'] as const) {
    const ref = spec.models[role];
    if (ref.provider === 'script') continue;
    const allowed = allowedEndpoint(ref, role, privacy, input.ollamaHost);
    if (!allowed.ok) throw new Error(allowed.message);
    endpoints[role] = allowed.endpoint;
  }
  const refs = collectCredentialRefs(spec);
  let credentials = new Map<string, string>();
  if (refs.length > 0) {
    if (!input.credentialStore) throw new Error('this spec uses keychain credentials, but no credential store is available');
    credentials = await resolveCredentials(refs, input.credentialStore, input.secrets, credentialUses(spec));
  }
  const deps = { script, ollamaHost: input.ollamaHost, apiKeys: credentials, scriptStart: input.scriptStart, privacy, endpoints };
  const providers = input.providers ?? {
    student: resolveProvider(spec.models.student, 'student', deps),
    teacher: resolveProvider(spec.models.teacher, 'teacher', deps),
  };
  return { instructions, task, script, providers, credentials, endpoints };
}
