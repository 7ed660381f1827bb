import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearRegex, linearRegexWork } from './linear-regex';

const test = (pattern: string, text: string, flags = '') => {
  const re = compileLinearRegex(pattern, flags);
  if (!re.ok) throw new Error(re.message);
  return re.test(text);
};

describe('compileLinearRegex', () => {
  it('patterns that make the native engine backtrack for seconds visit each state at most once per character', () => {
    // Counted, not timed (bench/shared-scale.ts times it): work grows linearly from 50,000 to 100,000 characters.
    const cases: Array<[string, (n: number) => string]> = [
      ['a*b', (n) => 'a'.repeat(n)],
      ['a*a*b', (n) => 'a'.repeat(n)],
      ['(a+)+$', (n) => `${'a'.repeat(n - 1)}!`],
      ['(a|a)*b', (n) => 'a'.repeat(n)],
      ['^.*foo.*bar.*$', (n) => 'foo '.repeat(n / 4)],
    ];
    for (const [pattern, text] of cases) {
      const re = compileLinearRegex(pattern);
      if (!re.ok) throw new Error(re.message);
      const work = (n: number) => {
        const before = linearRegexWork();
        expect(re.test(text(n))).toBe(false);
        return linearRegexWork() - before;
      };
      const [half, full] = [work(50_000), work(100_000)];
      expect(full, pattern).toBeLessThanOrEqual(re.states * (100_000 + 1));
      expect(full, pattern).toBeGreaterThan(100_000);
      expect(full, pattern).toBeLessThanOrEqual(2 * half + re.states);
    }
  });

  it('backreferences and lookarounds are refused by name', () => {
    for (const p of ['(a)\\1', '(?<x>a)\\k<x>']) expect(compileLinearRegex(p)).toEqual({ ok: false, message: expect.stringMatching(/backreference/) });
    for (const p of ['a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b']) expect(compileLinearRegex(p)).toEqual({ ok: false, message: expect.stringMatching(/lookaround/) });
  });

  it('a pattern that does not compile says why', () => {
    expect(compileLinearRegex('(unclosed')).toEqual({ ok: false, message: expect.stringMatching(/^the pattern is not a valid regular expression/) });
  });

  it('counted repeats that would expand past the state bound are refused', () => {
    expect(compileLinearRegex('(a{1000}){1000}')).toEqual({ ok: false, message: expect.stringMatching(/too large/) });
  });

  it('agrees with the native engine on hand-picked patterns and flags', () => {
    const cases: Array<[string, string, string]> = [
      ['^report:', 'REPORT: ok', 'i'],
      ['^\\d{4}-\\d{2}$', '2026-11', ''],
      ['^\\d{4}-\\d{2}$', '2026-1', ''],
      ['^(notes|tasks|data)$', 'tasks', ''],
      ['\\bcat\\b', 'a cat sat', ''],
      ['\\bcat\\b', 'concatenate', ''],
      ['^b$', 'a\nb\nc', 'm'],
      ['^b$', 'a\nb\nc', ''],
      ['a.c', 'a\nc', 's'],
      ['a.c', 'a\nc', ''],
      ['[^a-c]x{2,3}?', 'dxx', ''],
      ['\\p{L}+\\s\\u{1F600}', 'héllo 😀', 'u'],
      ['(?<word>\\w+)@\\w+\\.com', 'mail me at ada@example.com', ''],
      ['colou?r', 'color', ''],
      ['\\x41\\u0042[\\]\\\\]', 'AB\\', ''],
      ['', 'anything', ''],
      ['a{0}b', 'b', ''],
      ['(|a)+c', 'aac', ''],
    ];
    for (const [pattern, text, flags] of cases) expect([pattern, flags, test(pattern, text, flags)]).toEqual([pattern, flags, new RegExp(pattern, flags).test(text)]);
  });
});

/** Small patterns over a two-letter alphabet: every structure the simulation handles. */
const patterns: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\w', '^', '$', '\\b', '\\B'),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `${x}${y}`),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(?:${x}|${y})`),
    fc.tuple(tie('p'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{2,}', '*?')).map(([x, q]) => `(${x})${q}`),
  ),
})).p;

describe('compileLinearRegex (property)', () => {
  it('finds a match exactly when the native engine does', () => {
    fc.assert(
      fc.property(patterns, fc.stringMatching(/^[ab \n]{0,12}$/), fc.constantFrom('', 'i', 'm', 's'), (pattern, text, flags) => {
        const re = compileLinearRegex(pattern, flags);
        expect(re.ok).toBe(true);
        if (re.ok) expect(re.test(text)).toBe(new RegExp(pattern, flags).test(text));
      }),
      { numRuns: 2000 },
    );
  });
});
