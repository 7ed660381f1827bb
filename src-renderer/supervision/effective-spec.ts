import type { AgentSpec } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { RunOverrides } from '@shared/contracts/host-api';
import type { OfferedToolInfo } from '@shared/policy/validate-config';
import { expandHostedWorkflow, type RegistryView } from '@shared/policy/expand-workflow';
import type { RegistryRow } from '../db/db';
import { serverIdentity } from '../db/registry';

/**
 * The spec a run would get from these overrides and the host's registry (what the host does with
 * them), so Validate checks exactly what Run and Dry-run would start.
 */
export function effectiveSpec(doc: HostedWorkflow, overrides: RunOverrides, registry: RegistryView): { ok: true; spec: AgentSpec } | { ok: false; message: string } {
  const withOverrides: HostedWorkflow = {
    ...doc,
    supervision: overrides.supervision ?? { ...doc.supervision, enabled: overrides.supervision_enabled ?? doc.supervision.enabled },
    models: { student: overrides.student ?? doc.models.student, teacher: overrides.teacher ?? doc.models.teacher },
  };
  const expanded = expandHostedWorkflow(withOverrides, registry);
  return expanded.ok ? expanded : { ok: false, message: expanded.message };
}

/**
 * The tools the workflow's servers offer, as far as the registry's last inspection knows, with the
 * effect a run would use (the user's metadata wins). Undefined until every server was inspected:
 * Validate then skips the checks that need the list rather than guess.
 */
export function offeredToolsFor(doc: Pick<HostedWorkflow, 'servers'>, rows: readonly RegistryRow[]): OfferedToolInfo[] | undefined {
  const tools: OfferedToolInfo[] = [];
  for (const server of doc.servers) {
    const identity = serverIdentity(server);
    const inspected = rows.filter((r) => r.server === identity && r.inspected);
    if (inspected.length === 0) return undefined;
    for (const row of inspected) {
      if (server.tools && !server.tools.includes(row.tool)) continue;
      const info = row.inspected;
      if (!info) continue;
      tools.push(row.user ? { name: row.tool, effect: row.user.effect, effect_source: 'user' } : { name: row.tool, effect: info.effect.effect, effect_source: info.effect_source });
    }
  }
  return tools;
}
