import type { WorkflowDocument } from '@shared/contracts/spec';
import type { StewardDb, WorkflowRow } from './db';

export function workflowRow(doc: WorkflowDocument, source: WorkflowRow['source'], now = new Date()): WorkflowRow {
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
 * First launch: an empty workflows table gets the host's demo workspace. The emptiness check and
 * the write share one transaction, so two concurrent seeds (a quick reconnect) add nothing twice
 * and never overwrite a workflow the user already changed.
 */
export async function seedDemoIfEmpty(
  db: StewardDb,
  fetchDemo: () => Promise<{ workflows: WorkflowDocument[] }>,
): Promise<number> {
  if ((await db.workflows.count()) > 0) return 0;
  const { workflows } = await fetchDemo();
  return db.transaction('rw', db.workflows, async () => {
    if ((await db.workflows.count()) > 0) return 0;
    await db.workflows.bulkAdd(workflows.map((doc) => workflowRow(doc, 'demo')));
    return workflows.length;
  });
}
