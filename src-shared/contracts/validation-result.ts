import { z } from 'zod';

/** The outcome of deterministic validation (DESIGN.md §3 step 2), as recorded in rounds and events. */
export const VALIDATION_CODES = [
  'unparseable',
  'schema',
  'parallel_tool_calls',
  'tool_not_offered',
  'arguments_invalid',
  'phase_constraint',
  /** A reroute that names no route of the node's (validated like a tool name). */
  'route_not_offered',
] as const;
export const ValidationCode = z.enum(VALIDATION_CODES);
export type ValidationCode = z.infer<typeof ValidationCode>;

export const ValidationIssue = z
  .object({ code: ValidationCode, message: z.string(), path: z.string().optional() })
  .strict();
export type ValidationIssue = z.infer<typeof ValidationIssue>;

export const ValidationResult = z
  .object({ ok: z.boolean(), issues: z.array(ValidationIssue), schema_hash: z.string().optional() })
  .strict();
export type ValidationResult = z.infer<typeof ValidationResult>;
