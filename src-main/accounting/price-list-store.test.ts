import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { splitDetails } from '@shared/contracts/code-words';
import { PRICE_FILE_PROBLEM, PriceListStore } from './price-list-store';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'steward-prices-'));
  dirs.push(dir);
  return dir;
};

describe('the price list file', () => {
  it('saved and read back whole', () => {
    const store = new PriceListStore(dataDir());
    const { updated_at } = store.save({ 'api.example.com:big': { input_per_mtok_usd: 3, output_per_mtok_usd: 15 } }, new Date('2026-12-01T00:00:00Z'));
    expect(store.read()).toEqual({ prices: { 'api.example.com:big': { input_per_mtok_usd: 3, output_per_mtok_usd: 15 } }, updated_at });
  });

  it('a damaged file reads as an empty list, its problem said in words and the parser’s own text kept for the details', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'prices.json'), '{"format": "steward-price-list/v1", "prices": {');
    const read = new PriceListStore(dir).read();
    expect(read.prices).toEqual({});
    const { words, details } = splitDetails(read.problem ?? '');
    expect(words).toBe(PRICE_FILE_PROBLEM);
    expect(words).not.toContain(dir);
    expect(details).toContain('prices.json is damaged (not valid JSON');
  });
});
