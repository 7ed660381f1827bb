import { AgentRoutes, type AgentRoute } from '@shared/contracts/routes';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { StewardDb } from './db';

/** A workflow's routes as stored (its agent's `routes`); a stored value the schema refuses reads as none (the host validates what a run starts with). */
export function routesOf(doc: Pick<HostedWorkflow, 'routes'>): AgentRoute[] {
  const parsed = AgentRoutes.safeParse((doc as { routes?: unknown }).routes ?? []);
  return parsed.success ? parsed.data : [];
}

/**
 * Stores the agent's routes in the workflow's own document (the app's copy, which `run.start`
 * sends): the next run offers them. Validated before anything is stored; an empty list stores none
 * (a reroute then stops the agent, as before routes existed).
 */
export async function setRoutes(db: StewardDb, workflowId: string, routes: readonly AgentRoute[], now = new Date()): Promise<AgentRoute[]> {
  const parsed = AgentRoutes.safeParse(routes);
  if (!parsed.success) throw new Error(`Routes not saved: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return db.transaction('rw', db.workflows, async () => {
    const row = await db.workflows.get(workflowId);
    if (!row) throw new Error(`There is no workflow “${workflowId}” in this browser.`);
    const { routes: _old, ...rest } = row.doc;
    const doc: HostedWorkflow = parsed.data.length > 0 ? { ...rest, routes: parsed.data } : rest;
    await db.workflows.update(workflowId, { doc, updated_at: now.toISOString() });
    return parsed.data;
  });
}
