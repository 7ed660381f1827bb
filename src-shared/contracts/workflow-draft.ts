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

/** JSON fields with typed text a draft keeps at most. */
export const MAX_UNPARSED_FIELDS = 50;

/**
 * Text a person typed into one of the editor's JSON fields that the document does not hold yet (it
 * does not parse, or is not the kind of value the field takes): kept beside the draft's document, so
 * a reload then Restore brings back exactly what was typed, not the field's last valid value.
 */
export const UnparsedText = z
  .object({
    /** The node the field belongs to (`workflow` for the workflow's own fields). */
    scope: z.string().min(1).max(200),
    /** Which of its fields (the editor's name for it). */
    field: z.string().min(1).max(200),
    label: z.string().max(200),
    text: z.string().max(MAX_DRAFT_CHARS),
    /** Why the text is not taken yet, as the field says it. */
    error: z.string().max(2_000),
    /** The field's value (as JSON) the text was typed over: the document holds this one. */
    base: z.string().max(MAX_DRAFT_CHARS),
  })
  .strict();
export type UnparsedText = z.infer<typeof UnparsedText>;

export const UnparsedTexts = z
  .array(UnparsedText)
  .max(MAX_UNPARSED_FIELDS)
  .superRefine((list, ctx) => {
    if (JSON.stringify(list).length > MAX_DRAFT_CHARS) ctx.addIssue({ code: 'custom', message: `a draft's typed texts are at most ${MAX_DRAFT_CHARS} characters of JSON` });
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
    /** The JSON fields whose typed text the document does not hold yet (absent: none). */
    unparsed: UnparsedTexts.optional(),
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
    params: DraftKey.extend({ document: DraftDocument, base_updated_at: z.string().max(100).optional(), unparsed: UnparsedTexts.optional() }).strict(),
    result: z.object({ saved_at: z.string() }).strict(),
  },
  /** Forgets the draft (the person saved or discarded it). */
  'drafts.discard': { params: DraftKey, result: z.object({ discarded: z.boolean() }).strict() },
} as const;
