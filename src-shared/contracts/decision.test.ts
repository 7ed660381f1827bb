import { describe, expect, it } from 'vitest';
import { Decision, DECISION_LABELS, DECISION_TYPES, isToolCall } from './decision';

const VALID: Decision[] = [
  { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'a' }, confidence: 0.5 },
  { decision_type: 'ask_user', question: 'Which?' },
  { decision_type: 'present_result', content: 'Here.' },
  { decision_type: 'request_confirmation', message: 'Shall I?' },
  { decision_type: 'reroute', target: 'other', reason: '' },
  { decision_type: 'complete', output: '' },
];

describe('the Decision contract', () => {
  it('accepts one valid decision of every type', () => {
    for (const d of VALID) expect(Decision.parse(d)).toEqual(d);
    expect(new Set(VALID.map((d) => d.decision_type))).toEqual(new Set(DECISION_TYPES));
  });

  it('rejects unknown keys on every decision type (strict)', () => {
    for (const d of VALID) expect(Decision.safeParse({ ...d, rationale: 'hidden' }).success, d.decision_type).toBe(false);
  });

  it('rejects an unknown decision type or none at all', () => {
    expect(Decision.safeParse({ decision_type: 'shell', command: 'rm -rf /' }).success).toBe(false);
    expect(Decision.safeParse({ tool_name: 'read_file', arguments: {} }).success).toBe(false);
  });

  it('a tool call needs a non-empty tool name and an arguments object', () => {
    const base = { decision_type: 'tool_call', tool_name: 'read_file', arguments: {} };
    expect(Decision.safeParse(base).success).toBe(true);
    expect(Decision.safeParse({ ...base, tool_name: '' }).success).toBe(false);
    expect(Decision.safeParse({ ...base, arguments: '{"path":"a"}' }).success).toBe(false);
    expect(Decision.safeParse({ ...base, arguments: ['a'] }).success).toBe(false);
    expect(Decision.safeParse({ ...base, arguments: undefined }).success).toBe(false);
  });

  it('control responses need their text (except complete, whose output may be empty)', () => {
    expect(Decision.safeParse({ decision_type: 'ask_user', question: '' }).success).toBe(false);
    expect(Decision.safeParse({ decision_type: 'present_result', content: '' }).success).toBe(false);
    expect(Decision.safeParse({ decision_type: 'request_confirmation', message: '' }).success).toBe(false);
    expect(Decision.safeParse({ decision_type: 'reroute', target: '', reason: 'r' }).success).toBe(false);
    expect(Decision.safeParse({ decision_type: 'reroute', target: 't' }).success).toBe(false);
    expect(Decision.safeParse({ decision_type: 'complete' }).success).toBe(false);
  });

  it('confidence, when given, is between 0 and 1', () => {
    for (const confidence of [0, 1, 0.42]) expect(Decision.safeParse({ decision_type: 'complete', output: '', confidence }).success).toBe(true);
    for (const confidence of [-0.1, 1.01, '0.5']) expect(Decision.safeParse({ decision_type: 'complete', output: '', confidence }).success).toBe(false);
  });

  it('labels and the tool-call guard cover every type', () => {
    expect(Object.keys(DECISION_LABELS).sort()).toEqual([...DECISION_TYPES].sort());
    expect(VALID.filter(isToolCall).map((d) => d.decision_type)).toEqual(['tool_call']);
  });
});
