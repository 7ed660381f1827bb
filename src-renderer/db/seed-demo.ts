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
 * The host's demo workspace: demo workflows the page does not have yet are added (first launch, or
 * a newer version of Steward that ships more); one it already has is never touched, so the user's
 * changes stay. The check and the write share one transaction, so two concurrent seeds (a quick
 * reconnect) add nothing twice.
 */
export async function seedDemoWorkflows(
  db: StewardDb,
  fetchDemo: () => Promise<{ workflows: WorkflowDocument[] }>,
): Promise<number> {
  const { workflows } = await fetchDemo();
  return db.transaction('rw', db.workflows, async () => {
    const have = new Set(await db.workflows.toCollection().primaryKeys());
    const missing = workflows.filter((doc) => !have.has(doc.id));
    if (missing.length > 0) await db.workflows.bulkAdd(missing.map((doc) => workflowRow(doc, 'demo')));
    return missing.length;
  });
}
