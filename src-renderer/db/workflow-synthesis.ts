import { SynthesisSettings } from '@shared/contracts/synthesis';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { StewardDb } from './db';

/**
 * Stores the Synthesis group's settings in the workflow's own document (what `run.start` sends):
 * the next run speaks by them and records them on its start. Refused in words when invalid; read
 * and write share a transaction, so two quick saves never lose one another.
 */
export async function setSynthesis(db: StewardDb, workflowId: string, settings: SynthesisSettings, now = new Date()): Promise<SynthesisSettings> {
  return db.transaction('rw', db.workflows, async () => {
    const row = await db.workflows.get(workflowId);
    if (!row) throw new Error(`There is no workflow “${workflowId}” in this browser.`);
    const parsed = SynthesisSettings.safeParse(settings);
    if (!parsed.success) throw new Error(`Speech settings not saved: ${parsed.error.issues.map((i) => i.message).join('; ')}.`);
    const doc: HostedWorkflow = { ...row.doc, synthesis: parsed.data };
    await db.workflows.update(workflowId, { doc, updated_at: now.toISOString() });
    return parsed.data;
  });
}
