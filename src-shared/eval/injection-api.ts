import { z } from 'zod';
import { InjectionEvalReport } from './injection-report';

/**
 * The app's injection check (issue 31): `steward eval injection` run from the Learning screen's
 * evaluation evidence (`eval.injection.start`), followed with `eval.injection.status` — its progress
 * while it runs, then the latest report kept in the data folder (also the CLI's).
 */
export const InjectionCheckStatus = z
  .object({
    /** idle: not running (`report` is the latest kept, absent when never run here); failed: the last run broke (`message`). */
    state: z.enum(['idle', 'running', 'failed']),
    /** Cases done of all, while it runs. */
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    report: InjectionEvalReport.optional(),
    message: z.string().optional(),
  })
  .strict();
export type InjectionCheckStatus = z.infer<typeof InjectionCheckStatus>;

export const InjectionCheckStart = z.discriminatedUnion('started', [
  z.object({ started: z.literal(true), total: z.number().int().positive() }).strict(),
  /** Already running: follow it with eval.injection.status. */
  z.object({ started: z.literal(false), message: z.string() }).strict(),
]);
export type InjectionCheckStart = z.infer<typeof InjectionCheckStart>;
