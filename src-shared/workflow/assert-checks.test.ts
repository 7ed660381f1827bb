import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REGEX_SUBJECT_CHARS, checkProblem, runChecks, type CheckResult } from './assert-checks';
import { linearRegexWork } from './linear-regex';

describe('runChecks', () => {
  it('json_schema: a value that matches passes; one that does not fails with the path and reason', () => {
    const schema = { type: 'object', required: ['title'], properties: { title: { type: 'string' }, score: { type: 'number' } } };
    expect(runChecks([{ check: 'json_schema', schema }], { title: 'x', score: 2 })).toEqual({ ok: true });
    const failed = runChecks([{ check: 'json_schema', schema }], { score: 'high' });
    expect(failed).toEqual({ ok: false, reason: expect.stringMatching(/^check 1 \(json_schema\): the value does not match the schema: /) });
    expect(failed.ok === false && failed.reason).toMatch(/title: must have required property/);
    expect(failed.ok === false && failed.reason).toMatch(/score: must be number/);
  });

  it('json_schema: a text value holding JSON is checked as that JSON (an agent answers in text)', () => {
    const schema = { type: 'array', items: { type: 'integer' } };
    expect(runChecks([{ check: 'json_schema', schema }], '[1, 2, 3]')).toEqual({ ok: true });
    expect(runChecks([{ check: 'json_schema', schema }], 'not json').ok).toBe(false);
  });

  it('json_schema: an unusable schema fails the check, saying so', () => {
    expect(runChecks([{ check: 'json_schema', schema: { type: 'no-such-type' } }], 1)).toEqual({
      ok: false,
      reason: expect.stringContaining('the schema cannot be used'),
    });
  });

  it('contains: checks the text (an object as its JSON)', () => {
    expect(runChecks([{ check: 'contains', text: 'urgent' }], 'This is urgent.')).toEqual({ ok: true });
    expect(runChecks([{ check: 'contains', text: '"a":1' }], { a: 1 })).toEqual({ ok: true });
    expect(runChecks([{ check: 'contains', text: 'urgent' }], 'calm')).toEqual({ ok: false, reason: 'check 1 (contains): the value does not contain "urgent"' });
  });

  it('regex: matches with its flags', () => {
    expect(runChecks([{ check: 'regex', pattern: '^report:', flags: 'i' }], 'REPORT: ok')).toEqual({ ok: true });
    expect(runChecks([{ check: 'regex', pattern: '^\\d{4}-\\d{2}$' }], '2026-1')).toEqual({ ok: false, reason: 'check 1 (regex): the value does not match /^\\d{4}-\\d{2}$/' });
  });

  it('regex: a pattern the native engine would backtrack on for minutes is run by the linear engine, its work linear in the value', () => {
    // Counted, not timed (bench/shared-scale.ts times it): the states the linear engine visits, at half and the full bound.
    const work = (pattern: string, text: string, expected: CheckResult) => {
      const before = linearRegexWork();
      expect(runChecks([{ check: 'regex', pattern }], text)).toEqual(expected);
      return linearRegexWork() - before;
    };
    const n = MAX_REGEX_SUBJECT_CHARS;
    const missed = { ok: false, reason: 'check 1 (regex): the value does not match /a*a*b/' };
    const [half, full] = [work('a*a*b', 'a'.repeat(n / 2), missed), work('a*a*b', 'a'.repeat(n), missed)];
    expect(full).toBeGreaterThan(n);
    expect(full).toBeLessThanOrEqual(6 * (n + 1)); // a*a*b compiles to 6 states
    expect(full).toBeLessThanOrEqual(2 * half + 6);
    const nested = work('(a+)+$', `${'a'.repeat(n - 1)}!`, { ok: false, reason: 'check 1 (regex): the value does not match /(a+)+$/' });
    expect(nested).toBeGreaterThan(n);
    expect(nested).toBeLessThanOrEqual(9 * (n + 1));
  });

  it('regex: a backreference or lookaround is refused, never run', () => {
    for (const pattern of ['(a)\\1', '(?<x>a)\\k<x>', 'a(?=b)', '(?<!a)b']) {
      expect(checkProblem({ check: 'regex', pattern })).toMatch(/backreference|lookaround/);
      expect(runChecks([{ check: 'regex', pattern }], 'aab').ok).toBe(false);
    }
    for (const pattern of ['(foo|bar)+', '[(+*]+', '(a+)+$', '(ab)?c+', 'a{2,3}b*']) expect(checkProblem({ check: 'regex', pattern })).toBeUndefined();
  });

  it('regex: a pattern that does not compile is a problem with its reason', () => {
    expect(checkProblem({ check: 'regex', pattern: '(unclosed' })).toMatch(/^the pattern is not a valid regular expression/);
  });

  it('regex: a value longer than the bound fails instead of being scanned', () => {
    const result = runChecks([{ check: 'regex', pattern: 'x' }], 'a'.repeat(MAX_REGEX_SUBJECT_CHARS + 1));
    expect(result).toEqual({ ok: false, reason: `check 1 (regex): the value is longer than ${MAX_REGEX_SUBJECT_CHARS} characters` });
  });

  it('range: numbers (and text that is exactly a number) within min and max', () => {
    expect(runChecks([{ check: 'range', min: 1, max: 5 }], 3)).toEqual({ ok: true });
    expect(runChecks([{ check: 'range', min: 1, max: 5 }], ' 4.5 ')).toEqual({ ok: true });
    expect(runChecks([{ check: 'range', min: 1 }], 0)).toEqual({ ok: false, reason: 'check 1 (range): 0 is below the minimum 1' });
    expect(runChecks([{ check: 'range', max: 1 }], 2)).toEqual({ ok: false, reason: 'check 1 (range): 2 is above the maximum 1' });
    expect(runChecks([{ check: 'range', max: 1 }], 'seven')).toEqual({ ok: false, reason: 'check 1 (range): the value is not a number' });
  });

  it('non_empty: blank text, empty lists and objects, null fail; numbers and booleans are values', () => {
    for (const empty of ['', '  \n', [], {}, null, undefined]) expect(runChecks([{ check: 'non_empty' }], empty).ok).toBe(false);
    for (const value of ['x', [0], { a: null }, 0, false]) expect(runChecks([{ check: 'non_empty' }], value)).toEqual({ ok: true });
  });

  it('the first failing check is named by its position', () => {
    const result = runChecks([{ check: 'non_empty' }, { check: 'contains', text: 'b' }, { check: 'contains', text: 'c' }], 'a');
    expect(result).toEqual({ ok: false, reason: 'check 2 (contains): the value does not contain "b"' });
  });
});

describe('runChecks over arbitrary values (property)', () => {
  it('always returns a typed result, never throws, whatever the value', () => {
    const checks = [
      { check: 'json_schema', schema: { type: 'object' } },
      { check: 'contains', text: 'a' },
      { check: 'regex', pattern: '^a.*b$', flags: 's' },
      { check: 'range', min: 0, max: 10 },
      { check: 'non_empty' },
    ] as const;
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...checks), (value, check) => {
        const result = runChecks([check], value);
        expect(result.ok === true || typeof (result as { reason?: unknown }).reason === 'string').toBe(true);
      }),
    );
  });
});
