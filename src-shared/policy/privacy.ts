import { z } from 'zod';
import { hostOf, modelLabel, type ModelRef, type ModelRole } from '../contracts/model';

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

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/;

export type Locality = { local: true } | { local: false; host: string };

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** Where a model's prompts go: this machine, or another host. */
export function localityOf(ref: ModelRef, ollamaDefault: string = DEFAULT_OLLAMA_HOST): Locality {
  switch (ref.provider) {
    case 'script':
      return { local: true };
    case 'ollama':
      return hostLocality(ref.host ?? ollamaDefault);
    case 'openai_compatible':
      return hostLocality(ref.base_url);
  }
}

function hostLocality(url: string): Locality {
  const host = hostOf(url);
  return LOOPBACK.test(host) ? { local: true } : { local: false, host };
}

export type PrivacyCheck = { ok: true } | { ok: false; message: string };

/** The host calls this when it resolves a provider: a disallowed one is refused, with the fix. */
export function checkProviderAllowed(ref: ModelRef, role: ModelRole, policy: PrivacyPolicy, ollamaDefault?: string): PrivacyCheck {
  const where = localityOf(ref, ollamaDefault);
  if (where.local) return { ok: true };
  const hostName = where.host.replace(/:\d+$/, '');
  if (policy.allowed_hosts.some((h) => h.toLowerCase() === where.host || h.toLowerCase() === hostName)) return { ok: true };
  return {
    ok: false,
    message: `the ${role} model ${modelLabel(ref)} would send this run's data to ${where.host}, which the workspace privacy policy does not allow (local only${policy.allowed_hosts.length ? `, plus ${policy.allowed_hosts.join(', ')}` : ''}); allow that host in the workspace settings or pick a local model`,
  };
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
