import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { boundaryInputs, FUZZ_RUNS } from '../../test-support/fuzz-arbitraries';
import { EvidencePack, MonitorDecision, PhasePlan, RoundFact, ScsRecord, ScsSettings } from './contracts';

const PLAN = { phase_goal: 'Read the notes', plan: ['list', 'read', 'summarise'], acceptance_criteria: ['a summary exists'], allowed_tools: ['read_file'], stop_conditions: [] };
const FACT = { round: 0, outcome: 'failed', reason: 'tool_error', tool: 'read_file', call_key: 'k', failed: true, summary: 'failed', event_ids: ['r:1'] };

/** The SCS records that cross a trust boundary: model answers (plan, monitor decision) and what the run reports. */
const CONTRACTS: Array<[string, z.ZodType, unknown[]]> = [
  ['phase plan (the committee model)', PhasePlan, [PLAN]],
  ['monitor decision (the monitor model)', MonitorDecision, [{ decision: 'finish_allowed', confidence: 0.9, evidence: ['r:1'], reason: 'criteria met' }, { decision: 'extend_steps', confidence: 0.5, reason: 'more', extend_by: 3 }]],
  ['round fact', RoundFact, [FACT]],
  ['evidence pack', EvidencePack, [{ trigger: 'finish', task: 't', plan: PLAN, recent: [{ id: 'r:1', type: 'round.completed', summary: 's' }], failures: [FACT], acceptance_criteria: ['c'], rounds_used: 1, budget: 5 }]],
  ['SCS record (--json)', ScsRecord, [{ mode: 'auto', active: true, reason: 'long task', model: 'replay', phase: 1, plan: PLAN, decision: 'approve_plan', status: 'executing', blocked_reasons: [], extensions: 0 }]],
  ['SCS settings (spec)', ScsSettings, [{ mode: 'on' }, {}]],
];

describe('SCS contracts under arbitrary input (property)', () => {
  for (const [name, schema, seeds] of CONTRACTS) {
    it(`${name}: parses to a value that parses to itself, or is rejected — never a throw`, () => {
      fc.assert(
        fc.property(boundaryInputs(seeds), (input) => {
          const parsed = schema.safeParse(input);
          if (parsed.success) expect(schema.parse(parsed.data)).toEqual(parsed.data);
        }),
        FUZZ_RUNS,
      );
    });
  }
});
