import type { ModelRole } from '@shared/contracts/model';
import type { AgentSpec } from '@shared/contracts/spec';
import type { ModelEndpoint } from '../providers/endpoint';
import { checkReachable } from '../providers/reachability';

/**
 * The roles a run will call: the teacher only when supervision is on (it decides, shadows or
 * reviews in every phase) or SCS uses it; the student except in phase 0, where the teacher alone
 * decides (and SCS does not use it).
 */
export function rolesTheRunCalls(spec: Pick<AgentSpec, 'supervision' | 'scs'>): ModelRole[] {
  const { supervision, scs } = spec;
  const scsUses = (role: ModelRole) => scs.mode !== 'off' && scs.model === role;
  const roles: ModelRole[] = [];
  if (!(supervision.enabled && supervision.phase === 0) || scsUses('student')) roles.push('student');
  if (supervision.enabled || scsUses('teacher')) roles.push('teacher');
  return roles;
}

/**
 * Before round 1: is every model the run will call answering at its address? The checks run side
 * by side, each address once; the first role's failure is the run's one message (student first).
 * The replay (`script`) models have no endpoint and are never checked.
 */
export async function unreachableModelMessage(
  spec: Pick<AgentSpec, 'supervision' | 'scs' | 'models'>,
  endpoints: Partial<Record<ModelRole, ModelEndpoint>>,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<string | undefined> {
  const checked = new Map<string, Promise<string | undefined>>();
  const results = rolesTheRunCalls(spec).map((role) => {
    const ref = spec.models[role];
    const endpoint = endpoints[role];
    if (ref.provider === 'script' || endpoint === undefined) return Promise.resolve(undefined);
    const key = `${ref.provider} ${endpoint.href}`;
    const known = checked.get(key);
    if (known) return known;
    const pending = checkReachable(ref, role, endpoint, options).then((r) => (r.ok ? undefined : r.message));
    checked.set(key, pending);
    return pending;
  });
  return (await Promise.all(results)).find((message) => message !== undefined);
}
