import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RUN_WORDS, MAX_WORD_CHARS, matchesWords, runWords, searchWords } from './search-words';

const row = (over: Partial<Parameters<typeof runWords>[0]> = {}) => ({
  spec_name: 'notes cleanup',
  task: 'Summarise the meeting notes #1234',
  models: { student: 'ollama:qwen3:4b', teacher: 'api.openai.com:gpt-5-mini' },
  ...over,
});

describe('searchWords', () => {
  it('splits on punctuation and spaces, lowercases, keeps Unicode letters and digits, and drops repeats', () => {
    expect(searchWords('Archive RECEIPTS, receipts! #4321 (notes-cleanup)')).toEqual(['archive', 'receipts', '4321', 'notes', 'cleanup']);
    expect(searchWords('Übersicht café Дом 会议 २०२६ naïve')).toEqual(['übersicht', 'café', 'дом', '会议', '२०२६', 'naïve']);
    expect(searchWords('  #, -- !')).toEqual([]);
  });

  it('a word typed with a decomposed accent finds the same word stored precomposed', () => {
    expect(searchWords('cafe\u0301')).toEqual(searchWords('café'));
  });

  it('cuts a long word to its first MAX_WORD_CHARS characters, the same for the query and the index', () => {
    const long = 'a'.repeat(MAX_WORD_CHARS + 20);
    expect(searchWords(long)).toEqual(['a'.repeat(MAX_WORD_CHARS)]);
  });
});

describe('runWords', () => {
  it('indexes the task, workflow name, models, message and output of a run', () => {
    const words = runWords(row({ output: 'Wrote summary.md', message: 'Model timed out' }));
    for (const w of ['summarise', 'meeting', '1234', 'notes', 'cleanup', 'ollama', 'qwen3', 'gpt', 'mini', 'wrote', 'summary', 'md', 'timed', 'out']) expect(words).toContain(w);
    expect(new Set(words).size).toBe(words.length);
  });

  it('keeps at most MAX_RUN_WORDS distinct words, the task’s first', () => {
    const output = Array.from({ length: MAX_RUN_WORDS * 2 }, (_, i) => `w${i}`).join(' ');
    const words = runWords(row({ output }));
    expect(words).toHaveLength(MAX_RUN_WORDS);
    expect(words).toContain('summarise');
    expect(words).toContain('w0');
    expect(words).not.toContain(`w${MAX_RUN_WORDS * 2 - 1}`);
  });
});

describe('matchesWords', () => {
  it('every query word must start some word of the run: a person typing "summ mee" finds "Summarise the meeting notes"', () => {
    const words = runWords(row());
    expect(matchesWords(words, searchWords('summ MEE'))).toBe(true);
    expect(matchesWords(words, searchWords('summ invoices'))).toBe(false);
    expect(matchesWords(words, searchWords('ummarise'))).toBe(false);
    expect(matchesWords(words, [])).toBe(true);
  });

  it('any text a run holds is found by each of its own words and by their prefixes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.integer({ min: 1, max: 6 }), (task, cut) => {
        const words = runWords(row({ task }));
        for (const w of searchWords(task)) expect(matchesWords(words, searchWords(w.slice(0, cut)))).toBe(true);
      }),
    );
  });
});
