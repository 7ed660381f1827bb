import { describe, expect, it } from 'vitest';
import { failedFact, okFact, stoppingFact } from './testing/fixtures';
import { isCheckableCondition, matchStopCondition, uncheckedConditions } from './stop-conditions';

describe('a stop condition matches exactly by its stated forms', () => {
  it('quoted text matches a round whose result contains it, ignoring case; unquoted prose never matches', () => {
    expect(matchStopCondition(['the notes are missing ("enoent")'], [okFact(0), stoppingFact(1)])).toEqual({
      condition: 'the notes are missing ("enoent")',
      round: 1,
      matched: 'the result of round 2 contains "enoent"',
      evidence: ['run-test-1:000010'],
    });
    expect(matchStopCondition(['`no such file`'], [stoppingFact(0)])?.condition).toBe('`no such file`');
    expect(matchStopCondition(['the notes are missing', 'ENOENT'], [stoppingFact(0)])).toBeUndefined();
    // Only the latest round is matched: an older result does not stop a later round.
    expect(matchStopCondition(['"ENOENT"'], [stoppingFact(0), okFact(1)])).toBeUndefined();
  });

  it('"same failure N times" matches N failures of the same call in a row, not N different ones', () => {
    expect(matchStopCondition(['same failure twice'], [failedFact(0), failedFact(1)])).toMatchObject({ matched: 'write_file failed 2 times in a row', evidence: ['run-test-1:000000', 'run-test-1:000010'] });
    expect(matchStopCondition(['same failure 3 times'], [failedFact(0), failedFact(1)])).toBeUndefined();
    expect(matchStopCondition(['same error three times'], [failedFact(0), failedFact(1), failedFact(2)])).toBeDefined();
    expect(matchStopCondition(['same failure twice'], [failedFact(0), failedFact(1, 'write_file {"path":"/etc/other.md"}')])).toBeUndefined();
  });

  it('"any failure" matches a failed round only; the first matching condition in plan order wins', () => {
    expect(matchStopCondition(['any failure'], [okFact(0)])).toBeUndefined();
    expect(matchStopCondition(['any tool failure', '"ENOENT"'], [stoppingFact(0)])?.condition).toBe('any tool failure');
  });

  it('says which conditions the runtime does not check', () => {
    expect(isCheckableCondition('dirty unrelated files')).toBe(false);
    expect(uncheckedConditions(['dirty unrelated files', 'same failure twice', '"EACCES"', 'any error'])).toEqual(['dirty unrelated files']);
  });
});
