import { describe, expect, it } from 'vitest';
import { memberOfOutputId, waitingAt } from './member-label';

describe('where a pattern member question waits', () => {
  it('the member of an output id, at any step and iteration', () => {
    expect(memberOfOutputId('critic#1')).toBe('critic');
    expect(memberOfOutputId('critic#2.3')).toBe('critic');
    expect(memberOfOutputId('critic')).toBe('critic');
  });

  it('names the node, and the member when a member asks', () => {
    expect(waitingAt('draft')).toBe('draft');
    expect(waitingAt('draft', 'critic')).toBe('draft › member critic');
  });
});
