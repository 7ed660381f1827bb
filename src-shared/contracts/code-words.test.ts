import { describe, expect, it } from 'vitest';
import { DENIAL_REASONS } from '../boundary/authorization';
import { messageParts, roundReasonWords, splitDetails, withDetails } from './code-words';

describe('a message in words with its raw reason one click away (issue 28)', () => {
  it('keeps the raw reason after the words, on one line, and gives both back', () => {
    const text = withDetails('The system keychain did not answer. Run again.', 'Platform failure: DBus error:\n  no socket');
    expect(text).toBe('The system keychain did not answer. Run again. (details: Platform failure: DBus error: no socket)');
    expect(splitDetails(text)).toEqual({ words: 'The system keychain did not answer. Run again.', details: 'Platform failure: DBus error: no socket' });
    expect(withDetails('Just words.', undefined)).toBe('Just words.');
    expect(splitDetails('Words (with a parenthesis).')).toEqual({ words: 'Words (with a parenthesis).' });
  });

  it('says a leading engine code as words, and leaves a word that is not one alone', () => {
    expect(messageParts('tool_unavailable: the servers could not start: no key (details: raw)')).toEqual({
      code: 'tool_unavailable',
      codeWords: 'the tool is not available',
      words: 'the servers could not start: no key',
      details: 'raw',
    });
    expect(messageParts('read_text_file: said no')).toEqual({ words: 'read_text_file: said no' });
    expect(messageParts('you declined fs/write_file: not today')).toEqual({ words: 'you declined fs/write_file: not today' });
  });
});

describe('a round\'s reason in words', () => {
  it('says every denial reason, the boundary\'s round reasons and validation codes as words, never the code', () => {
    for (const code of [...DENIAL_REASONS, 'verdict_block', 'verdict_escalate', 'invalid_candidate', 'tool_error', 'student_error', 'tool_not_offered']) {
      expect(roundReasonWords(code), code).not.toMatch(/_/);
    }
    expect(roundReasonWords('confirmation_pending')).toBe('waits for your confirmation');
    expect(roundReasonWords('verdict_block')).toBe('the teacher blocked it');
    expect(roundReasonWords('something_new')).toBe('something new');
  });
});
