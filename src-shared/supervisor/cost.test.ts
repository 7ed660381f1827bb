import { describe, expect, it } from 'vitest';
import { attemptSpend, spentText, type ModelCallTally } from './cost';

const pricing = { 'api.example.com:gpt-x': { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } };
const tally = (t: Partial<ModelCallTally>): ModelCallTally => ({ label: 'api.example.com:gpt-x', local: false, calls: 1, measured: 1, input_tokens: 0, output_tokens: 0, ...t });

describe("a failed attempt's spent cost", () => {
  it('is the reported tokens at the pricing table price', () => {
    expect(attemptSpend([tally({ calls: 2, measured: 2, input_tokens: 1500, output_tokens: 500 })], pricing)).toEqual({ usd: (1500 * 2 + 500 * 8) / 1e6, unpriced: [] });
  });

  it('is 0 for a local model, priced or not, whatever its tokens', () => {
    expect(attemptSpend([tally({ label: 'ollama:qwen3:4b', local: true, input_tokens: 10_000, output_tokens: 10_000 })], pricing)).toEqual({ usd: 0, unpriced: [] });
    expect(attemptSpend([tally({ local: true, input_tokens: 10_000, output_tokens: 10_000 })], pricing)).toEqual({ usd: 0, unpriced: [] });
  });

  it('names a remote model with no price as unpriced instead of counting it 0', () => {
    expect(attemptSpend([tally({ label: 'api.other.net:big', input_tokens: 99, output_tokens: 99 })], pricing)).toEqual({ usd: 0, unpriced: ['api.other.net:big'] });
  });

  it('names a priced remote model unpriced too when a call of it reported no usage, keeping what was measured', () => {
    expect(attemptSpend([tally({ calls: 2, measured: 1, input_tokens: 1000, output_tokens: 0 })], pricing)).toEqual({ usd: 0.002, unpriced: ['api.example.com:gpt-x'] });
  });
});

describe('what a failed attempt spent, in words', () => {
  it('says nothing when it cost nothing, the dollars when measured, and names what is unpriced', () => {
    expect(spentText({ spent_usd: 0 })).toBeUndefined();
    expect(spentText({ spent_usd: 0.0042 })).toBe('$0.0042');
    expect(spentText({ spent_usd: 0, unpriced_models: ['api.other.net:big'] })).toBe('an unknown amount (api.other.net:big: unpriced)');
    expect(spentText({ spent_usd: 0.002, unpriced_models: ['api.other.net:big'] })).toBe('$0.0020 + an unknown amount (api.other.net:big: unpriced)');
  });
});
