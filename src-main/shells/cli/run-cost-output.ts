import type { RunEvent } from '@shared/contracts/events';
import { costJson, durationText, tokensText, usdText, type CostJson } from '@shared/accounting/cost-words';
import { foldUsage, runCost, type UsageFacts } from '@shared/accounting/run-cost';
import { PriceListStore } from '../../accounting/price-list-store';

/**
 * What supervision cost a CLI run (issue 31), priced with the data folder's price list (the one the
 * app's Settings edit): the `cost` of `--json`, and one line for a person.
 */
export class RunCostTally {
  private readonly events: RunEvent[] = [];
  private readonly dataDir: string;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  /** Keeps each event as the run goes; they are folded once, at the end. */
  readonly onEvent = (event: RunEvent): void => {
    this.events.push(event);
  };

  private facts(): UsageFacts {
    return foldUsage(undefined, this.events);
  }

  json(): CostJson {
    return costJson(runCost(this.facts(), new PriceListStore(this.dataDir).read().prices));
  }

  /** "supervision: 2 calls · 1,200 in · 300 out · $0.0042 · added 1.2 s · waited 0 s for a person", or undefined when nothing supervised. */
  line(): string | undefined {
    const cost = runCost(this.facts(), new PriceListStore(this.dataDir).read().prices);
    return supervisionLine(cost);
  }
}

export function supervisionLine(cost: ReturnType<typeof runCost>): string | undefined {
  const s = cost.supervision;
  if (s.calls === 0 && cost.person.asks === 0) return undefined;
  const parts = [`${s.calls} supervision call(s)`, tokensText(s), usdText(s), `added ${durationText(s.latency_ms)}`];
  if (cost.person.asks > 0) parts.push(`waited ${durationText(cost.person.waited_ms)} for a person`);
  return `supervision cost: ${parts.join(' · ')}`;
}

/** `steward runs show --json`'s cost of a stored run. */
export function storedRunCost(events: readonly RunEvent[], dataDir: string): CostJson {
  return costJson(runCost(foldUsage(undefined, events), new PriceListStore(dataDir).read().prices));
}
