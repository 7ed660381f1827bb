import { describe, expect, it } from 'vitest';
import { isSampled, sampleDraw } from './sampler';

describe('the seeded review sampler', () => {
  it('is reproducible: the same seed, run and round always draw the same', () => {
    expect(sampleDraw(7, 'run-a', 3)).toBe(sampleDraw(7, 'run-a', 3));
    expect(sampleDraw(7, 'run-a', 3)).not.toBe(sampleDraw(8, 'run-a', 3));
    expect(sampleDraw(7, 'run-a', 3)).not.toBe(sampleDraw(7, 'run-b', 3));
  });

  it('draws in [0, 1) and samples close to the configured rate', () => {
    let hits = 0;
    for (let round = 0; round < 20_000; round++) {
      const d = sampleDraw(42, 'run-rate', round);
      expect(d >= 0 && d < 1).toBe(true);
      if (isSampled(0.2, 42, 'run-rate', round)) hits++;
    }
    expect(hits / 20_000).toBeGreaterThan(0.18);
    expect(hits / 20_000).toBeLessThan(0.22);
  });

  it('rate 0 never samples and rate 1 always does', () => {
    for (let round = 0; round < 100; round++) {
      expect(isSampled(0, 1, 'r', round)).toBe(false);
      expect(isSampled(1, 1, 'r', round)).toBe(true);
    }
  });
});
