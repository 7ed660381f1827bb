import { z } from 'zod';
import { Decision } from './decision';

/**
 * Canonical history: only selected, committed decisions, plus what executing them returned.
 * This is what the next prompt is built from (I1).
 */
export const HistoryEntry = z
  .object({
    index: z.number().int().nonnegative(),
    round: z.number().int().nonnegative(),
    decision: Decision,
    /** Tool result text or delivery note, filled after execution/delivery. */
    result: z.string().optional(),
    result_is_error: z.boolean().optional(),
  })
  .strict();
export type HistoryEntry = z.infer<typeof HistoryEntry>;
