import { describe, expect, it } from 'vitest';
import { candidateFromValue, parseCandidate } from '../boundary/parse-candidate';
import { SEND_EMAIL } from '../boundary/testing/fixtures';
import { parseVerdict } from '../boundary/verdict';
import { ModelScript } from '../contracts/script';
import { canonicalJson } from './canonical-json';
import { MAX_JSON_DEPTH, jsonDepthExceeds, parseJsonBounded } from './json-depth';
import { maskArguments } from './mask';
import { redactToolArguments } from './redact';

/** 100,000 levels: far past any call stack, so only a bound (not luck) gives a clear answer. */
const DEEP_TEXT = '['.repeat(100_000) + ']'.repeat(100_000);
const deep = (): unknown => JSON.parse(DEEP_TEXT);
const TOO_DEEP = /JSON nested deeper than \d+ levels/;

describe('JSON nested 100,000 levels deep gives a clear error at every entry point, never a stack overflow', () => {
  it('the depth check itself is iterative and exact at the bound', () => {
    const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds(deep())).toBe(true);
    expect(() => parseJsonBounded(DEEP_TEXT)).toThrow(TOO_DEEP);
  });

  it('a model reply whose text is that deep is an unparseable candidate that says why', () => {
    const parsed = parseCandidate({ text: DEEP_TEXT, tool_calls: [], model: 'm' });
    expect(parsed.parse_error).toMatch(TOO_DEEP);
    expect(parsed.raw).toBeUndefined();
  });

  it('native tool-call arguments that deep are an unparseable candidate too', () => {
    const parsed = parseCandidate({ text: '', tool_calls: [{ name: 'x', arguments: { a: deep() } }], model: 'm' });
    expect(parsed.parse_error).toMatch(TOO_DEEP);
  });

  it('a teacher verdict or replacement that deep is a malformed verdict / unparseable candidate', () => {
    const verdict = parseVerdict({ text: `{"verdict":"replace","replacement":${DEEP_TEXT}}`, tool_calls: [], model: 'm' });
    expect(verdict.ok === false && verdict.error).toMatch(TOO_DEEP);
    expect(candidateFromValue({ decision_type: 'tool_call', arguments: deep() }).parse_error).toMatch(TOO_DEEP);
  });

  it('a replay script entry that deep fails the script contract', () => {
    const parsed = ModelScript.safeParse({ student: [{ json: deep() }] });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(TOO_DEEP);
  });

  it('the walkers (canonical JSON, masking, redaction) throw the typed error', () => {
    expect(() => canonicalJson(deep())).toThrow(TOO_DEEP);
    expect(() => maskArguments({ a: deep() }, ['b'])).toThrow(TOO_DEEP);
    expect(() => redactToolArguments({ x: deep() }, { tools: [SEND_EMAIL] })).toThrow(TOO_DEEP);
  });
});
