import { join } from 'node:path';
import { PriceListFile, type PriceList } from '@shared/accounting/price-list';
import { readJsonFile, writeJsonAtomic } from '../registry/json-store';

/**
 * The app's one price list (issue 31), in the data folder (`prices.json`) beside the profiles: the
 * app's Settings edit it, the run report, the runs list, `steward run --json` and OTLP price calls
 * with it, and the workflow supervisor's cost cap reads it (its own older per-workflow entries win).
 * A damaged file is an empty list, and said so; a save replaces it whole, atomically.
 */
export class PriceListStore {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'prices.json');
  }

  /** The list; `problem` when the file could not be read (it is then treated as empty, never overwritten silently). */
  read(): { prices: PriceList; updated_at?: string; problem?: string } {
    try {
      const file = readJsonFile(this.path, PriceListFile.optional(), undefined);
      if (!file) return { prices: {} };
      return { prices: file.prices, ...(file.updated_at ? { updated_at: file.updated_at } : {}) };
    } catch (err) {
      return { prices: {}, problem: `the price list in ${this.path} could not be read (${err instanceof Error ? err.message : String(err)}); models count as unpriced until it is saved again` };
    }
  }

  save(prices: PriceList, now = new Date()): { updated_at: string } {
    const updated_at = now.toISOString();
    writeJsonAtomic(this.path, PriceListFile.parse({ format: 'steward-price-list/v1', prices, updated_at }));
    return { updated_at };
  }
}
