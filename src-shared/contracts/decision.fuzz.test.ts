import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateFromValue } from '../boundary/parse-candidate';
import { READ_FILE, SEND_EMAIL, WRITE_FILE } from '../boundary/testing/fixtures';
import { validateCandidate, ValidationResult } from '../boundary/validation';
import { boundaryInputs, FUZZ_RUNS } from '../../test-support/fuzz-arbitraries';
import { Decision } from './decision';
import { TeacherVerdict } from './verdict';

const snapshot = { round: 0, tools: [READ_FILE, WRITE_FILE, SEND_EMAIL], hash: 'fuzz' };

const DECISIONS = [
  { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'a.md', content: 'x' }, confidence: 0.5 },
  { decision_type: 'tool_call', tool_name: 'send_email', arguments: { to: 'a@b.c', body: 'hi' } },
  { decision_type: 'ask_user', question: 'Which file?' },
  { decision_type: 'present_result', content: 'found it' },
  { decision_type: 'request_confirmation', message: 'ok to write?' },
  { decision_type: 'reroute', target: 'other', reason: 'not mine' },
  { decision_type: 'complete', output: 'done' },
];

const VERDICTS = [
  { verdict: 'accept', reason_codes: [], explanation: 'Fine.' },
  { verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'Use read.', replacement: DECISIONS[0] },
  { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'No.' },
  { verdict: 'escalate', reason_codes: ['other'], explanation: 'Ask.' },
];

describe('decision and verdict contracts under arbitrary input (property)', () => {
  it('a decision either validates to a value that validates to itself, or is rejected — never a throw', () => {
    fc.assert(
      fc.property(boundaryInputs(DECISIONS), (input) => {
        const parsed = Decision.safeParse(input);
        if (parsed.success) expect(Decision.parse(parsed.data)).toEqual(parsed.data);
      }),
      FUZZ_RUNS,
    );
  });

  it('the boundary validation of any candidate value is a typed result; ok means a decision (and a tool for a call)', () => {
    fc.assert(
      fc.property(boundaryInputs([...DECISIONS, DECISIONS]), (input) => {
        const validated = validateCandidate(candidateFromValue(input), snapshot);
        expect(ValidationResult.safeParse(validated.result).success).toBe(true);
        if (validated.result.ok) {
          expect(validated.decision).toBeDefined();
          if (validated.decision?.decision_type === 'tool_call') expect(validated.tool?.name).toBe(validated.decision.tool_name);
        } else {
          expect(validated.result.issues.length).toBeGreaterThan(0);
        }
      }),
      FUZZ_RUNS,
    );
  });

  it('a verdict either parses with its rules holding, or is rejected — never a throw', () => {
    fc.assert(
      fc.property(boundaryInputs(VERDICTS), (input) => {
        const parsed = TeacherVerdict.safeParse(input);
        if (!parsed.success) return;
        const v = parsed.data;
        expect(v.verdict === 'replace').toBe(v.replacement !== undefined);
        if (v.verdict !== 'accept') expect(v.reason_codes.length).toBeGreaterThan(0);
        // A replacement goes through the student's validation path, which types whatever it is.
        if (v.replacement !== undefined) expect(ValidationResult.safeParse(validateCandidate(candidateFromValue(v.replacement), snapshot).result).success).toBe(true);
      }),
      FUZZ_RUNS,
    );
  });
});
