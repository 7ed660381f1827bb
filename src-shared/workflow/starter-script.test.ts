import { describe, expect, it } from 'vitest';
import { Decision, DECISION_TYPES } from '../contracts/decision';
import { ModelScript } from '../contracts/script';
import { TeacherVerdict } from '../contracts/verdict';
import { argumentsFor, DECISION_HELP, starterScript, starterTool, type OfferedTool } from './starter-script';

const tool = (name: string, required: string[], props: Record<string, unknown>, extra: Partial<OfferedTool> = {}): OfferedTool => ({ name, input_schema: { type: 'object', properties: props, required }, ...extra });
const write = tool('write_file', ['path', 'content'], { path: { type: 'string' }, content: { type: 'string' } }, { hints: { readOnlyHint: false, destructiveHint: true } });
const read = tool('read_text_file', ['path'], { path: { type: 'string' }, head: { type: 'number' } }, { hints: { readOnlyHint: true } });
const search = tool('search_files', ['path', 'pattern'], { path: { type: 'string' }, pattern: { type: 'string' } }, { effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] } });

describe('a starter replay script for an agent without a model server', () => {
  it('reads once with a read-only tool the node may call, then completes: every entry a valid decision', () => {
    const script = starterScript([write, search, read], { folder: '/home/me/notes', teacher: false });
    expect(ModelScript.parse(script)).toEqual(script);
    const decisions = script.student.map((e) => Decision.parse(e.json));
    expect(decisions.map((d) => d.decision_type)).toEqual(['tool_call', 'complete']);
    // Read-only by its annotation, and it needs fewer arguments than search_files.
    expect(decisions[0]).toEqual({ decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '/home/me/notes' } });
    expect(script.teacher).toEqual([]);
  });

  it('with a replayed teacher, the teacher accepts what it is asked about, in the verdict schema', () => {
    const script = starterScript([read], { teacher: true });
    expect(script.teacher.length).toBe(script.student.length);
    for (const e of script.teacher) expect(TeacherVerdict.parse(e.json).verdict).toBe('accept');
  });

  it('with no tool known it just completes; with no read-only tool it still reads with one it may call', () => {
    expect(starterScript([], { teacher: false }).student.map((e) => Decision.parse(e.json).decision_type)).toEqual(['complete']);
    expect(starterTool([write])?.name).toBe('write_file');
    expect(starterTool([write, search])?.name).toBe('search_files');
  });

  it("fills every required argument from the tool's input schema: default, example, choice, or a stand-in of its type", () => {
    const t = tool('query', ['limit', 'mode', 'tags', 'deep', 'where', 'dir', 'q'], {
      limit: { type: 'integer', minimum: 5 },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      tags: { type: 'array', items: { type: 'string' } },
      deep: { type: 'boolean' },
      where: { type: 'object', properties: { near: { type: 'string', default: 'here' } }, required: ['near'] },
      dir: { type: 'string' },
      q: { type: 'string', examples: ['cats'] },
      optional: { type: 'string' },
    });
    expect(argumentsFor(t, '/w')).toEqual({ limit: 5, mode: 'fast', tags: ['the tags'], deep: false, where: { near: 'here' }, dir: '/w', q: 'cats' });
  });

  it('explains every decision type in words', () => {
    expect(Object.keys(DECISION_HELP).sort()).toEqual([...DECISION_TYPES].sort());
    for (const text of Object.values(DECISION_HELP)) expect(text.length).toBeGreaterThan(20);
  });
});
