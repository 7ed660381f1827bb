import { z } from 'zod';
import { HistoryEntry } from './history';
import { RoundRecord, ToolExecution } from './round';
import { RunStatus } from './events';

/** What a finished run reports (the CLI's `--json` object). */
export const RunResult = z
  .object({
    run_id: z.string(),
    status: RunStatus.exclude(['running']),
    output: z.string().optional(),
    message: z.string().optional(),
    /** The canonical history: selected decisions only. */
    history: z.array(HistoryEntry),
    rounds: z.array(RoundRecord),
    executions: z.array(ToolExecution),
    models: z.object({ student: z.string(), teacher: z.string() }).strict(),
    event_count: z.number().int().nonnegative(),
  })
  .strict();
export type RunResult = z.infer<typeof RunResult>;
