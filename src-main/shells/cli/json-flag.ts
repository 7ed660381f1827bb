import { SpecError } from '../../spec/spec-errors';

/** A flag that takes a JSON object (`--arguments`: an approved tool call's edited arguments; `--value`: a substitute). */
export function jsonObjectFlag(flag: string, text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SpecError(`${flag} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SpecError(`${flag} takes a JSON object (${what})`);
  return value as Record<string, unknown>;
}
