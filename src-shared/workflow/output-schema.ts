import { runChecks } from './assert-checks';

/**
 * What is wrong with an agent's answer under its node's output schema (a JSON Schema the answer's
 * JSON must meet, fenced or not), or undefined when it meets it. The agent's own answer and a
 * supervisor's substitute for it are checked the same way.
 */
export function outputSchemaProblem(schema: Record<string, unknown>, output: unknown): string | undefined {
  const checked = runChecks([{ check: 'json_schema', schema }], output);
  return checked.ok ? undefined : checked.reason.replace(/^check 1 \(json_schema\): /, '');
}
