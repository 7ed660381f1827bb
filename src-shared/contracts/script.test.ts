import { describe, expect, it } from 'vitest';
import { ModelScript, ScriptEntry } from './script';

describe('the scripted-model contract (the replay double)', () => {
  it('an entry holds exactly one of json, text, tool_calls or error', () => {
    expect(ScriptEntry.safeParse({ json: { decision_type: 'complete', output: '' } }).success).toBe(true);
    expect(ScriptEntry.safeParse({ text: 'not json' }).success).toBe(true);
    expect(ScriptEntry.safeParse({ tool_calls: [{ name: 'a', arguments: {} }] }).success).toBe(true);
    expect(ScriptEntry.safeParse({ error: 'boom' }).success).toBe(true);
    expect(ScriptEntry.safeParse({}).success).toBe(false);
    expect(ScriptEntry.safeParse({ text: 'a', error: 'b' }).success).toBe(false);
    expect(ScriptEntry.safeParse({ tool_calls: [] }).success).toBe(false);
  });

  it('json: null still counts as the one response', () => {
    expect(ScriptEntry.safeParse({ json: null }).success).toBe(true);
  });

  it('a script defaults to no latency and empty role scripts', () => {
    expect(ModelScript.parse({})).toEqual({ latency_ms: 0, student: [], teacher: [], committee: [], monitor: [] });
    expect(ModelScript.safeParse({ latency_ms: 60_001 }).success).toBe(false);
  });
});
