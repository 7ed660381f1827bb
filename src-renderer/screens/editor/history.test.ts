import { describe, expect, it } from 'vitest';
import { commit, redo, startHistory, undo } from './history';

describe('undo history', () => {
  it('undo goes back step by step and redo forward again', () => {
    let h = startHistory('a');
    h = commit(h, 'b');
    h = commit(h, 'c');
    h = undo(undo(h));
    expect(h.present).toBe('a');
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h.present).toBe('b');
  });

  it('a new edit after an undo drops the redo steps', () => {
    const h = commit(undo(commit(startHistory('a'), 'b')), 'x');
    expect(h.present).toBe('x');
    expect(redo(h)).toBe(h);
  });

  it('edits of one group in a row are one step; another group starts a new one', () => {
    let h = startHistory('');
    for (const text of ['h', 'he', 'hel']) h = commit(h, text, 'task');
    h = commit(h, 'hel!', 'name');
    expect(undo(h).present).toBe('hel');
    expect(undo(undo(h)).present).toBe('');
  });

  it('a group does not merge across an undo', () => {
    let h = commit(commit(startHistory('a'), 'ab', 'f'), 'abc', 'f');
    h = commit(undo(h), 'aX', 'f');
    expect(undo(h).present).toBe('a');
  });
});
