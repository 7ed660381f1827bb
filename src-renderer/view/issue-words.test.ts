import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issueInWords } from './issue-words';

const wordsFor = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('it parsed');
  return parsed.error.issues.map(issueInWords);
};

describe('a schema issue beside its field', () => {
  it('says what is wrong in a sentence, never in the schema’s own text', () => {
    expect(wordsFor(z.object({ label: z.string().min(1) }), { label: '' })).toEqual(['This is required.']);
    expect(wordsFor(z.object({ label: z.string() }), {})).toEqual(['This is required.']);
    expect(wordsFor(z.string().max(3), 'long')).toEqual(['This is too long (at most 3 characters).']);
    expect(wordsFor(z.url(), 'not a url')).toEqual(['This is not a valid address (e.g. https://example.com/mcp).']);
    expect(wordsFor(z.object({}).strict(), { extra: 1 })).toEqual(['Not a setting Steward knows: extra.']);
    expect(wordsFor(z.enum(['a', 'b']), 'c')).toEqual(['Choose one of: a, b.']);
    for (const w of [...wordsFor(z.number(), 'x'), ...wordsFor(z.string().min(5), 'ab')]) expect(w).not.toMatch(/expected|received|Invalid|>=/);
  });

  it('keeps a rule the schema states in words', () => {
    expect(wordsFor(z.string().regex(/^a/, 'a name starts with “a”'), 'b')).toEqual(['a name starts with “a”']);
  });
});
