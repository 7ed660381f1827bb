import { z } from 'zod';
import type { RunRow } from '../history/run-summary';
import type { PriceList } from './price-list';
import { runCost, sumTotals, type UsageTotals } from './run-cost';

/** A total as the host API carries it (run-cost.ts: UsageTotals). */
export const UsageTotalsSchema = z
  .object({
    calls: z.number().int().nonnegative(),
    recorded_calls: z.number().int().nonnegative(),
    counted_calls: z.number().int().nonnegative(),
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    usd: z.number().nonnegative(),
    latency_ms: z.number().int().nonnegative(),
    complete: z.boolean(),
    unpriced_models: z.array(z.string()),
  })
  .strict() satisfies z.ZodType<UsageTotals>;

/** What supervision cost one workflow over a period (issue 31): its runs' supervision totals added up. */
export const WorkflowCost = z
  .object({
    workflow_id: z.string(),
    name: z.string(),
    runs: z.number().int().nonnegative(),
    supervision: UsageTotalsSchema,
    person_waited_ms: z.number().int().nonnegative(),
    interventions: z.number().int().nonnegative(),
  })
  .strict();
export type WorkflowCost = z.infer<typeof WorkflowCost>;

/** The runs' supervision cost per workflow, most expensive first (then by name). Pure. */
export function workflowCosts(rows: readonly RunRow[], prices: PriceList): WorkflowCost[] {
  const by = new Map<string, { name: string; runs: number; parts: UsageTotals[]; waited: number; interventions: number }>();
  for (const row of rows) {
    const key = row.workflow_id || row.spec_name;
    const entry = by.get(key) ?? { name: row.spec_name, runs: 0, parts: [], waited: 0, interventions: 0 };
    by.set(key, entry);
    entry.runs += 1;
    if (!row.usage) continue;
    const cost = runCost(row.usage, prices);
    entry.parts.push(cost.supervision);
    entry.waited += cost.person.waited_ms;
    entry.interventions += Object.values(cost.interventions).reduce((a, b) => a + b, 0);
  }
  return [...by.entries()]
    .map(([workflow_id, e]) => ({ workflow_id, name: e.name, runs: e.runs, supervision: sumTotals(e.parts), person_waited_ms: Math.round(e.waited), interventions: e.interventions }))
    .sort((a, b) => b.supervision.usd - a.supervision.usd || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
