import { describe, expect, it } from 'vitest';
import { candidateFromValue, parseCandidate, parseJsonText, ParsedCandidate } from './parse-candidate';
import { jsonReply, textReply, toolCallReply } from './testing/fixtures';

const complete = { decision_type: 'complete', output: 'done' };
const read = { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'a' } };

describe('parsing a model reply into one candidate', () => {
  it('a native tool call becomes a tool_call decision', () => {
    expect(parseCandidate(toolCallReply([{ name: 'read_file', arguments: { path: 'a' } }]))).toEqual({ raw: read, tool_call_count: 1 });
  });

  it('several native tool calls are counted, so the parallel call is caught later', () => {
    const parsed = parseCandidate(toolCallReply([{ name: 'read_file', arguments: { path: 'a' } }, { name: 'write_file', arguments: {} }]));
    expect(parsed.tool_call_count).toBe(2);
    expect(parsed.raw).toEqual(read);
  });

  it('native tool calls win over any text the model also wrote', () => {
    const reply = { ...toolCallReply([{ name: 'read_file', arguments: { path: 'a' } }]), text: JSON.stringify(complete) };
    expect(parseCandidate(reply).raw).toEqual(read);
  });

  it('a JSON decision in the text parses; a tool call in JSON counts as one call', () => {
    expect(parseCandidate(jsonReply(complete))).toEqual({ raw: complete, tool_call_count: 0 });
    expect(parseCandidate(jsonReply(read))).toEqual({ raw: read, tool_call_count: 1 });
  });

  it('code fences are tolerated, with or without a json tag', () => {
    for (const text of [
      '```json\n{"decision_type":"complete","output":"done"}\n```',
      '```\n{"decision_type":"complete","output":"done"}\n```',
      '  ```json\n{"decision_type":"complete","output":"done"}```  ',
    ]) {
      expect(parseCandidate(textReply(text))).toEqual({ raw: complete, tool_call_count: 0 });
    }
  });

  it('prose around JSON is not guessed at: it is unparseable', () => {
    const parsed = parseCandidate(textReply('Here is my decision: {"decision_type":"complete","output":"done"}'));
    expect(parsed.parse_error).toMatch(/^the model (answered in prose|'s JSON is malformed)/);
    expect(parsed.raw).toBe('Here is my decision: {"decision_type":"complete","output":"done"}');
    expect(parsed.tool_call_count).toBe(0);
  });

  it('an empty or blank reply is unparseable', () => {
    for (const text of ['', '   \n\t', '```json\n\n```']) {
      expect(parseCandidate(textReply(text)).parse_error).toBe('the model returned an empty reply');
    }
  });

  it('a long unparseable reply is quoted only in part', () => {
    const parsed = parseCandidate(textReply(`x${'y'.repeat(200)}`));
    expect(parsed.parse_error).toMatch(/“xy{79}…”\)$/);
  });

  it('prose says it is prose, and broken JSON says where it breaks, never the parser\'s own message', () => {
    expect(parseCandidate(textReply('Sure! First I will read the notes.')).parse_error).toBe('the model answered in prose, not a JSON decision (its reply begins “Sure! First I will read the notes.”)');
    const cut = parseCandidate(textReply('{"decision_type": "tool_call", "tool_name": "read'));
    expect(cut.parse_error).toMatch(/^the model's JSON is malformed or cut off at line 1, column \d+: /);
    expect(cut.parse_error).not.toMatch(/Unexpected|SyntaxError|is not valid JSON/);
  });

  it('a JSON list of decisions counts every entry; an empty list is unparseable', () => {
    expect(parseCandidate(jsonReply([read, complete]))).toEqual({ raw: read, tool_call_count: 2, parse_error: undefined });
    expect(parseCandidate(jsonReply([complete]))).toEqual({ raw: complete, tool_call_count: 1, parse_error: undefined });
    expect(parseCandidate(jsonReply([]))).toMatchObject({ tool_call_count: 0, parse_error: 'empty list of decisions' });
  });

  it('JSON that is not a decision still parses: the schema check rejects it later', () => {
    expect(parseCandidate(jsonReply('complete'))).toEqual({ raw: 'complete', tool_call_count: 0 });
    expect(parseCandidate(jsonReply(null))).toEqual({ raw: null, tool_call_count: 0 });
  });

  it('a teacher replacement value is read the same way as a reply', () => {
    expect(candidateFromValue(read)).toEqual(parseCandidate(jsonReply(read)));
    expect(candidateFromValue([read, read])).toEqual(parseCandidate(jsonReply([read, read])));
    expect(candidateFromValue([])).toEqual(parseCandidate(jsonReply([])));
    expect(candidateFromValue(complete)).toEqual(parseCandidate(jsonReply(complete)));
  });

  it('every parse satisfies the ParsedCandidate contract', () => {
    for (const reply of [jsonReply(read), textReply('nope'), toolCallReply([{ name: 'x', arguments: 1 }]), jsonReply([])]) {
      expect(ParsedCandidate.safeParse(parseCandidate(reply)).success).toBe(true);
    }
  });

  it('parseJsonText reports why text is not JSON', () => {
    expect(parseJsonText('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonText('{"a":')).toMatchObject({ ok: false, error: expect.stringMatching(/^the model's JSON is malformed or cut off at line 1, column \d+: .+ \(its reply begins “\{"a":”\)$/) });
  });
});
