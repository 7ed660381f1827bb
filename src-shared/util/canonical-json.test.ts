import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';

describe('canonical JSON', () => {
  it('the same object with keys in another order is the same text', () => {
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('keys are sorted at every depth, including inside arrays', () => {
    expect(canonicalJson({ z: { y: 1, x: [{ d: 1, c: 2 }] }, a: null })).toBe('{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}');
  });

  it('array order is meaning, and is kept', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('primitives and absent values serialise as JSON does', () => {
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson(undefined)).toBeUndefined();
  });

  it('different values give different text', () => {
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: { b: 1 } })).not.toBe(canonicalJson({ 'a.b': 1 }));
  });
});
