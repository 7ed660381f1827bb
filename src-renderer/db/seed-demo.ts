import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { StewardDb, WorkflowRow } from './db';

export function workflowRow(doc: HostedWorkflow, source: WorkflowRow['source'], now = new Date()): WorkflowRow {
  return {
    id: doc.id,
    name: doc.name,
    doc,
    supervision_enabled: doc.supervision.enabled,
    source,
    updated_at: now.toISOString(),
  };
}

/**
 * The host's demo workspace: demo workflows the page does not have yet are added (first launch, or
 * a newer version of Steward that ships more); one it already has is never touched, so the user's
 * changes stay — except a demo still stored in the older form (inline servers and folder, which the
 * host no longer runs): its document takes the host's, its settings stay. The check and the write
 * share one transaction, so two concurrent seeds (a quick reconnect) add nothing twice.
 */
export async function seedDemoWorkflows(db: StewardDb, fetchDemo: () => Promise<{ workflows: HostedWorkflow[] }>): Promise<number> {
  const { workflows } = await fetchDemo();
  return db.transaction('rw', db.workflows, async () => {
    const have = new Map((await db.workflows.toArray()).map((r) => [r.id, r]));
    const missing = workflows.filter((doc) => !have.has(doc.id));
    if (missing.length > 0) await db.workflows.bulkAdd(missing.map((doc) => workflowRow(doc, 'demo')));
    for (const doc of workflows) {
      const row = have.get(doc.id);
      if (row?.source === 'demo' && !HostedWorkflow.safeParse(row.doc).success) await db.workflows.update(doc.id, { doc });
    }
    return missing.length;
  });
}
