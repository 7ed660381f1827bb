import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { boundaryInputs, FUZZ_RUNS } from '../../test-support/fuzz-arbitraries';
import { DispatchResult, JudgeVerdict, JudgmentRecord, PatternSettings } from './contracts';
import { PATTERN_PRESETS } from './presets';

/** The pattern records that cross a trust boundary: a judge's verdict, the members' result, the node's settings, the recorded judgment. */
const CONTRACTS: Array<[string, z.ZodType, unknown[]]> = [
  ['judge verdict (a model or a person)', JudgeVerdict, [{ verdict: 'approved', evidence: ['o1'] }, { verdict: 'rejected', feedback: 'add a section', evidence: ['o1'] }, { verdict: 'escalated', reason: 'legal' }]],
  ['members’ result (dispatch)', DispatchResult, [{ outputs: [{ id: 'o1', member_id: 'worker', text: 't' }], output: 'out', confidence: 0.4 }]],
  ['pattern settings (spec)', PatternSettings, Object.values(PATTERN_PRESETS).map((p) => p.settings)],
  [
    'judgment record (trace)',
    JudgmentRecord,
    [{ id: 'n:j0.1.0.1', step: 0, iteration: 1, attempt: 1, caller: { kind: 'human', who: 'ana' }, evidence: [], verification: { ok: false, problem: 'free text' }, started_at: 'a', ended_at: 'b' }],
  ],
];

const roundTrips = (schema: z.ZodType) => (input: unknown) => {
  const parsed = schema.safeParse(input);
  if (parsed.success) expect(schema.parse(parsed.data)).toEqual(parsed.data);
};

describe('pattern contracts under arbitrary input (property)', () => {
  it.each(CONTRACTS)('%s: parses to a value that parses to itself, or is rejected — never a throw', (_name, schema, seeds) => {
    fc.assert(fc.property(boundaryInputs(seeds), roundTrips(schema)), FUZZ_RUNS);
  });
});
