import { z } from 'zod';
import { modelLabel, type ModelRef, type ModelRole } from '../contracts/model';
import { checkModelUrl, isLoopbackHostname, normalizeOllamaHost } from '../contracts/model-url';

/**
 * The workspace's privacy policy (DESIGN.md §4): local providers are always allowed; a provider
 * on another machine needs its host listed. Local-only by default.
 */
export const PrivacyPolicy = z
  .object({
    /** Hosts (`api.example.com` or `host:port`) a run may send data to. Empty = local only. */
    allowed_hosts: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type PrivacyPolicy = z.infer<typeof PrivacyPolicy>;
export const LOCAL_ONLY: PrivacyPolicy = { allowed_hosts: [] };

/** `invalid`: the address is refused (what is wrong with it); such a model is never called. */
export type Locality = { local: true } | { local: false; host: string; invalid?: string };

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** Where a model's prompts go: this machine, or another host. */
export function localityOf(ref: ModelRef, ollamaDefault: string = DEFAULT_OLLAMA_HOST): Locality {
  switch (ref.provider) {
    case 'script':
      return { local: true };
    case 'ollama':
      return hostLocality(ref.host ?? normalizeOllamaHost(ollamaDefault));
    case 'openai_compatible':
      return hostLocality(ref.base_url);
  }
}

/**
 * Read by the strict pattern of model-url.ts; the host reads the same from the URL object it sends
 * the request with (src-main/providers/endpoint.ts), and a property test holds the two together.
 */
function hostLocality(url: string): Locality {
  const check = checkModelUrl(url);
  if (!check.ok) return { local: false, host: '(an invalid address)', invalid: check.problem };
  return isLoopbackHostname(check.parts.hostname) ? { local: true } : { local: false, host: check.parts.host };
}

/** Is `host` (`name[:port]`, lowercase) listed, by itself or with its port? */
export function isHostAllowed(policy: PrivacyPolicy, host: string): boolean {
  const hostName = host.replace(/:\d+$/, '');
  return policy.allowed_hosts.some((h) => h.toLowerCase() === host || h.toLowerCase() === hostName);
}

/** The refusal when a model would send a run's data to a host the policy does not list. */
export function disallowedHostMessage(ref: ModelRef, role: ModelRole, host: string, policy: PrivacyPolicy): string {
  return `the ${role} model ${modelLabel(ref)} would send this run's data to ${host}, which the workspace privacy policy does not allow (local only${policy.allowed_hosts.length ? `, plus ${policy.allowed_hosts.join(', ')}` : ''}); allow that host in the workspace settings or pick a local model`;
}

/** The refusal for an address no request is ever made to. */
export function invalidAddressMessage(ref: ModelRef, role: ModelRole, problem: string): string {
  return `the ${role} model ${modelLabel(ref)} is not called: its address ${problem}`;
}

export type PrivacyCheck = { ok: true } | { ok: false; message: string };

/** The host calls this when it resolves a provider: a disallowed one is refused, with the fix. */
export function checkProviderAllowed(ref: ModelRef, role: ModelRole, policy: PrivacyPolicy, ollamaDefault?: string): PrivacyCheck {
  const where = localityOf(ref, ollamaDefault);
  if (where.local) return { ok: true };
  if (where.invalid !== undefined) return { ok: false, message: invalidAddressMessage(ref, role, where.invalid) };
  if (isHostAllowed(policy, where.host)) return { ok: true };
  return { ok: false, message: disallowedHostMessage(ref, role, where.host, policy) };
}

/** What each role's model is shown during a run: recorded on every run, shown in the panel. */
export const EXPOSED_DATA = {
  student: ['instructions', 'task', 'offered tools', 'canonical history', 'tool results'],
  teacher: ['instructions', 'task', 'offered tools', 'canonical history', 'tool results', "the student's candidates", 'validation results'],
} as const satisfies Record<ModelRole, readonly string[]>;

export const DataExposure = z
  .object({
    role: z.enum(['student', 'teacher']),
    model: z.string(),
    local: z.boolean(),
    host: z.string().optional(),
    data: z.array(z.string()),
  })
  .strict();
export type DataExposure = z.infer<typeof DataExposure>;

export function describeExposure(models: Record<ModelRole, ModelRef>, ollamaDefault?: string): DataExposure[] {
  return (['student', 'teacher'] as const).map((role) => {
    const where = localityOf(models[role], ollamaDefault);
    return {
      role,
      model: modelLabel(models[role]),
      local: where.local,
      ...(where.local ? {} : { host: where.host }),
      data: [...EXPOSED_DATA[role]],
    };
  });
}
