import type { InspectedTool } from '@shared/contracts/host-api';
import type { HostedServerRef } from '@shared/contracts/hosted-workflow';
import type { EffectOverride } from '@shared/contracts/host-registry';
import type { RegistryRow, StewardDb } from './db';

/**
 * The app's MCP registry. Servers are registered on the host and workflows name them by id, so
 * metadata kept per registered server covers every workflow using it. The page keeps only the
 * last inspection (a harmless cache); the user's effect metadata is the host's (effects.list/set).
 */
export function serverIdentity(server: Pick<HostedServerRef, 'server'>): string {
  return server.server;
}

/**
 * The cached inspections with the host's overrides as `user` (anything the page stored there
 * itself is ignored): one row per tool either one knows.
 */
export function withHostEffects(rows: readonly RegistryRow[], overrides: readonly EffectOverride[]): RegistryRow[] {
  const merged = rows.map((r) => {
    const { user: _stale, ...rest } = r;
    const own = overrides.find((o) => o.server === r.server && o.tool === r.tool);
    return own ? { ...rest, user: own.effect } : rest;
  });
  for (const o of overrides) {
    if (!merged.some((r) => r.server === o.server && r.tool === o.tool)) merged.push({ server: o.server, tool: o.tool, user: o.effect, updated_at: '' });
  }
  return merged;
}

/** Keeps what an inspection reported next to (never over) the user's own metadata. */
export async function storeInspection(db: StewardDb, server: string, tools: readonly InspectedTool[], now = new Date()): Promise<void> {
  await db.transaction('rw', db.registry, async () => {
    const existing = await db.registry.where('server').equals(server).toArray();
    const byTool = new Map(existing.map((r) => [r.tool, r]));
    const at = now.toISOString();
    await db.registry.bulkPut(tools.map((t) => ({ ...(byTool.get(t.name) ?? { server, tool: t.name }), inspected: t, inspected_at: at, updated_at: at })));
  });
}
