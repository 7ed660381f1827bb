import { describe, expect, it } from 'vitest';
import { parseCandidate } from '../boundary/parse-candidate';
import { SEND_EMAIL } from '../boundary/testing/fixtures';
import { MASK } from './mask';
import { redactToolArguments } from './redact';
import { maskSensitiveText, sensitiveValuesInText } from './sensitive-text';

const names = new Set(['to']);
const snapshot = { tools: [SEND_EMAIL] };
const ADDRESS = 'boss.secret@example.com';

describe('sensitive fields in text that is not a decision', () => {
  it('a field in prose around JSON is found and masked', () => {
    const text = `Sure: {"decision_type":"tool_call","tool_name":"send_email","arguments":{"to":"${ADDRESS}","body":"hi"}} ok`;
    expect(sensitiveValuesInText(text, names)).toEqual([ADDRESS]);
    expect(maskSensitiveText(text, names, [])).not.toContain(ADDRESS);
    expect(maskSensitiveText(text, names, [])).toContain(`"to":"${MASK}"`);
  });

  it('a field cut off mid-value (a parse error preview) is masked to the cut', () => {
    const head = '{"tool_name":"send_email","arguments":{"body":"x","to":"';
    // The preview keeps 80 characters: the address is cut after its first 10.
    const reply = `${head.replace('"x"', `"${'x'.repeat(70 - head.length)}"`)}${ADDRESS}","more":`;
    const parsed = parseCandidate({ text: reply, tool_calls: [], model: 'm' });
    const cut = ADDRESS.slice(0, 10);
    expect(parsed.parse_error).toContain(cut);
    const redacted = redactToolArguments(parsed, snapshot);
    expect(JSON.stringify(redacted)).not.toContain(cut);
  });

  it('a field inside a JSON string (arguments sent as a string) is found, and its escaped forms masked', () => {
    const inner = JSON.stringify({ to: ADDRESS, body: 'hi' });
    const text = JSON.stringify({ tool_name: 'send_email', arguments: inner });
    expect(sensitiveValuesInText(text, names)).toEqual([ADDRESS]);
    expect(maskSensitiveText(text, names, [ADDRESS])).not.toContain(ADDRESS);
  });

  it('a structured value under a sensitive name has all its strings found', () => {
    const text = `oops {"to": ["${ADDRESS}", {"name": "Second Person"}]`;
    expect(sensitiveValuesInText(text, names).sort()).toEqual([ADDRESS, 'Second Person', 'name'].sort());
  });

  it('native tool-call arguments given as a JSON string are masked and reported', () => {
    const found: string[] = [];
    const reply = { text: '', tool_calls: [{ name: 'send_email', arguments: JSON.stringify({ to: ADDRESS, body: 'hi' }) }], model: 'm' };
    const redacted = redactToolArguments(reply, snapshot, (v) => found.push(v));
    expect(found).toEqual([ADDRESS]);
    expect(JSON.parse(redacted.tool_calls[0]?.arguments as string)).toEqual({ to: MASK, body: 'hi' });
  });

  it('a value found in one place is masked everywhere else in the same value', () => {
    const record = { reply: { text: `{"tool_name":"send_email","arguments":{"to":"${ADDRESS}"}`, tool_calls: [], model: 'm' }, note: `mail ${ADDRESS} now` };
    expect(JSON.stringify(redactToolArguments(record, snapshot))).not.toContain(ADDRESS);
  });

  it('short values are masked where located, not searched for in other text', () => {
    const text = '{"to":"bob"} and bob said hi';
    expect(maskSensitiveText(text, names, ['bob'])).toBe(`{"to":"${MASK}"} and bob said hi`);
  });
});
