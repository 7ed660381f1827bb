import { join } from 'node:path';
import { PriceListFile, type PriceList } from '@shared/accounting/price-list';
import { withDetails } from '@shared/contracts/code-words';
import { readJsonFile, writeJsonAtomic } from '../registry/json-store';

/** What a person reads when prices.json cannot be read. */
export const PRICE_FILE_PROBLEM = 'The price list file (prices.json in Steward’s data folder) could not be read, so every model counts as unpriced until you save the prices again in Settings.';

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
      // In words for the page (the file's own problem one click away, in the details).
      return { prices: {}, problem: withDetails(PRICE_FILE_PROBLEM, err instanceof Error ? err.message : String(err)) };
    }
  }

  save(prices: PriceList, now = new Date()): { updated_at: string } {
    const updated_at = now.toISOString();
    writeJsonAtomic(this.path, PriceListFile.parse({ format: 'steward-price-list/v1', prices, updated_at }));
    return { updated_at };
  }
}
