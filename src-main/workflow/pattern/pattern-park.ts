import { z } from 'zod';
import { MemberOutput } from '@shared/pattern/contracts';

/** What the workflow checkpoint keeps for a pattern node waiting for a person: the loop's own state. */
export const PatternPark = z
  .object({
    /** The pattern machine's persisted snapshot, resting in `waiting` (XState's getPersistedSnapshot). */
    snapshot: z.record(z.string(), z.unknown()),
    /** The iterations so far as the host saw them (for the preference pairs the node records at its end). */
    iterations: z.array(z.object({ step: z.number().int().min(0), iteration: z.number().int().min(1), prompt: z.string(), output: z.string() }).strict()).default([]),
    /** Where each replay script stood (replay-cursor.ts): a resumed loop takes the next answers. */
    replay: z.record(z.string(), z.number().int().min(0)).default({}),
    /**
     * Parked inside an iteration: a member agent waits for a person (its own checkpoint is the
     * waiting node's `checkpoint`). The members before it are done; on the answer it resumes and
     * the iteration goes on with the members after it.
     */
    member: z
      .object({ tag: z.string().min(1), outputs: z.array(MemberOutput), confidences: z.array(z.number().min(0).max(1).nullable()) })
      .strict()
      .optional(),
  })
  .strict();
export type PatternPark = z.infer<typeof PatternPark>;

