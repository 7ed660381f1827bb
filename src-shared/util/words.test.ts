import { describe, expect, it } from 'vitest';
import { count, plural } from './words';

describe('counts in sentences', () => {
  it('says one and many, with the plural given when it is not the word and an s', () => {
    expect(plural(1, 'run')).toBe('1 run');
    expect(plural(0, 'run')).toBe('0 runs');
    expect(plural(2, 'child run')).toBe('2 child runs');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });

  it('groups thousands as the product speaks English, whatever the machine', () => {
    expect(count(999)).toBe('999');
    expect(plural(10_000, 'run')).toBe('10,000 runs');
    expect(plural(1_234_567, 'event')).toBe('1,234,567 events');
  });
});
