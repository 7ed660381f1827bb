import { LimitsSpec } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { StewardDb } from './db';

const DEFAULTS: LimitsSpec = LimitsSpec.parse({});

/** A workflow's runtime limits (its agent node's `limits`); a stored value the schema refuses reads as the defaults here (the host still validates what a run starts with). */
export function runtimeLimitsOf(doc: Pick<HostedWorkflow, 'limits'>): LimitsSpec {
  const parsed = LimitsSpec.safeParse((doc as { limits?: unknown }).limits ?? {});
  return parsed.success ? parsed.data : DEFAULTS;
}

/**
 * Stores the Runtime group's limits in the workflow's own document (what `run.start` sends): the
 * next run uses and records them. Refused in words when out of range; read and write share a
 * transaction, so two quick saves never lose one another.
 */
export async function setRuntimeLimits(db: StewardDb, workflowId: string, limits: LimitsSpec, now = new Date()): Promise<LimitsSpec> {
  return db.transaction('rw', db.workflows, async () => {
    const row = await db.workflows.get(workflowId);
    if (!row) throw new Error(`There is no workflow “${workflowId}” in this browser.`);
    const parsed = LimitsSpec.safeParse(limits);
    if (!parsed.success) throw new Error(`Runtime limits not saved: ${parsed.error.issues.map((i) => i.message).join('; ')}.`);
    const doc: HostedWorkflow = { ...row.doc, limits: parsed.data };
    await db.workflows.update(workflowId, { doc, updated_at: now.toISOString() });
    return parsed.data;
  });
}
