import { describe, expect, it } from 'vitest';
import { JudgmentCaller, type ExpressionCaller, type JsonSchemaCaller } from './contracts';
import { verifyVerdict } from './verifier';
import { compileExpression, evaluateExpression } from './verifier-expression';
import { verifierJudgment } from './verifier-judge';

/** Domain judgment as pluggable verifiers (issue 29): a JSON Schema and a deterministic expression, judged as the loop judges any verdict. */

const outputs = [
  { id: 'draft#1', member_id: 'draft', text: 'the draft' },
  { id: 'review#1', member_id: 'review', text: 'the review' },
];
const candidate = (output: string) => ({ output, outputs, iteration: 1, step: 0 });
const schema: JsonSchemaCaller = { kind: 'json_schema', name: 'Incident report', schema: { type: 'object', required: ['title', 'severity'], properties: { title: { type: 'string', minLength: 3 }, severity: { enum: ['low', 'high'] } } } };
const expression = (source: string): ExpressionCaller => JudgmentCaller.parse({ kind: 'expression', expression: source }) as ExpressionCaller;

describe('the json_schema verifier', () => {
  it('approves an output that satisfies the schema, citing every member output, recorded as the verifier', () => {
    const judged = verifierJudgment(schema, candidate('```json\n{"title":"Disk full","severity":"high"}\n```'));
    expect(judged.answer).toEqual({ verdict: 'approved', evidence: ['draft#1', 'review#1'] });
    expect(judged.caller).toEqual({ kind: 'verifier', verifier: 'json_schema', name: 'Incident report' });
    // It passes the loop's own verification like any verdict (must_cite included).
    const verified = verifyVerdict(judged.answer, candidate('x'), { min_citations: 1, must_cite: ['review'] }, judged.caller ?? { kind: 'system' });
    expect(verified).toMatchObject({ ok: true, verdict: { verdict: 'approved' } });
  });

  it('rejects with every problem listed in words, and an output that is not JSON says so', () => {
    const judged = verifierJudgment(schema, candidate('{"title":"ok","severity":"medium"}'));
    expect(judged.answer).toMatchObject({ verdict: 'rejected', evidence: ['draft#1', 'review#1'] });
    const feedback = (judged.answer as { feedback: string }).feedback;
    expect(feedback).toMatch(/^The output does not satisfy the JSON Schema: /);
    expect(feedback).toContain('title: must NOT have fewer than 3 characters');
    expect(feedback).toContain('severity: must be equal to one of the allowed values');
    expect(feedback).toContain('severity');
    expect((verifierJudgment(schema, candidate('{"title":"Disk full"}')).answer as { feedback: string }).feedback).toContain('severity: must have required property');
    expect((verifierJudgment(schema, candidate('Everything is fine.')).answer as { feedback: string }).feedback).toContain('the output is not JSON');
  });
});

describe('the expression verifier', () => {
  it('approves when the expression holds over the output read as JSON', () => {
    const judge = expression('json.score >= 0.8 and length(json.items) > 0 and not (output contains "TODO")');
    expect(verifierJudgment(judge, candidate('{"score":0.9,"items":[1]}')).answer).toEqual({ verdict: 'approved', evidence: ['draft#1', 'review#1'] });
    expect(verifierJudgment(judge, candidate('{"score":0.9,"items":[1]}')).caller).toEqual({ kind: 'verifier', verifier: 'expression', name: 'json.score >= 0.8 and length(json.items) > 0 and not (output contains "TODO")' });
  });

  it('rejects naming each part that does not hold and the values it read', () => {
    const judge = expression('json.score >= 0.8 and length(json.items) > 0 and not (output contains "TODO")');
    const judged = verifierJudgment(judge, candidate('{"score":0.5,"items":[],"note":"TODO"}'));
    const feedback = (judged.answer as { feedback: string }).feedback;
    expect(judged.answer).toMatchObject({ verdict: 'rejected' });
    expect(feedback).toContain('“json.score >= 0.8” does not hold (json.score is 0.5)');
    expect(feedback).toContain('“length(json.items) > 0” does not hold (length(json.items) is 0)');
    expect(feedback).toContain('“not (output contains "TODO")” does not hold');
    // A number compared with text is false, and said so; a missing property is "missing".
    const missing = verifierJudgment(expression('json.score > 1'), candidate('plain text'));
    expect((missing.answer as { feedback: string }).feedback).toContain('json.score is missing: not two numbers or two texts');
  });

  it('reads own properties only, never the prototype', () => {
    const compiled = compileExpression('json.constructor == null and json.__proto__ == null and outputs[1].member_id == "review" and lower(output) contains "ok"');
    if (!compiled.ok) throw new Error(compiled.problem);
    expect(evaluateExpression(compiled.expression, { output: 'OK', json: {}, outputs, iteration: 1, step: 0 })).toEqual({ passed: true });
  });

  it('a bad expression is refused when the caller is read, in words', () => {
    for (const [source, words] of [
      ['json.score >= ', 'the expression ends where a value was expected'],
      ['json.score => 1', '“=” at character 12 is not part of the language'],
      ['eval("1")', 'there is no function “eval”'],
      ['process.exit', '“process” at character 1 names nothing'],
      ['output contains "open', 'never closed'],
      ['a; b', '“;” at character 2 is not part of the language'],
    ] as const) {
      const parsed = JudgmentCaller.safeParse({ kind: 'expression', expression: source });
      expect(parsed.success, source).toBe(false);
      expect(parsed.error?.issues[0]?.message, source).toContain(words);
    }
  });
});
