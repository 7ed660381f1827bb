import { describe, expect, it } from 'vitest';
import { LimitsSpec } from '@shared/contracts/spec';
import { parseRuntimeTexts, runtimeTextsOf } from './runtime-edit';

const base = LimitsSpec.parse({ max_consecutive_failures: 5 });

describe('the Runtime group’s fields', () => {
  it('typed values become the agent’s limits (seconds to milliseconds; empty is unset); what the group does not edit is kept', () => {
    const parsed = parseRuntimeTexts({ max_rounds: '3', decision_timeout_s: '2.5', max_output_tokens: '1024' }, base);
    expect(parsed).toEqual({ ok: true, limits: { max_rounds: 3, max_consecutive_failures: 5, decision_timeout_ms: 2500, max_output_tokens: 1024 } });
    const cleared = parseRuntimeTexts({ max_rounds: '12', decision_timeout_s: '', max_output_tokens: ' ' }, { ...base, decision_timeout_ms: 9000, max_output_tokens: 512 });
    expect(cleared).toEqual({ ok: true, limits: { max_rounds: 12, max_consecutive_failures: 5 } });
  });

  it('round-trips the stored limits', () => {
    const limits = { ...base, decision_timeout_ms: 30_000, max_output_tokens: 4096 };
    expect(parseRuntimeTexts(runtimeTextsOf(limits), base)).toEqual({ ok: true, limits });
  });

  it('out of range or not a number: each field says why, in words', () => {
    const parsed = parseRuntimeTexts({ max_rounds: '0', decision_timeout_s: '900', max_output_tokens: 'lots' }, base);
    expect(parsed).toEqual({
      ok: false,
      issues: {
        max_rounds: 'The round limit is a whole number of rounds from 1 to 200.',
        decision_timeout_s: 'The decision timeout is from 1 to 600 seconds, in whole milliseconds.',
        max_output_tokens: 'The model reply bound is a number; “lots” is not one.',
      },
    });
    expect(parseRuntimeTexts({ max_rounds: '', decision_timeout_s: '0.5', max_output_tokens: '100' }, base)).toEqual({
      ok: false,
      issues: {
        max_rounds: 'Give a round limit: a whole number of rounds from 1 to 200.',
        decision_timeout_s: 'The decision timeout is from 1 to 600 seconds, in whole milliseconds.',
        max_output_tokens: 'The model reply bound is from 256 to 32,768 output tokens.',
      },
    });
  });
});
