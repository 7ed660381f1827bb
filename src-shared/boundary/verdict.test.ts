import { describe, expect, it } from 'vitest';
import { parseVerdict } from './verdict';
import { REASON_CODES, TeacherVerdict, VERDICTS, VERDICT_LABELS } from '../contracts/verdict';
import { jsonReply, textReply, toolCallReply } from './testing/fixtures';

const accept = { verdict: 'accept', reason_codes: [], explanation: 'Correct tool and arguments.' };
const replacement = { decision_type: 'ask_user', question: 'Which file?' };

const problemOf = (value: unknown): string => {
  const parsed = parseVerdict(jsonReply(value));
  if (parsed.ok) throw new Error('expected a malformed verdict');
  return parsed.error;
};

describe('parsing a teacher verdict (strict)', () => {
  it('each well-formed verdict parses', () => {
    expect(parseVerdict(jsonReply(accept))).toEqual({ ok: true, verdict: accept });
    for (const verdict of ['block', 'escalate'] as const) {
      expect(parseVerdict(jsonReply({ verdict, reason_codes: ['unsafe_effect'], explanation: 'x' })).ok).toBe(true);
    }
    const replace = { verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'ask first', replacement };
    expect(parseVerdict(jsonReply(replace))).toEqual({ ok: true, verdict: replace });
  });

  it('a fenced verdict parses like a bare one', () => {
    expect(parseVerdict(textReply(`\`\`\`json\n${JSON.stringify(accept)}\n\`\`\``))).toEqual({ ok: true, verdict: accept });
  });

  it('unknown keys make a verdict malformed', () => {
    expect(problemOf({ ...accept, confidence: 0.9 })).toMatch(/^verdict: Unrecognized key/);
  });

  it('replace without a replacement is malformed', () => {
    expect(problemOf({ verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'x' })).toBe('replacement: replace needs a replacement decision');
  });

  it('a replacement on any other verdict is malformed', () => {
    for (const verdict of ['accept', 'block', 'escalate'] as const) {
      expect(problemOf({ verdict, reason_codes: ['other'], explanation: 'x', replacement })).toContain(`replacement: ${verdict} must not carry a replacement`);
    }
  });

  it('block, escalate and replace need at least one reason code; accept does not', () => {
    for (const verdict of ['block', 'escalate'] as const) {
      expect(problemOf({ verdict, reason_codes: [], explanation: 'x' })).toBe(`reason_codes: ${verdict} needs at least one reason code`);
    }
    expect(problemOf({ verdict: 'replace', reason_codes: [], explanation: 'x', replacement })).toBe('reason_codes: replace needs at least one reason code');
    expect(parseVerdict(jsonReply({ ...accept, reason_codes: ['other'] })).ok).toBe(true);
  });

  it('an unknown verdict or reason code is malformed', () => {
    expect(problemOf({ ...accept, verdict: 'maybe' })).toMatch(/^verdict:/);
    expect(problemOf({ verdict: 'block', reason_codes: ['vibes'], explanation: 'x' })).toMatch(/^reason_codes\.0:/);
  });

  it('the explanation is required and short', () => {
    expect(problemOf({ ...accept, explanation: '' })).toMatch(/^explanation:/);
    expect(problemOf({ verdict: 'accept', reason_codes: [] })).toMatch(/^explanation:/);
    expect(problemOf({ ...accept, explanation: 'x'.repeat(601) })).toMatch(/^explanation:/);
    expect(parseVerdict(jsonReply({ ...accept, explanation: 'x'.repeat(600) })).ok).toBe(true);
  });

  it('prose, empty text and a tool call are malformed', () => {
    expect(parseVerdict(textReply('Looks good!'))).toMatchObject({ ok: false, error: expect.stringMatching(/^the model answered in prose, not a JSON decision \(its reply begins “Looks good!”\)$/) });
    expect(parseVerdict(textReply(''))).toEqual({ ok: false, error: 'the model returned an empty reply' });
    expect(parseVerdict(toolCallReply([{ name: 'write_file', arguments: {} }]))).toEqual({
      ok: false,
      error: 'the teacher called a tool instead of returning a verdict',
    });
    expect(problemOf([accept])).toMatch(/^verdict:/);
  });

  it('the replacement is not judged here: it goes through the same validation as a student decision', () => {
    const odd = { verdict: 'replace', reason_codes: ['other'], explanation: 'x', replacement: { decision_type: 'nonsense' } };
    expect(parseVerdict(jsonReply(odd))).toEqual({ ok: true, verdict: odd });
  });

  it('every verdict and reason code is known to the contract', () => {
    expect(Object.keys(VERDICT_LABELS).sort()).toEqual([...VERDICTS].sort());
    expect(TeacherVerdict.safeParse({ verdict: 'block', reason_codes: [...REASON_CODES], explanation: 'all of them' }).success).toBe(true);
  });
});
