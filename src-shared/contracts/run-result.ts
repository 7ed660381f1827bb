import { z } from 'zod';
import { HistoryEntry } from './history';
import { RoundRecord, ToolExecution } from './round';
import { RunStatus, TrimmedText } from './events';
import { Intervention } from './intervention';
import { ProfileVersionRef } from './profiles';
import { ScsRecord } from '../scs/contracts';
import { TakenRoute } from './routes';
import { CostJson } from '../accounting/cost-words';

/** What a finished run reports (the CLI's `--json` object). */
export const RunResult = z
  .object({
    run_id: z.string(),
    status: RunStatus.exclude(['running']),
    /** Set while the run waits for a person (status `waiting`). */
    intervention: Intervention.optional(),
    /** The profile versions the run used (profile kind → id, name, version). */
    profiles: z.record(z.string(), ProfileVersionRef).default({}),
    dry_run: z.boolean().default(false),
    /** SCS, when the run used it: mode, activation reason, the plan, the last decision, status. */
    scs: ScsRecord.optional(),
    output: z.string().optional(),
    message: z.string().optional(),
    /** The declared route a reroute took, and who chose it. */
    route: TakenRoute.optional(),
    /** The canonical history: selected decisions only. */
    history: z.array(HistoryEntry),
    rounds: z.array(RoundRecord),
    executions: z.array(ToolExecution),
    models: z.object({ student: z.string(), teacher: z.string() }).strict(),
    event_count: z.number().int().nonnegative(),
    /** Texts a model said that this result carries trimmed (output, candidates…), with their original sizes. */
    trimmed: z.array(TrimmedText).optional(),
    /** What supervision cost (issue 31): `steward run --json` adds it, priced with the data folder's price list. */
    cost: CostJson.optional(),
  })
  .strict();
export type RunResult = z.infer<typeof RunResult>;
