import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';
import { maskArguments } from './mask';
import { boundTexts } from './trim-text';
import { substituteVars } from './substitute';
import { redactForEscalation } from '../supervisor/redaction';
import { setOwn } from './set-own';

/**
 * Issue 27: data is never read through, nor written into, an object's prototype. JSON a person, a model
 * or a server sends may hold the key "__proto__" (JSON.parse makes it an own key); every walker that
 * copies such data key by key keeps it as data: the copy has it, its value answers for no other key,
 * and the copy's prototype is still Object.prototype.
 */
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const keys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'path', 'topic');
/** JSON objects whose keys include the dangerous ones, nested. */
const hostile = fc.letrec((tie) => ({
  // No "${": substituteVars rightly refuses a variable nobody defined, which is not what this property is about.
  value: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 8 }).filter((t) => !t.includes('${')), fc.integer(), tie('object')),
  object: fc.array(fc.tuple(keys, tie('value')), { maxLength: 4 }).map((entries) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) setOwn(out, k, v);
    return out;
  }),
})).object;

const copies: Array<[string, (v: Record<string, unknown>) => unknown]> = [
  ['maskArguments', (v) => maskArguments(v, ['nothing-sensitive'])],
  ['boundTexts', (v) => boundTexts({ a: v }, ['a']).value],
  ['substituteVars', (v) => substituteVars(v, {}, 'test')],
  ['redactForEscalation', (v) => redactForEscalation(v, ['zz-secret-not-there'])],
];

describe('a "__proto__" key in data stays data', () => {
  it('setOwn keeps it as an own key, leaves the prototype alone', () => {
    const out: Record<string, unknown> = {};
    setOwn(out, '__proto__', { topic: 'x' });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(out.topic).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"topic":"x"}}');
  });

  for (const [name, copy] of copies) {
    it(`${name} copies every key as data and gives the copy no prototype of the data`, () => {
      fc.assert(
        fc.property(hostile, (value) => {
          const text = JSON.stringify(value);
          const copied = copy(json(text));
          const asJson = name === 'boundTexts' ? JSON.stringify((copied as { a: unknown }).a) : JSON.stringify(copied);
          expect(asJson).toBe(text);
          const top = name === 'boundTexts' ? (copied as { a: object }).a : (copied as object);
          expect(Object.getPrototypeOf(top)).toBe(Object.prototype);
        }),
      );
    });
  }

  it('canonical JSON (what an idempotency key hashes) keeps a "__proto__" argument: different arguments, different text', () => {
    expect(canonicalJson(json('{"__proto__":{"a":1},"b":2}'))).not.toBe(canonicalJson(json('{"b":2}')));
    expect(canonicalJson(json('{"__proto__":{"a":1},"b":2}'))).toBe('{"__proto__":{"a":1},"b":2}');
  });
});
