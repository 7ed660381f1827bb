import type { HostParamsParsed, HostResult } from '@shared/contracts/host-api';
import { workflowCosts } from '@shared/accounting/workflow-cost';
import type { RunRow } from '@shared/history/run-summary';
import type { EventJournal } from '../events/event-journal';
import type { PriceListStore } from './price-list-store';

/** Runs one `costs.by_workflow` adds up at most (the newest first): a period's answer stays quick. */
export const MAX_COSTED_RUNS = 20_000;
const PAGE = 1_000;

export interface CostDeps {
  journal: Pick<EventJournal, 'runsPage'>;
  prices: PriceListStore;
}

/** The host's price list and the per-workflow totals (issue 31). */
export function costHandlers(deps: CostDeps) {
  return {
    'prices.get': async (): Promise<HostResult<'prices.get'>> => deps.prices.read(),
    'prices.save': async ({ prices }: HostParamsParsed<'prices.save'>): Promise<HostResult<'prices.save'>> => deps.prices.save(prices),
    'costs.by_workflow': async ({ since }: HostParamsParsed<'costs.by_workflow'>): Promise<HostResult<'costs.by_workflow'>> => {
      const rows = runsSince(deps.journal, since);
      return { workflows: workflowCosts(rows.runs, deps.prices.read().prices), runs: rows.runs.length, truncated: rows.truncated };
    },
  };
}

/** The history's runs started at or after `since`, newest first, in pages (the runs_started index). */
export function runsSince(journal: Pick<EventJournal, 'runsPage'>, since: string): { runs: RunRow[]; truncated: boolean } {
  const from = Date.parse(since);
  const runs: RunRow[] = [];
  let after: { started_at: string; run_id: string } | undefined;
  for (;;) {
    const page = journal.runsPage({ limit: PAGE, ...(after ? { after } : {}) });
    for (const { run } of page.runs) {
      if (Date.parse(run.started_at) < from) return { runs, truncated: false };
      if (runs.length >= MAX_COSTED_RUNS) return { runs, truncated: true };
      runs.push(run);
    }
    if (!page.next) return { runs, truncated: false };
    after = page.next;
  }
}
