import { z } from 'zod';
import { PricingTable, type ModelPrice } from '../supervisor/contracts';

/**
 * The app's one price list (issue 31): dollars per million input and output tokens per model label
 * (`provider:model` as runs record it, e.g. "api.openai.com:gpt-4o"). The same table the workflow
 * supervisor's cost cap reads (PricingTable); the host keeps it in its data folder (`prices.json`).
 */
export const PriceList = PricingTable;
export type PriceList = z.infer<typeof PriceList>;

/** The file the host keeps the list in. */
export const PriceListFile = z
  .object({
    format: z.literal('steward-price-list/v1'),
    prices: PriceList,
    updated_at: z.iso.datetime().optional(),
  })
  .strict();
export type PriceListFile = z.infer<typeof PriceListFile>;

/** A model a list may hold at most (a person types them; a page sends the whole list). */
export const MAX_PRICED_MODELS = 500;

const ZERO: ModelPrice = { input_per_mtok_usd: 0, output_per_mtok_usd: 0 };

/**
 * A model's price: the list's own entry; else 0 for a model on this machine (Ollama, a loopback
 * server, a replay); else undefined — a remote model nobody priced costs an unknown amount, never 0.
 */
export function priceOf(label: string, local: boolean, prices: PriceList): ModelPrice | undefined {
  if (Object.hasOwn(prices, label)) return prices[label];
  return local ? ZERO : undefined;
}

/** Dollars of `input` and `output` tokens at `price`. */
export function tokensUsd(price: ModelPrice, input: number, output: number): number {
  return (input * price.input_per_mtok_usd + output * price.output_per_mtok_usd) / 1_000_000;
}

/** The workflow supervisor's table for a run: the app's list, with the workflow's own entries (older settings) winning. */
export function mergedPricing(appList: PriceList, workflowOwn: PriceList): PriceList {
  const merged: PriceList = {};
  for (const [label, price] of Object.entries(appList)) Object.defineProperty(merged, label, { value: price, enumerable: true, writable: true, configurable: true });
  for (const [label, price] of Object.entries(workflowOwn)) Object.defineProperty(merged, label, { value: price, enumerable: true, writable: true, configurable: true });
  return merged;
}
