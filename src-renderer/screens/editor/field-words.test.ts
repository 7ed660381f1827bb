import { describe, expect, it } from 'vitest';
import { RegistryId } from '@shared/contracts/host-registry';
import { idIssue, nameIssue, notSaidByFields } from './field-words';

describe('field errors in words', () => {
  it('says what is wrong with an id the way a person fixes it', () => {
    expect(idIssue('')).toBe('Id is required');
    expect(idIssue('Read')).toBe('Id uses lowercase letters only');
    expect(idIssue('read notes')).toBe('Id may use letters, digits, - and _ (no spaces)');
    expect(idIssue('-read')).toBe('Id starts with a letter or a digit');
    expect(idIssue('r'.repeat(65))).toBe('Id is at most 64 characters');
    expect(idIssue('read', ['read'])).toBe('Another node already has the Id “read”');
    expect(idIssue('read', ['write'])).toBeUndefined();
  });

  it('finds fault with exactly the ids the schema refuses', () => {
    for (const id of ['', 'a', 'read-notes_2', 'Read', 'a b', '-a', '_a', 'ä', 'r'.repeat(64), 'r'.repeat(65), 'a/b', '9']) {
      expect(idIssue(id) === undefined, id).toBe(RegistryId.safeParse(id).success);
    }
  });

  it('a required name is required; any name has a length limit', () => {
    expect(nameIssue('', { required: true })).toBe('Name is required');
    expect(nameIssue('', { required: false })).toBeUndefined();
    expect(nameIssue('n'.repeat(121), { required: false })).toBe('Name is at most 120 characters');
  });
});

describe('a problem the field already says is not listed twice', () => {
  it('drops the same words in any case, keeps the rest', () => {
    expect(notSaidByFields(['name is required', 'the graph has no output'], ['Name is required', undefined])).toEqual(['the graph has no output']);
  });
});
