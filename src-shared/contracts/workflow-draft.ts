import { z } from 'zod';
import { HostedWorkflowGraph } from '../workflow/hosted-graph';
import { RegistryId } from './host-registry';

/**
 * A workflow the person is editing and has not saved (issue 22): kept by the host in its data
 * folder, one per stored workflow (and one for a new, never-saved workflow), so a reload, a page
 * crash or a host restart loses no typing. A draft may be invalid — that is what editing is — but
 * it always has the document's shape: only value constraints (an empty name, an id with a space, a
 * node list emptied) may fail, never the structure the editor relies on.
 */

/** The issue codes that say a value is out of bounds, not that the document is shaped otherwise. */
const VALUE_ONLY = new Set(['too_small', 'too_big', 'invalid_format', 'not_multiple_of', 'custom']);

function valueOnly(issue: z.core.$ZodIssue): boolean {
  // A union holds when one of its branches fails on values only.
  if (issue.code === 'invalid_union') return issue.errors.some((branch) => branch.length > 0 && branch.every(valueOnly));
  return VALUE_ONLY.has(issue.code);
}

/** The document as a draft: valid, or a workflow document whose only faults are its values. */
export function draftShaped(value: unknown): value is HostedWorkflowGraph {
  const parsed = HostedWorkflowGraph.safeParse(value);
  return parsed.success || parsed.error.issues.every(valueOnly);
}

/** Characters a draft's JSON may take (a WebSocket message stays under 1 MB). */
export const MAX_DRAFT_CHARS = 500_000;

export const DraftDocument = z
  .record(z.string(), z.unknown())
  .superRefine((doc, ctx) => {
    if (JSON.stringify(doc).length > MAX_DRAFT_CHARS) ctx.addIssue({ code: 'custom', message: `a draft is at most ${MAX_DRAFT_CHARS} characters of JSON` });
    else if (!draftShaped(doc)) ctx.addIssue({ code: 'custom', message: 'not a workflow document (a draft may have invalid values, not another shape)' });
  });

/** Which workflow a draft belongs to: the id it is stored under, or none for a new workflow. */
export const DraftKey = z.object({ workflow_id: RegistryId.optional() }).strict();
export type DraftKey = z.infer<typeof DraftKey>;

export const WorkflowDraft = z
  .object({
    workflow_id: RegistryId.optional(),
    document: DraftDocument,
    /** The stored version the person was editing (workflows.get updated_at): saving a restored draft over a newer one is a conflict. */
    base_updated_at: z.string().max(100).optional(),
    /** When the host kept it (ISO time). */
    saved_at: z.string().max(100),
  })
  .strict();
export type WorkflowDraft = z.infer<typeof WorkflowDraft>;

export const DRAFT_METHODS = {
  /** The draft kept for this workflow (absent: none). */
  'drafts.get': { params: DraftKey, result: z.object({ draft: WorkflowDraft.optional() }).strict() },
  /** Keeps the person's unsaved document for this workflow, replacing the one kept before. */
  'drafts.put': {
    params: DraftKey.extend({ document: DraftDocument, base_updated_at: z.string().max(100).optional() }).strict(),
    result: z.object({ saved_at: z.string() }).strict(),
  },
  /** Forgets the draft (the person saved or discarded it). */
  'drafts.discard': { params: DraftKey, result: z.object({ discarded: z.boolean() }).strict() },
} as const;
