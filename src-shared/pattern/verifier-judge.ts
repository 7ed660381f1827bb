import { validateJsonSchema } from '../boundary/json-schema';
import { parseJsonText } from '../boundary/parse-candidate';
import { identityOf } from './caller-identity';
import type { ExpressionCaller, JsonSchemaCaller, VerifierCaller } from './contracts';
import type { JudgeAnswer, JudgeInput } from './machine';
import { compileExpression, evaluateExpression, type CompiledExpression } from './verifier-expression';

/**
 * Domain judgment as a pluggable verifier (issue 29, seed 002): a JSON Schema the output must
 * satisfy, or a deterministic expression over it. Its verdict is the pattern's verdict contract
 * like any judge's, so the loop verifies and records it the same way: an approval or a rejection
 * cites every member output of the iteration (the output rests on all of them), and a rejection's
 * feedback lists each problem in words for the next iteration to fix. The same candidate always
 * gets the same verdict, so a replay judges again rather than reading a record.
 */

const MAX_LISTED = 8;

export const isVerifierCaller = (caller: JudgeInput['caller']): caller is VerifierCaller => caller.kind === 'json_schema' || caller.kind === 'expression';

/** The output's text read as JSON (fenced or not), or undefined when it is not JSON. */
function outputJson(output: string): { value: unknown } | undefined {
  const parsed = parseJsonText(output);
  return parsed.ok ? { value: parsed.value } : undefined;
}

function schemaProblems(caller: JsonSchemaCaller, output: string): string[] {
  const json = outputJson(output);
  if (!json) return ['the output is not JSON, so it cannot satisfy the JSON Schema; answer with JSON only'];
  const issues = validateJsonSchema(caller.schema, `judge:${JSON.stringify(caller.schema)}`, json.value, 'the judge’s JSON Schema');
  return issues.map((i) => (i.path !== undefined ? `${i.path}: ${i.message}` : `the output ${i.message}`));
}

/** Compiled once per expression text (a node judges many iterations with the same one). */
const compiledExpressions = new Map<string, CompiledExpression | string>();

function expressionProblems(caller: ExpressionCaller, input: Pick<JudgeInput, 'output' | 'outputs' | 'iteration' | 'step'>): string[] {
  let compiled = compiledExpressions.get(caller.expression);
  if (compiled === undefined) {
    const result = compileExpression(caller.expression);
    compiled = result.ok ? result.expression : result.problem;
    if (compiledExpressions.size >= 200) compiledExpressions.delete(compiledExpressions.keys().next().value as string);
    compiledExpressions.set(caller.expression, compiled);
  }
  // Validation refuses such a document; a verifier that cannot check passes nothing.
  if (typeof compiled === 'string') return [compiled];
  const result = evaluateExpression(compiled, { output: input.output, json: outputJson(input.output)?.value ?? null, outputs: input.outputs, iteration: input.iteration, step: input.step });
  return result.passed ? [] : result.problems;
}

/** The verifier's verdict on the candidate: approved when it holds, else rejected with every problem listed. */
export function verifierJudgment(caller: VerifierCaller, input: Pick<JudgeInput, 'output' | 'outputs' | 'iteration' | 'step'>, now: () => string = () => new Date().toISOString()): JudgeAnswer {
  const started_at = now();
  const problems = caller.kind === 'json_schema' ? schemaProblems(caller, input.output) : expressionProblems(caller, input);
  const evidence = input.outputs.map((o) => o.id);
  const what = caller.kind === 'json_schema' ? 'the JSON Schema' : 'the expression';
  const listed = problems.slice(0, MAX_LISTED).join('; ') + (problems.length > MAX_LISTED ? ` (and ${problems.length - MAX_LISTED} more)` : '');
  const answer = problems.length === 0 ? { verdict: 'approved', evidence } : { verdict: 'rejected', feedback: `The output does not satisfy ${what}: ${listed}.`, evidence };
  return { answer, started_at, ended_at: now(), caller: identityOf(caller) };
}
