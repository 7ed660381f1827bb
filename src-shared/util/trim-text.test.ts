import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundTexts, storedWhole, trimText, utf8Bytes } from './trim-text';

const encoder = new TextEncoder();
const byteLength = (s: string) => encoder.encode(s).length;

describe('stored model text is bounded, its original size kept', () => {
  it('utf8Bytes agrees with the platform encoder for any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => utf8Bytes(s) === byteLength(s)));
    expect(utf8Bytes('a\u00e9\u20ac\u{1f600}')).toBe(1 + 2 + 3 + 4);
  });

  it('a trimmed text keeps at most `limit` bytes of the original, never half a character, and names the original size', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 1, max: 200 }), (s, limit) => {
        const out = trimText(s, limit);
        expect(out.original_bytes).toBe(byteLength(s));
        if (!out.trimmed) return out.text === s && out.original_bytes <= limit;
        const kept = out.text.slice(0, out.text.indexOf('\n… [trimmed'));
        expect(s.startsWith(kept)).toBe(true);
        expect(byteLength(kept)).toBeLessThanOrEqual(limit);
        // No lone surrogate: the kept text encodes and decodes to itself.
        expect(new TextDecoder().decode(encoder.encode(kept))).toBe(kept);
        return out.text.endsWith(`${out.original_bytes} bytes in full]`);
      }),
    );
  });

  it('only the named paths are bounded, every string under them, and each trim is listed by its path', () => {
    const big = 'z'.repeat(100);
    const value = { reply: { text: big, tool_calls: [{ arguments: { content: big } }] }, context: [{ content: big }], small: 'ok' };
    const { value: out, trimmed } = boundTexts(value, ['reply', 'missing.path'], 10);
    expect(trimmed).toEqual([
      { path: 'reply.text', original_bytes: 100 },
      { path: 'reply.tool_calls.0.arguments.content', original_bytes: 100 },
    ]);
    expect(out.reply.text.startsWith('zzzzzzzzzz\n…')).toBe(true);
    expect(out.context).toBe(value.context);
    expect(value.reply.text).toBe(big);
  });

  it('`*` walks every element of an array; nothing to trim returns the very same value', () => {
    const value = { rounds: [{ candidate: 'short' }, { candidate: 'x'.repeat(50) }] };
    const { value: out, trimmed } = boundTexts(value, ['rounds.*.candidate'], 20);
    expect(trimmed).toEqual([{ path: 'rounds.1.candidate', original_bytes: 50 }]);
    expect(out.rounds[0]).toBe(value.rounds[0]);
    expect(boundTexts(value, ['rounds.*.candidate'], 100).value).toBe(value);
  });

  it('any value under a path comes back as trimming each of its strings gives, keys in their order, and what holds nothing to trim is the very same object', () => {
    // The plain reading of the rule, to check the walk that skips short texts and copies only what changes against.
    const reference = (v: unknown, at: string, trimmed: { path: string; original_bytes: number }[], limit: number): unknown => {
      if (typeof v === 'string') {
        const t = trimText(v, limit);
        if (t.trimmed) trimmed.push({ path: at, original_bytes: t.original_bytes });
        return t.text;
      }
      if (Array.isArray(v)) return v.map((item, i) => reference(item, `${at}.${i}`, trimmed, limit));
      if (v === null || typeof v !== 'object') return v;
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, reference(item, `${at}.${k}`, trimmed, limit)]));
    };
    const untouched = (before: unknown, after: unknown, limit: number): boolean => {
      const fits = JSON.stringify(before) === JSON.stringify(reference(before, '', [], limit));
      if (fits) return before === after;
      if (Array.isArray(before)) return before.every((item, i) => untouched(item, (after as unknown[])[i], limit));
      if (before === null || typeof before !== 'object') return true;
      return Object.entries(before).every(([k, item]) => untouched(item, (after as Record<string, unknown>)[k], limit));
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: 'grapheme' }), fc.integer({ min: 1, max: 40 }), (json, limit) => {
        const value = { a: { b: json }, c: json };
        const expected: { path: string; original_bytes: number }[] = [];
        const want = reference(json, 'a.b', expected, limit);
        const { value: out, trimmed } = boundTexts(value, ['a.b'], limit);
        expect(JSON.stringify(out.a.b)).toBe(JSON.stringify(want));
        expect(trimmed).toEqual(expected);
        expect(out.c).toBe(json);
        expect(untouched(json, out.a.b, limit)).toBe(true);
      }),
    );
  });
});

describe('storedWhole', () => {
  it('says exactly when trimText keeps a text whole, at any limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 400 }), (text, limit) => {
        expect(storedWhole(text, limit)).toBe(!trimText(text, limit).trimmed);
      }),
    );
  });
});
