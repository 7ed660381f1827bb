import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EFFECT_CLASSES, type EffectClass } from '../contracts/tool-effect';
import { computeAllowedActions } from './allowed-actions';
import { retrySafe, type AttemptFacts } from './retry-safety';

const effect = fc.constantFrom<EffectClass>(...EFFECT_CLASSES);
const offered = fc.option(fc.array(effect, { maxLength: 6 }), { nil: undefined });
const agent = fc.record({ kind: fc.constant('agent' as const), offered });

/** What the allowed set offers a failed attempt that spent and created nothing. */
const offersRetry = (facts: AttemptFacts) =>
  computeAllowedActions({ retry_safe: retrySafe(facts), spent_usd: 0, created_assets: [], has_candidate: false, validator_covers_output: false, streaming: false, emitted: false }).actions.includes('retry');

describe('which failed attempts may run again', () => {
  it('an agent node offered any tool that is not a read (a write, external communication, unknown) is never retried (property)', () => {
    fc.assert(
      fc.property(agent, (a) => {
        if (a.offered?.some((e) => e !== 'read')) expect(offersRetry(a)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('an agent node is retried only when every tool it was offered is a read (or it had none) (property)', () => {
    fc.assert(
      fc.property(agent, (a) => {
        expect(offersRetry(a)).toBe(a.offered !== undefined && a.offered.every((e) => e === 'read'));
      }),
      { numRuns: 500 },
    );
    expect(offersRetry({ kind: 'agent', offered: [] })).toBe(true);
    // Tools never listed: what it might have called is not known.
    expect(offersRetry({ kind: 'agent', offered: undefined })).toBe(false);
  });

  it('a read-only agent attempt whose model calls cost money, or cost what nobody knows, is not retried', () => {
    const facts = { retry_safe: retrySafe({ kind: 'agent', offered: ['read'] }), created_assets: [], has_candidate: false, validator_covers_output: false, streaming: false, emitted: false };
    expect(computeAllowedActions({ ...facts, spent_usd: 0.0042 }).refused.retry).toBe('the failed attempt already cost $0.0042');
    expect(computeAllowedActions({ ...facts, spent_usd: 0, unpriced_models: ['api.example.com:gpt-x'] }).refused.retry).toMatch(/called api\.example\.com:gpt-x, whose cost is not known/);
    expect(computeAllowedActions({ ...facts, spent_usd: 0, unpriced_models: [] }).actions).toContain('retry');
  });

  it('a tool node is retried only for a read; pure nodes always, anything undescribed never', () => {
    for (const e of EFFECT_CLASSES) expect(offersRetry({ kind: 'tool', effect: e })).toBe(e === 'read');
    expect(offersRetry({ kind: 'tool', effect: undefined })).toBe(false);
    expect(offersRetry({ kind: 'pure' })).toBe(true);
    expect(offersRetry({ kind: 'other' })).toBe(false);
  });
});
