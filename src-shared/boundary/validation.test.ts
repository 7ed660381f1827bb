import { describe, expect, it } from 'vitest';
import { candidateFromValue, parseCandidate } from './parse-candidate';
import { describeIssues, validateCandidate, ValidationResult } from './validation';
import { FILE_TOOLS, offeredTool, snapshotOf, toolCallReply, textReply, READ_FILE, WRITE_FILE } from './testing/fixtures';

const validate = (value: unknown, snapshot = FILE_TOOLS, constraints = {}) => validateCandidate(candidateFromValue(value), snapshot, constraints);
const codes = (value: unknown, snapshot = FILE_TOOLS, constraints = {}) => validate(value, snapshot, constraints).result.issues.map((i) => i.code);
const call = (tool_name: string, args: unknown) => ({ decision_type: 'tool_call', tool_name, arguments: args });

describe('deterministic validation', () => {
  it('a valid tool call passes and carries the snapshotted tool and its schema hash', () => {
    const v = validate(call('read_file', { path: 'notes.txt' }));
    expect(v.result).toEqual({ ok: true, issues: [], schema_hash: READ_FILE.schema_hash });
    expect(v.tool).toBe(READ_FILE);
    expect(v.decision).toEqual(call('read_file', { path: 'notes.txt' }));
  });

  it('every control response passes without a tool', () => {
    for (const d of [
      { decision_type: 'ask_user', question: 'Which file?' },
      { decision_type: 'present_result', content: 'Here it is' },
      { decision_type: 'request_confirmation', message: 'Shall I?' },
      { decision_type: 'reroute', target: 'mailer', reason: 'needs mail' },
      { decision_type: 'complete', output: '' },
    ]) {
      const v = validate(d);
      expect(v.result).toEqual({ ok: true, issues: [] });
      expect(v.tool).toBeUndefined();
    }
  });

  it('an unparseable reply is reported, not repaired', () => {
    const v = validateCandidate(parseCandidate(textReply('Sure, I will read it.')), FILE_TOOLS);
    expect(v.result.ok).toBe(false);
    expect(v.result.issues).toEqual([{ code: 'unparseable', message: expect.stringMatching(/^the model (answered in prose|'s JSON is malformed)/) }]);
    expect(v.decision).toBeUndefined();
  });

  it('schema errors carry the path of the offending field', () => {
    const v = validate({ decision_type: 'reroute', target: '' });
    expect(v.result.issues).toEqual([
      { code: 'schema', path: 'target', message: expect.any(String) },
      { code: 'schema', path: 'reason', message: expect.any(String) },
    ]);
    expect(describeIssues(v.result.issues)).toMatch(/^not the decision format at target: .+; not the decision format at reason: /);
  });

  it('a decision with unknown keys or an unknown type fails the decision schema', () => {
    expect(codes({ ...call('read_file', { path: 'a' }), thought: 'hidden reasoning' })).toEqual(['schema']);
    expect(codes({ decision_type: 'launch_rockets' })).toEqual(['schema']);
    expect(codes('complete')).toEqual(['schema']);
    expect(codes(call('read_file', ['a']))).toEqual(['schema']);
  });

  it('two tool calls in one round are rejected before anything else is looked at', () => {
    const native = validateCandidate(parseCandidate(toolCallReply([{ name: 'read_file', arguments: { path: 'a' } }, { name: 'nope', arguments: 1 }])), FILE_TOOLS);
    expect(native.result.issues.map((i) => i.code)).toEqual(['parallel_tool_calls']);
    expect(native.result.issues[0]?.message).toMatch(/^2 tool calls in one round/);
    expect(codes([call('read_file', { path: 'a' }), call('read_file', { path: 'b' })])).toEqual(['parallel_tool_calls']);
  });

  it('a tool that was not offered this round is rejected, naming what was offered', () => {
    const v = validate(call('delete_everything', {}));
    expect(v.result.issues).toEqual([{ code: 'tool_not_offered', message: 'tool "delete_everything" was not offered this round (offered: read_file, write_file)' }]);
    expect(validate(call('read_file', { path: 'a' }), snapshotOf([])).result.issues[0]?.message).toMatch(/offered: none/);
  });

  describe('arguments against the snapshotted input schema', () => {
    it('draft-07: type, required, minLength and additionalProperties, each with its path', () => {
      expect(validate(call('read_file', {})).result.issues).toEqual([{ code: 'arguments_invalid', path: 'path', message: "must have required property 'path'" }]);
      expect(validate(call('read_file', { path: '' })).result.issues).toEqual([{ code: 'arguments_invalid', path: 'path', message: 'must NOT have fewer than 1 characters' }]);
      expect(validate(call('read_file', { path: 'a', mode: 'rw' })).result.issues).toEqual([{ code: 'arguments_invalid', path: 'mode', message: 'unexpected property "mode"' }]);
      expect(validate(call('read_file', { path: 'a' })).result.ok).toBe(true);
    });

    it('2020-12: all errors are reported, with the schema hash of the round', () => {
      const v = validate(call('write_file', { path: 3 }));
      expect(v.result).toEqual({
        ok: false,
        schema_hash: WRITE_FILE.schema_hash,
        issues: [
          { code: 'arguments_invalid', path: 'content', message: "must have required property 'content'" },
          { code: 'arguments_invalid', path: 'path', message: 'must be string' },
        ],
      });
    });

    it('2020-12 keywords are enforced, not ignored as unknown draft-07 keywords', () => {
      const tool = offeredTool({
        name: 'move',
        effect: 'reversible_write',
        schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
          $defs: { unused: { type: 'string' } },
          dependentRequired: { to: ['from'] },
          required: ['pair'],
        },
      });
      const snap = snapshotOf([tool]);
      expect(validate(call('move', { pair: ['a', 1] }), snap).result.ok).toBe(true);
      expect(validate(call('move', { pair: [1, 'a'] }), snap).result.issues.map((i) => i.path)).toEqual(['pair.0', 'pair.1']);
      expect(validate(call('move', { pair: ['a', 1], to: 'x' }), snap).result.issues).toEqual([
        { code: 'arguments_invalid', path: undefined, message: 'must have property from when property to is present' },
      ]);
    });

    it('draft-07 tuple items and nested objects report nested paths', () => {
      const tool = offeredTool({
        name: 'plot',
        effect: 'read',
        schema: {
          type: 'object',
          properties: {
            point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }] },
            style: { type: 'object', properties: { color: { enum: ['red', 'blue'] } }, required: ['color'] },
          },
        },
      });
      const snap = snapshotOf([tool]);
      const issues = validate(call('plot', { point: [1, 'two'], style: { color: 'green' } }), snap).result.issues;
      expect(issues.map((i) => i.path)).toEqual(['point.1', 'style.color']);
      expect(validate(call('plot', { style: {} }), snap).result.issues.map((i) => i.path)).toEqual(['style.color']);
    });

    it('a schema nobody can compile fails closed instead of letting arguments through', () => {
      const tool = offeredTool({ name: 'weird', effect: 'read', schema: { type: 'object', properties: { a: { type: 'no-such-type' } } } });
      const v = validate(call('weird', { a: 1 }), snapshotOf([tool]));
      expect(v.result.ok).toBe(false);
      expect(v.result.issues[0]).toMatchObject({ code: 'arguments_invalid', message: expect.stringMatching(/^the tool's input schema cannot be used/) });
      // In words: which keyword, what it must be; never Ajv's "schema is invalid: data/…".
      expect(v.result.issues[0]?.message).toMatch(/its “properties\.a\.type” must be one of .*string/);
      expect(v.result.issues[0]?.message).not.toMatch(/schema is invalid|data\/|must be equal to one of the allowed values/);
    });

    it('a changed schema under a new hash is the one applied: validation follows the snapshot', () => {
      const v1 = offeredTool({ name: 'tag', effect: 'read', schema: { type: 'object', properties: { n: { type: 'string' } } } });
      const v2 = offeredTool({ name: 'tag', effect: 'read', schema: { type: 'object', properties: { n: { type: 'number' } } } });
      expect(v1.schema_hash).not.toBe(v2.schema_hash);
      expect(validate(call('tag', { n: 'x' }), snapshotOf([v1])).result.ok).toBe(true);
      expect(validate(call('tag', { n: 'x' }), snapshotOf([v2])).result.ok).toBe(false);
      expect(validate(call('tag', { n: 'x' }), snapshotOf([v1])).result.ok).toBe(true);
    });
  });

  describe('phase and plan constraints', () => {
    it('a tool outside the approved allowed_tools is a phase constraint, even if offered and valid', () => {
      const v = validate(call('write_file', { path: 'a', content: 'b' }), FILE_TOOLS, { allowed_tools: ['read_file'] });
      expect(v.result.issues).toEqual([{ code: 'phase_constraint', message: 'tool "write_file" is outside the approved plan\'s allowed tools' }]);
      expect(v.tool).toBe(WRITE_FILE);
      expect(validate(call('read_file', { path: 'a' }), FILE_TOOLS, { allowed_tools: ['read_file'] }).result.ok).toBe(true);
    });

    it('an empty allowed_tools list allows no tool at all', () => {
      expect(codes(call('read_file', { path: 'a' }), FILE_TOOLS, { allowed_tools: [] })).toEqual(['phase_constraint']);
    });

    it('a decision type outside allowed_decisions is a phase constraint', () => {
      expect(codes({ decision_type: 'complete', output: 'done' }, FILE_TOOLS, { allowed_decisions: ['tool_call', 'ask_user'] })).toEqual(['phase_constraint']);
      expect(validate({ decision_type: 'ask_user', question: 'ok?' }, FILE_TOOLS, { allowed_decisions: ['tool_call', 'ask_user'] }).result.ok).toBe(true);
    });

    it('an unoffered tool is reported as not offered, not as a plan violation', () => {
      expect(codes(call('format_disk', {}), FILE_TOOLS, { allowed_tools: ['read_file'] })).toEqual(['tool_not_offered']);
    });
  });

  it('every result satisfies the ValidationResult contract', () => {
    for (const value of [call('read_file', { path: 'a' }), call('write_file', {}), 'x', [], call('zz', {})]) {
      const v = validate(value);
      expect(ValidationResult.parse(v.result)).toEqual(v.result);
    }
  });

  it('describeIssues renders the code in words, the path and the message', () => {
    expect(describeIssues([])).toBe('');
    expect(describeIssues([{ code: 'tool_not_offered', message: 'm' }, { code: 'arguments_invalid', path: 'a.b', message: 'n' }])).toBe(
      'a tool not offered this round: m; arguments the tool refuses at a.b: n',
    );
  });
});
