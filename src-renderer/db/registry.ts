import type { InspectedTool } from '@shared/contracts/host-api';
import type { McpServerSpec, WorkflowDocument } from '@shared/contracts/spec';
import { ToolEffect } from '@shared/contracts/tool-effect';
import type { RegistryRow, StewardDb } from './db';

/**
 * The app's MCP registry. Metadata is kept per server *identity* (its npm package, or its
 * command), not per workflow, so describing `write_file` once covers every workflow using that server.
 */
export function serverIdentity(server: Pick<McpServerSpec, 'package' | 'command' | 'id'>): string {
  return server.package ?? server.command ?? server.id;
}

/**
 * `tool_effects` for a run: the user's metadata for every server the workflow uses, keyed
 * `serverId/tool` as the spec format has it. Shipped defaults are the host's; only what the user
 * set travels (it is authoritative over both the shipped defaults and the spec's own).
 */
export function toolEffectsFor(doc: Pick<WorkflowDocument, 'servers'>, rows: readonly RegistryRow[]): Record<string, ToolEffect> {
  const effects: Record<string, ToolEffect> = {};
  for (const server of doc.servers) {
    const identity = serverIdentity(server);
    for (const row of rows) {
      if (row.server === identity && row.user) effects[`${server.id}/${row.tool}`] = row.user;
    }
  }
  return effects;
}

export async function setUserEffect(db: StewardDb, server: string, tool: string, effect: ToolEffect | undefined, now = new Date()): Promise<void> {
  const checked = effect === undefined ? undefined : ToolEffect.parse(effect);
  await db.transaction('rw', db.registry, async () => {
    const row = await db.registry.get([server, tool]);
    const next: RegistryRow = { ...(row ?? { server, tool }), updated_at: now.toISOString() };
    if (checked) next.user = checked;
    else delete next.user;
    await db.registry.put(next);
  });
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
