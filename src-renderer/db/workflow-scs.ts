import { ScsSettings } from '@shared/scs/contracts';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { StewardDb } from './db';

const DEFAULTS: ScsSettings = ScsSettings.parse({});

/**
 * A workflow's SCS settings (its agent node's `scs`). A document stored before SCS existed has
 * none: that is the spec's default, off. A stored value the schema refuses also reads as the
 * default here; the host still validates the document a run is started with.
 */
export function scsSettingsOf(doc: Pick<HostedWorkflow, 'scs'>): ScsSettings {
  const stored: unknown = (doc as { scs?: unknown }).scs;
  const parsed = ScsSettings.safeParse(stored ?? {});
  return parsed.success ? parsed.data : DEFAULTS;
}

/**
 * Changes SCS settings in the workflow's own document (the app's copy, which `run.start` sends as
 * `workflow`): the next run uses them. Validated before anything is stored; read and write share a
 * transaction, so two quick changes never lose one another.
 */
export async function setScsSettings(db: StewardDb, workflowId: string, changes: Partial<ScsSettings>, now = new Date()): Promise<ScsSettings> {
  return db.transaction('rw', db.workflows, async () => {
    const row = await db.workflows.get(workflowId);
    if (!row) throw new Error(`There is no workflow “${workflowId}” in this browser.`);
    const parsed = ScsSettings.safeParse({ ...scsSettingsOf(row.doc), ...changes });
    if (!parsed.success) throw new Error(`SCS settings not saved: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'scs'}: ${i.message}`).join('; ')}`);
    const doc: HostedWorkflow = { ...row.doc, scs: parsed.data };
    await db.workflows.update(workflowId, { doc, updated_at: now.toISOString() });
    return parsed.data;
  });
}
