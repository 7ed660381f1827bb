import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decision } from '@shared/contracts/decision';
import type { HistoryEntry } from '@shared/contracts/history';
import type { OfferedTool, ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { TeacherVerdict } from '@shared/contracts/verdict';
import { parseCandidate } from '@shared/boundary/parse-candidate';
import { validateCandidate } from '@shared/boundary/validation';
import { buildStudentMessages, buildStudentPrompt, buildTeacherMessages, buildTeacherPrompt, decisionJsonSchema, verdictJsonSchema, type TeacherReview } from './prompts';

const readTool: OfferedTool = {
  name: 'read_text_file',
  server: 'fs',
  description: 'Read a text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  schema_hash: 'hash-read-0001',
  effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] },
  effect_source: 'shipped',
};
const writeTool: OfferedTool = {
  name: 'write_file',
  server: 'fs',
  description: 'Create or overwrite a file.',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  schema_hash: 'hash-write-0001',
  effect: { effect: 'reversible_write', requires_user_confirmation: true, idempotency_supported: false, sensitive_arguments: [] },
  effect_source: 'shipped',
};
const snapshot: ToolSnapshot = { round: 2, tools: [readTool, writeTool], hash: 'snapshot-hash-0001' };

const history: HistoryEntry[] = [
  { index: 0, round: 0, decision: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'notes.md' } }, result: '# Notes\nbuy milk' },
  { index: 1, round: 1, decision: { decision_type: 'ask_user', question: 'Where should the summary go?' }, result: 'summary.md please' },
];

const base = { instructions: 'You tidy up notes in the workspace.', task: 'Summarise notes.md into summary.md', snapshot, history };

describe('student prompt', () => {
  it('states the rules, every decision type and each offered tool with its effect class and input schema', () => {
    const [system, task] = buildStudentMessages(base);
    expect(system?.role).toBe('system');
    const text = system?.content ?? '';
    expect(text).toContain('You tidy up notes in the workspace.');
    expect(text).toContain('exactly one decision');
    expect(text).toContain('exactly one JSON object');
    for (const type of ['tool_call', 'ask_user', 'present_result', 'request_confirmation', 'reroute', 'complete']) {
      expect(text).toContain(`"decision_type":"${type}"`);
    }
    expect(text).toContain('- read_text_file [effect: read]: Read a text file from the workspace.');
    expect(text).toContain('- write_file [effect: reversible_write, needs user confirmation]');
    expect(text).toContain(JSON.stringify(writeTool.input_schema));
    expect(task).toEqual({ role: 'user', content: 'Task: Summarise notes.md into summary.md' });
  });

  it('replays canonical history as the assistant’s decisions and what came back, in order', () => {
    const messages = buildStudentMessages(base);
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: JSON.stringify(history[0]?.decision) },
      { role: 'tool', content: '# Notes\nbuy milk' },
      { role: 'assistant', content: JSON.stringify(history[1]?.decision) },
      { role: 'user', content: 'summary.md please' },
    ]);
  });

  it('every assistant turn is a committed decision: the student never sees a candidate that was not selected', () => {
    const rejected = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: '/etc/passwd', content: 'x' } };
    const messages = buildStudentMessages({ ...base, feedback: 'arguments_invalid at path: must be inside the workspace' });
    const assistantTurns = messages.filter((m) => m.role === 'assistant').map((m) => Decision.parse(JSON.parse(m.content)));
    expect(assistantTurns).toEqual(history.map((h) => h.decision));
    expect(JSON.stringify(messages)).not.toContain('/etc/passwd');
    expect(JSON.stringify(messages)).not.toContain(JSON.stringify(rejected));
  });

  it('ends with the feedback about the previous answer, so the student can repair it', () => {
    const messages = buildStudentMessages({ ...base, feedback: 'tool_not_offered: tool "delete_file" was not offered this round' });
    const last = messages.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content).toContain('tool_not_offered: tool "delete_file" was not offered this round');
    expect(buildStudentMessages(base).at(-1)?.role).toBe('user');
    expect(buildStudentMessages(base)).toHaveLength(6);
  });

  it('marks a failed tool result as an error and cuts an oversized one, saying so', () => {
    const big = 'x'.repeat(10_000);
    const messages = buildStudentMessages({
      ...base,
      history: [{ index: 0, round: 0, decision: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'big' } }, result: big, result_is_error: true }],
    });
    const tool = messages.find((m) => m.role === 'tool');
    expect(tool?.content.startsWith('Error: ')).toBe(true);
    expect(tool?.content.length).toBeLessThan(big.length);
    expect(tool?.content).toContain('more characters cut');
  });

  it('with no tools offered it says so instead of listing any', () => {
    const [system] = buildStudentMessages({ ...base, snapshot: { round: 0, tools: [], hash: 'snapshot-empty' } });
    expect(system?.content).toContain('No tools are offered this round');
  });

  it('in tools mode it asks for one native tool call instead of a JSON tool_call', () => {
    const [system] = buildStudentMessages({ ...base, mode: 'tools' });
    expect(system?.content).toContain('exactly one native tool call');
  });

  it('is a pure function of its input: same input, same messages, input untouched', () => {
    const input = structuredClone({ ...base, feedback: 'fix it' });
    const frozen = structuredClone(input);
    expect(buildStudentMessages(input)).toEqual(buildStudentMessages(input));
    expect(input).toEqual(frozen);
  });
});

function reviewOf(text: string, extra: Partial<TeacherReview> = {}): TeacherReview {
  const reply = { text, tool_calls: [], model: 'replay' };
  const parsed = parseCandidate(reply);
  const validation = validateCandidate(parsed, snapshot).result;
  return { reply, parsed, validation, rule: 'protected_effect', attempt: 1, ...extra };
}

describe('teacher prompt', () => {
  it('gives the teacher its role, the verdict contract, reason codes and the tools with their effects', () => {
    const [system] = buildTeacherMessages({ ...base, review: reviewOf('{"decision_type":"complete","output":"done"}') });
    const text = system?.content ?? '';
    expect(text).toContain('You are the teacher');
    expect(text).toContain('exactly one JSON verdict');
    for (const v of ['accept', 'replace', 'block', 'escalate']) expect(text).toContain(`- ${v}:`);
    for (const code of ['wrong_tool', 'invalid_arguments', 'unsafe_effect', 'premature_completion', 'hallucination']) expect(text).toContain(code);
    expect(text).toContain('write_file [effect: reversible_write, needs user confirmation]');
    expect(text).toContain('You tidy up notes in the workspace.');
  });

  it('shows the task, the committed history, the raw candidate, its validation and the rule that fired', () => {
    const candidate = '{"decision_type":"tool_call","tool_name":"write_file","arguments":{"path":"summary.md","content":"milk"}}';
    const [, user] = buildTeacherMessages({ ...base, review: reviewOf(candidate) });
    const text = user?.content ?? '';
    expect(text).toContain('Task: Summarise notes.md into summary.md');
    expect(text).toContain('1. {"decision_type":"tool_call","tool_name":"read_text_file"');
    expect(text).toContain('result: # Notes buy milk');
    expect(text).toContain(`raw reply: ${candidate}`);
    expect(text).toContain('## Deterministic validation\npassed');
    expect(text).toContain('protected_effect: protected effect: always reviewed');
    expect(text).not.toContain('## Attempt');
  });

  it('describes an entry as it is now, round after round: a result that settles later, or an entry moved, is described anew', () => {
    const entry: HistoryEntry = { index: 0, round: 0, decision: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'a.md' } } };
    const userText = (history: HistoryEntry[]) => buildTeacherMessages({ ...base, history, review: reviewOf('{"decision_type":"complete","output":"done"}') })[1]?.content ?? '';
    expect(userText([entry])).not.toContain('result:');
    expect(userText([{ ...entry, result: 'first text' }])).toContain('result: first text');
    expect(userText([{ ...entry, result: 'failed', result_is_error: true }])).toContain('error: failed');
    expect(userText([{ ...entry, index: 4, result: 'first text' }])).toContain('5. {"decision_type":"tool_call"');
  });

  it('for an invalid candidate it gives the validation issues and says accept is impossible', () => {
    const review = reviewOf('{"decision_type":"tool_call","tool_name":"delete_file","arguments":{}}', { rule: 'validation_failed' });
    const [, user] = buildTeacherMessages({ ...base, review });
    expect(user?.content).toContain('failed — a tool not offered this round');
    expect(user?.content).toContain('accept is impossible');
    expect(user?.content).toContain('validation failed: teacher may repair');
  });

  it('shows native tool calls as such and points out parallel calls', () => {
    const reply = {
      text: '',
      tool_calls: [
        { name: 'read_text_file', arguments: { path: 'a' } },
        { name: 'read_text_file', arguments: { path: 'b' } },
      ],
      model: 'replay',
    };
    const parsed = parseCandidate(reply);
    const review: TeacherReview = { reply, parsed, validation: validateCandidate(parsed, snapshot).result, rule: 'validation_failed', attempt: 1 };
    const [, user] = buildTeacherMessages({ ...base, review });
    expect(user?.content).toContain('native tool calls (2)');
    expect(user?.content).toContain('only one per round is allowed');
  });

  it('on a re-ask it tells the teacher what was wrong with its previous verdict', () => {
    const review = reviewOf('{"decision_type":"complete","output":"done"}', { attempt: 2, previous_problem: 'malformed verdict: reason_codes: Required' });
    const [, user] = buildTeacherMessages({ ...base, review });
    expect(user?.content).toContain('## Attempt 2');
    expect(user?.content).toContain('malformed verdict: reason_codes: Required');
  });
});

describe('structured-output schemas', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  it('the decision schema accepts every kind of valid decision and rejects invalid ones, as the Zod schema does', () => {
    const validate = ajv.compile(decisionJsonSchema());
    const valid = [
      { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'a.txt' }, confidence: 0.9 },
      { decision_type: 'ask_user', question: 'Which file?' },
      { decision_type: 'present_result', content: 'Here it is' },
      { decision_type: 'request_confirmation', message: 'Overwrite summary.md?' },
      { decision_type: 'reroute', target: 'mail-agent', reason: 'mail work' },
      { decision_type: 'complete', output: '' },
    ];
    const invalid = [
      { decision_type: 'tool_call', tool_name: 'read_text_file' },
      { decision_type: 'tool_call', tool_name: '', arguments: {} },
      { decision_type: 'ask_user', question: 'x', extra: true },
      { decision_type: 'delete_everything' },
      { decision_type: 'complete', output: 'done', confidence: 1.5 },
      [{ decision_type: 'complete', output: 'done' }],
      'complete',
    ];
    for (const d of valid) {
      expect(validate(d), JSON.stringify(d)).toBe(true);
      expect(Decision.safeParse(d).success).toBe(true);
    }
    for (const d of invalid) {
      expect(validate(d), JSON.stringify(d)).toBe(false);
      expect(Decision.safeParse(d).success).toBe(false);
    }
  });

  it('the verdict schema accepts valid verdicts and rejects what TeacherVerdict or the decision schema would', () => {
    const validate = ajv.compile(verdictJsonSchema());
    const valid = [
      { verdict: 'accept', reason_codes: [], explanation: 'Reads the right file.' },
      {
        verdict: 'replace',
        reason_codes: ['invalid_arguments'],
        explanation: 'Wrong path.',
        replacement: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'summary.md', content: 'milk' } },
      },
      { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'Would overwrite the notes.' },
      { verdict: 'escalate', reason_codes: ['policy_violation', 'other'], explanation: 'Needs a person.' },
    ];
    const invalid = [
      { verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'No replacement given.' },
      { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'x', replacement: { decision_type: 'complete', output: '' } },
      { verdict: 'block', reason_codes: [], explanation: 'No reason.' },
      { verdict: 'accept', reason_codes: ['made_up_code'], explanation: 'x' },
      { verdict: 'accept', reason_codes: [], explanation: '' },
      { verdict: 'accept', reason_codes: [], explanation: 'x'.repeat(601) },
      { verdict: 'maybe', reason_codes: [], explanation: 'x' },
      { verdict: 'accept', reason_codes: [], explanation: 'x', note: 'extra key' },
    ];
    for (const v of valid) {
      expect(validate(v), JSON.stringify(v)).toBe(true);
      expect(TeacherVerdict.safeParse(v).success).toBe(true);
    }
    for (const v of invalid) {
      expect(validate(v), JSON.stringify(v)).toBe(false);
      expect(TeacherVerdict.safeParse(v).success).toBe(false);
    }
    // Stricter than TeacherVerdict on one point only: the replacement must itself be a decision.
    const badReplacement = { verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'x', replacement: { decision_type: 'tool_call' } };
    expect(validate(badReplacement)).toBe(false);
  });

  it('both schemas are built once and cannot be changed by a caller', () => {
    expect(decisionJsonSchema()).toBe(decisionJsonSchema());
    expect(verdictJsonSchema()).toBe(verdictJsonSchema());
    expect(Object.isFrozen(verdictJsonSchema())).toBe(true);
    expect(() => {
      (decisionJsonSchema() as { oneOf?: unknown }).oneOf = [];
    }).toThrow();
  });
});

describe('what a prompt holds, as the privacy log names it', () => {
  const toolResult: HistoryEntry = { index: 0, round: 0, decision: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'a.md' } }, result: 'MARK-TOOL-RESULT' };
  const answer: HistoryEntry = { index: 1, round: 1, decision: { decision_type: 'ask_user', question: 'Which file?' }, result: 'MARK-USER-ANSWER' };
  const pending: HistoryEntry = { index: 2, round: 2, decision: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'b.md' } } };
  const parts = fc.record({
    instructions: fc.constantFrom('', 'MARK-INSTRUCTIONS'),
    tools: fc.boolean(),
    history: fc.subarray([toolResult, answer, pending]),
    feedback: fc.constantFrom(undefined, '', 'MARK-FEEDBACK'),
  });
  const holds = (messages: { content: string }[], text: string) => messages.some((m) => m.content.includes(text));

  it('a student prompt names a category exactly when the builder put that part in', () => {
    fc.assert(
      fc.property(parts, (p) => {
        const input = { instructions: p.instructions, task: 'MARK-TASK', snapshot: { ...snapshot, tools: p.tools ? [readTool] : [] }, history: p.history, feedback: p.feedback };
        const { messages, data } = buildStudentPrompt(input);
        expect(messages).toEqual(buildStudentMessages(input));
        expect(data.includes('task')).toBe(holds(messages, 'MARK-TASK'));
        expect(data.includes('instructions')).toBe(holds(messages, 'MARK-INSTRUCTIONS'));
        expect(data.includes('offered_tools')).toBe(holds(messages, 'read_text_file ['));
        expect(data.includes('history')).toBe(messages.some((m) => m.role === 'assistant'));
        expect(data.includes('tool_results')).toBe(holds(messages, 'MARK-TOOL-RESULT'));
        expect(data.includes('user_answers')).toBe(holds(messages, 'MARK-USER-ANSWER'));
        expect(data.includes('feedback')).toBe(holds(messages, 'MARK-FEEDBACK'));
      }),
    );
  });

  it("a teacher's review prompt always holds the candidate and its validation, and the rest as given", () => {
    fc.assert(
      fc.property(parts, fc.boolean(), (p, retried) => {
        const reply = { text: '{"decision_type":"complete","output":"MARK-CANDIDATE"}', tool_calls: [], model: 'replay' };
        const parsed = parseCandidate(reply);
        const input = {
          instructions: p.instructions,
          task: 'MARK-TASK',
          snapshot: { ...snapshot, tools: p.tools ? [readTool] : [] },
          history: p.history,
          review: { reply, parsed, validation: { ok: true as const, issues: [] }, rule: 'review_all' as const, attempt: retried ? 2 : 1, ...(retried ? { previous_problem: 'MARK-FEEDBACK' } : {}) },
        };
        const { messages, data } = buildTeacherPrompt(input);
        expect(messages).toEqual(buildTeacherMessages(input));
        expect(data.includes('candidate') && holds(messages, 'MARK-CANDIDATE')).toBe(true);
        expect(data).toContain('validation');
        expect(data.includes('instructions')).toBe(holds(messages, 'MARK-INSTRUCTIONS'));
        expect(data.includes('tool_results')).toBe(holds(messages, 'MARK-TOOL-RESULT'));
        expect(data.includes('user_answers')).toBe(holds(messages, 'MARK-USER-ANSWER'));
        expect(data.includes('feedback')).toBe(holds(messages, 'MARK-FEEDBACK'));
      }),
    );
  });
});
