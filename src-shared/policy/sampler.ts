/**
 * The seeded, reproducible sampler for sampled review: a pure function of (seed, run, round), so a
 * replayed run draws exactly the same rounds and a test can predict them.
 */
export function sampleDraw(seed: number, runId: string, round: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of `${runId}:${round}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  // mulberry32 finaliser: spreads FNV's low-entropy high bits over the whole range.
  h = Math.imul(h ^ (h >>> 15), h | 1);
  h ^= h + Math.imul(h ^ (h >>> 7), h | 61);
  return ((h ^ (h >>> 14)) >>> 0) / 4294967296;
}

export function isSampled(rate: number, seed: number, runId: string, round: number): boolean {
  return rate > 0 && (rate >= 1 || sampleDraw(seed, runId, round) < rate);
}
